#!/usr/bin/env bash
# How long Slurm's prolog waits for the SDN controller: the latency from sending job_start to
# receiving "ready", end to end with the real processes. Fabric: an ibsim XGFT(2;4,4;1,4) (16
# hosts, 8 switches), one ibsdn-switch-agent per switch, the stock opensm as a daemon with
# libosmsdn.so (-R sdn,no_fallback; the periodic audit off, so that nothing but the jobs sends
# MADs). Jobs of 8, 16 and 64 fabric flows (8 hosts random-perm, 16 hosts random-perm, 16 hosts
# random4; the reply's "flows" is checked), each started N times with its job_end in between
# (the job id seeds the pattern, so every repetition routes other pairs). Per size: median and
# p90 of the wall time around `ibsdnctl --json job start`, of the split the ready answer carries
# (timings_ms: route, compile, install = the FlowMod round trips) and of job_end; the entries
# installed.
#
# Baselines measured in the same run:
#   ping      `ibsdnctl ping`: the same process start and notice round trip, no routing, no MAD
#             (taken before each flowstats and each job_start, so under the same load)
#   flowstats `ibsdnctl --json flows --from-switch --switch S` on an empty table, before the
#             jobs: the same plus one FlowStats MAD round trip from inside opensm
#   mad rtt   one TableInfo round trip of a raw MAD through ibsim (ibsdn-madtool bench at an HCA,
#             the mean of many sequential round trips in one process)
# Printed ratios: job_start / ping, job_start / flowstats, install time per entry, and that per
# entry against the raw MAD round trip (below 1: the controller keeps several FlowMods in flight).
#
#   bench/controller_latency.sh BUILD_DIR [--quick] [--reps N]    (N default 20, --quick 3)
#
# Environment: KEEP=1 keeps the work directory (opensm's log: $WORK/osm/opensm.log; every ready
# answer: $WORK/jobs/). Exit 77: a tool is missing.
set -euo pipefail
shopt -s inherit_errexit

usage() {
  echo "usage: $0 BUILD_DIR [--quick] [--reps N]" >&2
  exit 2
}
(($# >= 1)) || usage
BUILD=$1
shift
REPS=20
while (($# > 0)); do
  case $1 in
    --quick) REPS=3 ;;
    --reps) (($# >= 2)) || usage; REPS=$2; shift ;;
    *) usage ;;
  esac
  shift
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || usage
MAD_ROUND_TRIPS=1000
KEY=0x1a7e
MAD_HOST=n0016         # ibsdn-madtool's HCA (opensm is at the netlist's first node, n0001)
MAD_SWITCH=l2s001      # the switch both baselines ask

# shellcheck source-path=SCRIPTDIR source=../tests/integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/ibsim_lib.sh"
ibsim_lib_init controller-latency python3
[[ -d $BUILD ]] || skip "no build directory $BUILD"
BUILD=$(cd "$BUILD" && pwd)
SIM=$BUILD/sim_backend/ibsdn-sim
AGENT=$BUILD/mad/agent/ibsdn-switch-agent
TOOL=$BUILD/mad/agent/ibsdn-madtool
CTL=$BUILD/cli/ibsdnctl
for f in "$SIM" "$AGENT" "$TOOL" "$CTL" "$BUILD/plugin/libosmsdn.so"; do
  [[ -e $f ]] || skip "$f not built"
done
OPENSM_PLUGIN_DIR=$BUILD/plugin
export IBSDN_SOCKET=$WORK/notice.sock

start=$(date +%s)
# Other work on the machine shows up as scheduler delays (multiples of the tick): say how busy it was.
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
"$SIM" topo --xgft "2;4,4;1,4" --netlist "$WORK/fabric.net" >/dev/null || fail "netlist export"

umask 077
cat >"$WORK/ibsdn.yaml" <<EOF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: $KEY
slurm_user: root
mad: {timeout_ms: 200, retries: 2}
job_start_timeout_ms: 5000
audit_interval_ms: 0
EOF
umask 022

ibsim_start "$WORK/fabric.net"
# Not --verbose: one log line per MAD would measure the log. --any-writer: ibsdn-madtool bench
# at $MAD_HOST (not the master SM) writes too (it deletes its cookie after the run).
agents_start "$WORK/fabric.net" "$AGENT" --key "$KEY" --any-writer
((AGENTS_STARTED == 8)) || fail "expected 8 switches in the netlist, found $AGENTS_STARTED"
opensm_conf "$WORK/osm" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml"
opensm_start opensm "$WORK/osm" -R sdn,no_fallback
opensm_wait_audit "$WORK/osm" 60
"$CTL" ping >/dev/null || fail "ibsdnctl ping"

# Milliseconds since $1 (an $EPOCHREALTIME), without a fork.
elapsed_ms() {
  local now=$EPOCHREALTIME
  local us=$((${now/./} - ${1/./}))
  printf '%d.%03d' $((us / 1000)) $((us % 1000))
}

# --- baselines --------------------------------------------------------------------------------
# The machine's load changes over a run: pings are taken between the other measurements (before
# each flowstats and each job_start), so that the baseline sees the same conditions.
ping_once() {
  local t0=$EPOCHREALTIME
  "$CTL" ping >/dev/null || fail "ibsdnctl ping"
  elapsed_ms "$t0" >>"$WORK/ping.ms"
  echo >>"$WORK/ping.ms"
}
mkdir -p "$WORK/jobs"
: >"$WORK/ping.ms"
: >"$WORK/flowstats.ms"
for ((i = 0; i < REPS; i++)); do
  ping_once
  t0=$EPOCHREALTIME
  "$CTL" --json flows --from-switch --switch "$MAD_SWITCH" >"$WORK/flowstats.json" ||
    fail "flows --from-switch --switch $MAD_SWITCH: $(cat "$WORK/flowstats.json")"
  elapsed_ms "$t0" >>"$WORK/flowstats.ms"
  echo >>"$WORK/flowstats.ms"
done
lid=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert not r.get("warnings"), r["warnings"]
print(r["switches"][0]["lid"])' "$WORK/flowstats.json") || fail "flows --from-switch: $(cat "$WORK/flowstats.json")"
# ibsim's 10th client, for the duration of this command. --count 0: no FlowMod, only the round
# trips (and a delete of its own cookie, which matches nothing).
sim_run "$MAD_HOST" "$TOOL" --key "$KEY" --lid "$lid" --timeout 1000 \
  bench --count 0 --round-trips "$MAD_ROUND_TRIPS" >"$WORK/madtool.out" 2>&1 ||
  fail "ibsdn-madtool bench: $(cat "$WORK/madtool.out")"
mad_rtt_ms=$(sed -n 's/^TableInfo round trip.* \([0-9.][0-9.]*\) *1\.00$/\1/p' "$WORK/madtool.out" |
  awk '$1 > 0 { printf "%.4f", 1000 / $1 }')
[[ -n $mad_rtt_ms ]] || fail "no TableInfo rate in: $(cat "$WORK/madtool.out")"

# --- jobs -------------------------------------------------------------------------------------
hosts() {  # N: n0001,...,n000N
  local list
  printf -v list 'n%04d,' $(seq 1 "$1")
  printf '%s\n' "${list%,}"
}
# flows|label|hosts|pattern
SIZES=(
  "8|8 hosts random-perm|8|random-perm"
  "16|16 hosts random-perm|16|random-perm"
  "64|16 hosts random4|16|random4"
)
: >"$WORK/jobs.tsv"
run_job() {  # ID HOSTS PATTERN EXPECTED_FLOWS RECORD(0/1)
  local id=$1 nodes=$2 pattern=$3 want=$4 record=$5 t0 start_ms end_ms out=$WORK/jobs/$1.json
  if ((record)); then ping_once; fi
  t0=$EPOCHREALTIME
  "$CTL" --json job start --job "$id" --user root --nodes "$nodes" --pattern "$pattern" \
    >"$out" || fail "job start $id: $(cat "$out")"
  start_ms=$(elapsed_ms "$t0")
  t0=$EPOCHREALTIME
  "$CTL" job end --job "$id" >"$WORK/jobs/$id.end" || fail "job end $id: $(cat "$WORK/jobs/$id.end")"
  end_ms=$(elapsed_ms "$t0")
  # The answer is checked at the end (flows as expected, not degraded): python's start-up here
  # would triple the run time.
  if ((record)); then
    printf '%s\t%s\t%s\t%s\t%s\n' "$want" "$id" "$out" "$start_ms" "$end_ms" >>"$WORK/jobs.tsv"
  fi
}
# One discarded job first: the first job_start pays for first-use work (a database page, code
# paths) that the others do not.
run_job 1 "$(hosts 16)" random4 64 0
id=100
for size in "${SIZES[@]}"; do
  IFS='|' read -r want _ n pattern <<<"$size"
  nodes=$(hosts "$n")
  for ((r = 0; r < REPS; r++)); do
    id=$((id + 1))
    run_job "$id" "$nodes" "$pattern" "$want" 1
  done
done
# Every job ended: the switches must hold nothing (job_end really removed the entries).
"$CTL" --json flows --from-switch >"$WORK/left.json" || fail "flows --from-switch"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
left = sum(len(s["entries"]) for s in r["switches"])
sys.exit(f"{left} entries left on the switches after the last job_end" if left else 0)' \
  "$WORK/left.json" || fail "tables not empty"
proc_alive opensm || fail "opensm died"

# --- report -----------------------------------------------------------------------------------
# The controller's own "job ID (...): ... in X ms" log line: its time from taking the notice to
# the answer, which also covers what timings_ms leaves out (the state store's commits).
sed -n 's/.* osmsdn: job \([0-9]*\) (.* in \([0-9.]*\) ms$/\1\t\2/p' "$WORK/osm/opensm.log" \
  >"$WORK/controller.ms"
echo "ibsim XGFT(2;4,4;1,4) (16 hosts, 8 switches), 8 ibsdn-switch-agents, opensm -R sdn,no_fallback"
echo "with libosmsdn.so (MAD window 32, periodic audit off); $REPS job_start per size, job_end between"
python3 - "$WORK/ping.ms" "$WORK/flowstats.ms" "$mad_rtt_ms" "$WORK/jobs.tsv" \
  "$(printf '%s\n' "${SIZES[@]}")" "$MAD_SWITCH" "$MAD_HOST" "$MAD_ROUND_TRIPS" \
  "$WORK/controller.ms" <<'PY'
import json, math, statistics, sys
ping_f, fs_f, mad_rtt, jobs_f, sizes_txt, mad_switch, mad_host, rts, ctl_f = sys.argv[1:10]
mad_rtt = float(mad_rtt)

def nums(path):
    return [float(l) for l in open(path) if l.strip()]

def p90(v):  # nearest rank
    s = sorted(v)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)]

def mp(v):
    return f"{statistics.median(v):.2f}/{p90(v):.2f}"

controller_ms = dict(l.split() for l in open(ctl_f) if l.strip())
labels = {int(s.split("|")[0]): s.split("|")[1] for s in sizes_txt.splitlines()}
rows = {}
for line in open(jobs_f):
    flows, job, path, start_ms, end_ms = line.rstrip("\n").split("\t")
    r = json.load(open(path))
    if r.get("flows") != int(flows) or r.get("degraded") is not False:
        sys.exit(f"job {job}: expected {flows} flows, not degraded; got {json.dumps(r)}")
    if job not in controller_ms:
        sys.exit(f"job {job}: no 'osmsdn: job {job} (...) in X ms' line in opensm's log")
    t = r["timings_ms"]
    x = {"total": float(start_ms), "controller": float(controller_ms[job]), "route": t["route"],
         "compile": t["compile"], "install": t["install"], "entries": r["entries"],
         "end": float(end_ms)}
    x["rest"] = x["controller"] - t["route"] - t["compile"] - t["install"]
    x["per_entry"] = t["install"] / r["entries"] if r["entries"] else float("nan")
    rows.setdefault(int(flows), []).append(x)

ping, fs = nums(ping_f), nums(fs_f)
print()
W = 70
print(f"{'baseline (same run), ms':<{W}} {'median/p90':>12}    n")
print(f"{'ibsdnctl ping (process start + notice round trip, no MAD)':<{W}} {mp(ping):>12} {len(ping):4d}")
print(f"{'ibsdnctl flows --from-switch --switch ' + mad_switch + ' (ping + 1 FlowStats MAD)':<{W}}"
      f" {mp(fs):>12} {len(fs):4d}")
print(f"{'TableInfo MAD round trip, raw (ibsdn-madtool at ' + mad_host + ', mean)':<{W}}"
      f" {mad_rtt:12.3f} {rts:>4}")

print()
print("job_start -> ready, ms, median/p90. total: wall time around `ibsdnctl --json job start`;")
print("controller: its log's 'in X ms'; route, compile, install: the ready answer's timings_ms;")
print("rest: controller - route - compile - install (state store commits, tracing);")
print("entries: installed, median [min-max]; job_end: wall time around `ibsdnctl job end`")
cols = ["total", "controller", "route", "compile", "install", "rest", "end"]
print(f"{'flows':>5} {'job':<22} {'entries':>13}" + "".join(f" {c if c != 'end' else 'job_end':>12}" for c in cols))
for flows in sorted(rows):
    v = rows[flows]
    e = [x["entries"] for x in v]
    ent = f"{statistics.median(e):g} [{min(e)}-{max(e)}]"
    print(f"{flows:5d} {labels[flows]:<22} {ent:>13}" + "".join(f" {mp([x[c] for x in v]):>12}" for c in cols))

ping_med, fs_med = statistics.median(ping), statistics.median(fs)
print()
print("ratios of medians: job_start total / ping, total / flows --from-switch; install ms per")
print("entry, and that / the TableInfo MAD round trip (< 1: FlowMods overlap in the MAD window)")
print(f"{'flows':>5} {'total/ping':>11} {'total/flowstats':>16} {'install/entry ms':>17}"
      f" {'per entry/MAD rtt':>18}")
for flows in sorted(rows):
    v = rows[flows]
    tot = statistics.median([x["total"] for x in v])
    pe = statistics.median([x["per_entry"] for x in v if not math.isnan(x["per_entry"])])
    print(f"{flows:5d} {tot / ping_med:11.2f} {tot / fs_med:16.2f} {pe:17.3f} {pe / mad_rtt:18.2f}")
PY
echo "($(($(date +%s) - start)) s; load average $load_start at the start," \
  "$(cut -d' ' -f1-3 /proc/loadavg) at the end, $(nproc) CPUs)"
