#!/usr/bin/env bash
# What installing a job's routes in the switches' LFTs costs, as a ratio to OpenSM re-routing the
# whole fabric with the same engine, on the same ibsim fabric in one run: XGFT(3;8,8,8;1,8,8)
# (512 hosts, 192 switches), opensm -R sdn with the plugin, no switch agent (install_backend auto:
# every switch takes the job's routes into its LFT).
#
# Per round, interleaved (job, job, sweep) so that drift on the machine hits all alike:
#   job-64   `ibsdnctl job start` of a random permutation on 64 hosts (every 8th: all leaves),
#            wall time of the command (job_start -> ready: routing, blocks written through
#            OpenSM and confirmed), then `job end` (not timed);
#   job-512  the same on all 512 hosts;
#   sweep    SIGHUP: opensm's heavy sweep (discovery, the sdn engine's tables with the kept
#            overrides, LFT upload of what differs, SA) from the signal to its "SUBNET UP" line.
# Printed: medians (min / max) in ms, the ratios job / sweep (the target is under 0.1x), and the
# LFT blocks each job wrote against the blocks of the full tables (switches x blocks per table).
#
#   bench/lft_install.sh BUILD_DIR [--quick] [--runs R]     (R default 5, --quick 2)
#
# KEEP=1 keeps the work directory. Exit 77: a tool is missing.
set -euo pipefail
shopt -s inherit_errexit

usage() {
  echo "usage: $0 BUILD_DIR [--quick] [--runs R]" >&2
  exit 2
}
(($# >= 1)) || usage
BUILD=$1
shift
RUNS=5
while (($# > 0)); do
  case $1 in
    --quick) RUNS=2 ;;
    --runs) (($# >= 2)) || usage; RUNS=$2; shift ;;
    *) usage ;;
  esac
  shift
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || usage
XGFT="3;8,8,8;1,8,8"

# shellcheck source-path=SCRIPTDIR source=../tests/integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/ibsim_lib.sh"
ibsim_lib_init lft-install python3
[[ -d $BUILD ]] || skip "no build directory $BUILD"
BUILD=$(cd "$BUILD" && pwd)
ibsdn_programs "$BUILD"

"$sim" topo --xgft "$XGFT" --netlist "$WORK/fabric.net" >"$WORK/topo.txt" || fail "netlist export"
mapfile -t hosts < <(sed -n 's/^Hca\t[0-9]*\t"\([^"]*\)".*/\1/p' "$WORK/fabric.net")
switches=$(netlist_switches "$WORK/fabric.net" | wc -l)
((${#hosts[@]} == 512)) || fail "expected 512 hosts, found ${#hosts[@]}"
csv() { local IFS=,; echo "$*"; }
job64=()
for ((i = 0; i < 512; i += 8)); do job64+=("${hosts[i]}"); done

umask 077
cat >"$WORK/ibsdn.yaml" <<EOF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: 0x5eed
mad: {timeout_ms: 100, retries: 1}
job_start_timeout_ms: 30000
audit_interval_ms: 0
EOF
umask 022

ibsim_start "$WORK/fabric.net"
osm=$WORK/osm
opensm_conf "$osm" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml"
mark=$(file_size "$osm/opensm.log")
opensm_start opensm "$osm" -R sdn,no_fallback
opensm_wait_audit "$osm" 120 "$mark"

: >"$WORK/results"
job_round() {  # NAME HOSTS_CSV
  local t0 t1 id=$((++JOB_ID))
  t0=$EPOCHREALTIME
  "$ctl" --json job start --job "$id" --user root --nodes "$2" --pattern random-perm \
    >"$WORK/ready.json" || fail "$1: job start: $(cat "$WORK/ready.json")"
  t1=$EPOCHREALTIME
  python3 - "$1" "$t0" "$t1" "$WORK/ready.json" >>"$WORK/results" <<'PY'
import json, sys
name, t0, t1, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
r = json.load(open(path))
lft = r["backends"]["lft"]
assert r["backends"]["flow_table"]["entries"] == 0 and lft["entries"] > 0, r["backends"]
print(name, f"{(t1 - t0) * 1e3:.3f}", lft["blocks"], lft["entries"], r["max_link_load"], r["bound"])
PY
  "$ctl" job end --job "$id" >/dev/null || fail "$1: job end"
}
sweep_round() {
  local t0 from
  from=$(file_size "$osm/opensm.log")
  t0=$EPOCHREALTIME
  proc_signal opensm HUP
  opensm_wait_audit "$osm" 120 "$from"
  python3 - "$osm/opensm.log" "$from" "$t0" >>"$WORK/results" <<'PY'
import re, sys, time
path, start, t0 = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
stamp = re.compile(r"^\w{3} +\d+ (\d\d):(\d\d):(\d\d) (\d{6}) \[[0-9A-Fa-f]+\] 0x[0-9a-f]+ -> SUBNET UP")
with open(path, errors="replace") as f:
    f.seek(start)
    for line in f:
        m = stamp.match(line)
        if m:
            up = int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]) + int(m[4]) / 1e6
            lt = time.localtime(t0)
            sent = lt.tm_hour * 3600 + lt.tm_min * 60 + lt.tm_sec + (t0 % 1)
            print("sweep", f"{((up - sent) % 86400) * 1e3:.3f}")
            break
    else:
        sys.exit("no SUBNET UP after the signal")
PY
}

JOB_ID=100
job_round warmup "$(csv "${job64[@]}")"
sed -i '/^warmup /d' "$WORK/results"
for ((r = 1; r <= RUNS; r++)); do
  job_round job-64 "$(csv "${job64[@]}")"
  job_round job-512 "$(csv "${hosts[@]}")"
  sweep_round
done

lids=$((512 + switches))
python3 - "$WORK/results" "$RUNS" "$switches" "$lids" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import statistics, sys
path, runs, switches, lids, load = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = {}
for line in open(path):
    f = line.split()
    rows.setdefault(f[0], []).append(f[1:])
full_blocks = switches * ((lids + 1 + 63) // 64)
print(f"ibsim XGFT(3;8,8,8;1,8,8): 512 hosts, {switches} switches, {lids} LIDs; opensm -R sdn + plugin, "
      f"no switch agent; {runs} rounds, interleaved; load average {load}")
print(f"{'':9} {'median ms':>10} {'min':>9} {'max':>9} {'/sweep':>8} {'blocks':>7} {'/full':>7} {'entries':>8} {'L_D/bound':>10}")
sweep = statistics.median(float(r[0]) for r in rows["sweep"])
for name in ("job-64", "job-512", "sweep"):
    t = [float(r[0]) for r in rows[name]]
    med = statistics.median(t)
    if name == "sweep":
        print(f"{name:9} {med:10.1f} {min(t):9.1f} {max(t):9.1f} {'1.000':>8} {full_blocks:7d} {'1.000':>7}")
        continue
    blocks = statistics.median(int(r[1]) for r in rows[name])
    entries = statistics.median(int(r[2]) for r in rows[name])
    ld = max(float(r[3]) / float(r[4]) for r in rows[name])
    print(f"{name:9} {med:10.1f} {min(t):9.1f} {max(t):9.1f} {med / sweep:8.3f} {blocks:7.0f} "
          f"{blocks / full_blocks:7.3f} {entries:8.0f} {ld:10.3f}")
print(f"full tables: {switches} switches x {(lids + 1 + 63) // 64} blocks of 64 LIDs")
PY
