#!/usr/bin/env bash
# What loading libosmsdn.so costs a heavy sweep of the stock opensm, as a ratio to the same opensm
# without the plugin on the same ibsim fabric, measured in one run. Fabric: XGFT(3;8,8,8;1,8,8)
# (512 hosts, 192 switches) in ibsim with default limits. Configurations, each `opensm --once`
# with a fresh cache directory (fresh LIDs), run in interleaved rounds (a b c, a b c, ...) after
# one discarded warm-up round so that drift on the machine hits all three alike:
#   (a) stock:       -R ftree,no_fallback, no plugin                          (the baseline)
#   (b) ftree+plugin: the same engine, libosmsdn.so loaded (event_plugin_name osmsdn)
#   (c) sdn:         -R sdn,no_fallback, the plugin's own engine (DmodK tables)
# (b) and (c) set sa_db_dump TRUE: with --once the plugin hears of the subnet only through
# SA_DB_DUMPED (plugin/opensm/README.md).
# No switch agents run: after SUBNET UP the controller's audit of the 192 switches fails fast
# (ibsim hands the undelivered MADs back), which shows in the wall time, not in the sweep.
#
# Measured per run, from opensm's own log timestamps:
#   init  = first log line -> "Setting IS_SM on port" (config, plugin load and controller start,
#           MAD binds)
#   sweep = "Setting IS_SM on port" -> "SUBNET UP" (the heavy sweep: discovery, LIDs, routing,
#           LFT upload, SA)
#   of which route = "Entering MASTER state" -> "ENGINE tables configured on all switches" (LID
#           assignment, the routing engine, the LFT blocks queued; in (c) the sdn engine's copy
#           of the subnet and its DmodK happen here)
#   tail  = "SUBNET UP" -> "Exiting SM" (with the plugin: its copy of the subnet and the worker's
#           analysis of it, the failing audit, the controller's shutdown; the SUBNET UP handling
#           of the plugin runs after opensm's "SUBNET UP" line, so it is here, not in the sweep)
# and the process's wall time (start -> exit, including the plugin's work after SUBNET UP and its
# shutdown). Printed: medians (and min / max) per configuration and the ratios (b)/(a), (c)/(a)
# (the tail, a few ms without the plugin, as the difference of the medians instead), and the
# ratio of the fastest sweeps, which other load on the machine disturbs least.
#
#   bench/opensm_sweep.sh BUILD_DIR [--quick] [--runs R]     (R default 5, --quick 2)
#
# Environment: OSM_LOG_FLAGS (default 0x03, opensm's default: errors + info; 0x43 adds the
# routing dumps the tests use, which write ~16 MB per sweep and dilute the ratio), KEEP=1 keeps
# the work directory (logs of every run under $WORK/runs). Exit 77: a tool is missing.
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
LOG_FLAGS=${OSM_LOG_FLAGS:-0x03}
XGFT="3;8,8,8;1,8,8"

# shellcheck source-path=SCRIPTDIR source=../tests/integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/ibsim_lib.sh"
ibsim_lib_init opensm-sweep python3
[[ -d $BUILD ]] || skip "no build directory $BUILD"
BUILD=$(cd "$BUILD" && pwd)
SIM=$BUILD/sim_backend/ibsdn-sim
for f in "$SIM" "$BUILD/plugin/libosmsdn.so"; do
  [[ -e $f ]] || skip "$f not built"
done
OPENSM_PLUGIN_DIR=$BUILD/plugin

"$SIM" topo --xgft "$XGFT" --netlist "$WORK/fabric.net" >"$WORK/topo.txt" || fail "netlist export"
ibsim_start "$WORK/fabric.net"

umask 077
cat >"$WORK/ibsdn.yaml" <<EOF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: 0x5eed
slurm_user: root
mad: {timeout_ms: 200, retries: 2}
audit_interval_ms: 0
EOF
umask 022

CONFIGS=(a b c)
declare -A LABEL=(
  [a]="(a) stock opensm -R ftree"
  [b]="(b) -R ftree + plugin"
  [c]="(c) -R sdn + plugin"
)
declare -A ENGINE=([a]=ftree [b]=ftree [c]=sdn)

# One opensm --once of configuration CFG in DIR; appends "CFG init sweep route tail wall" (s) to
# $WORK/results (unless WARMUP=1).
run_one() {  # CFG DIR
  local cfg=$1 dir=$2 t0 t1 engine=${ENGINE[$1]}
  if [[ $cfg == a ]]; then
    opensm_conf "$dir"
  else
    opensm_conf "$dir" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml" \
      "sa_db_dump TRUE"
  fi
  t0=$EPOCHREALTIME
  opensm_run "$dir" -R "$engine,no_fallback" -D "$LOG_FLAGS" || fail "${LABEL[$cfg]}: opensm failed"
  t1=$EPOCHREALTIME
  grep -q "$engine tables configured on all switches" "$dir/opensm.log" ||
    fail "${LABEL[$cfg]}: no '$engine tables configured on all switches' in $dir/opensm.log"
  if [[ $cfg != a ]]; then
    # Proof that the plugin was loaded and handed the subnet.
    grep -q "osmsdn: subnet up, routed by '$engine'" "$dir/opensm.log" ||
      fail "${LABEL[$cfg]}: the plugin did not report the subnet in $dir/opensm.log"
  fi
  python3 - "$dir/opensm.log" "$cfg" "$t0" "$t1" "$engine" >>"$WORK/results.tmp" <<'PY'
import re, sys
path, cfg, t0, t1, engine = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
# "Nov 22 06:19:55 578308 [8C8B16C0] 0x02 -> SUBNET UP": seconds of the day + microseconds.
stamp = re.compile(r"^\w{3} +\d+ (\d\d):(\d\d):(\d\d) (\d{6}) \[[0-9A-Fa-f]+\] 0x[0-9a-f]+ -> (.*)$")
first = bind = up = master = routed = exiting = None
last = 0.0
day = 0.0
for line in open(path, errors="replace"):
    m = stamp.match(line)
    if not m:
        continue
    t = int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3]) + int(m[4]) / 1e6 + day
    if t < last - 43200:  # midnight
        day += 86400
        t += 86400
    last = t
    text = m[5]
    if first is None:
        first = t
    if bind is None and text.startswith("osm_opensm_bind: Setting IS_SM on port"):
        bind = t
    if master is None and bind is not None and text.startswith("Entering MASTER state"):
        master = t
    if routed is None and master is not None and \
            text.endswith(f"{engine} tables configured on all switches"):
        routed = t
    if up is None and routed is not None and text.startswith("SUBNET UP"):
        up = t
    if exiting is None and up is not None and text.startswith("Exiting SM"):
        exiting = t
if None in (first, bind, master, routed, up, exiting):
    sys.exit(f"{path}: no first line / 'Setting IS_SM on port' / 'Entering MASTER state' / "
             f"'{engine} tables configured' / 'SUBNET UP' / 'Exiting SM' in this order")
print(cfg, f"{bind - first:.6f}", f"{up - bind:.6f}", f"{routed - master:.6f}",
      f"{exiting - up:.6f}", f"{t1 - t0:.6f}")
PY
  if [[ ${WARMUP:-0} != 1 ]]; then cat "$WORK/results.tmp" >>"$WORK/results"; fi
  rm -f "$WORK/results.tmp"
}

start=$(date +%s)
# Other work on the machine slows ibsim and opensm alike, but not evenly: say how busy it was.
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$WORK/results"
for cfg in "${CONFIGS[@]}"; do
  WARMUP=1 run_one "$cfg" "$WORK/runs/warmup-$cfg"
done
for ((r = 1; r <= RUNS; r++)); do
  for cfg in "${CONFIGS[@]}"; do
    run_one "$cfg" "$WORK/runs/$cfg-$r"
  done
done

nodes=$(sed -n 's/^[^:]*: \([0-9]*\) compute nodes, \([0-9]*\) switches.*/\1 hosts, \2 switches/p' \
  "$WORK/topo.txt")
echo "ibsim XGFT($XGFT) ($nodes); opensm --once, log flags $LOG_FLAGS, fresh cache per run;"
echo "$RUNS runs per configuration, interleaved, after one warm-up round; times in ms"
echo "init: first log line -> 'Setting IS_SM on port'; sweep: that -> 'SUBNET UP'; route (part of"
echo "the sweep): 'Entering MASTER state' -> 'ENGINE tables configured'; tail: 'SUBNET UP' ->"
echo "'Exiting SM' (the plugin's subnet-up work and shutdown); wall: the opensm process"
python3 - "$WORK/results" "$(printf '%s|' "${CONFIGS[@]}")" \
  "$(for c in "${CONFIGS[@]}"; do printf '%s|' "${LABEL[$c]}"; done)" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
configs = sys.argv[2].rstrip("|").split("|")
labels = dict(zip(configs, sys.argv[3].rstrip("|").split("|")))
cols = ["init", "sweep", "route", "tail", "wall"]
data = {c: {k: [float(r[i + 1]) * 1000 for r in rows if r[0] == c] for i, k in enumerate(cols)}
        for c in configs}
med = {c: {k: statistics.median(v) for k, v in d.items()} for c, d in data.items()}
print(f"{'configuration':<28} {'init med':>9} {'sweep med':>10} {'sweep min':>10} {'sweep max':>10}"
      f" {'route med':>10} {'tail med':>9} {'wall med':>9}")
for c in configs:
    s = data[c]["sweep"]
    print(f"{labels[c]:<28} {med[c]['init']:9.1f} {med[c]['sweep']:10.1f} {min(s):10.1f}"
          f" {max(s):10.1f} {med[c]['route']:10.1f} {med[c]['tail']:9.1f} {med[c]['wall']:9.1f}")
base = configs[0]
print()
print(f"{'ratio to ' + labels[base].split(' ')[0] + ' (medians)':<28} {'init':>9} {'sweep':>10}"
      f" {'sweep(min)':>10}"
      f" {'init+sweep':>11} {'route':>10} {'wall':>9} {'tail +ms':>9}")
for c in configs[1:]:
    r = {k: med[c][k] / med[base][k] for k in cols}
    both = (med[c]["init"] + med[c]["sweep"]) / (med[base]["init"] + med[base]["sweep"])
    smin = min(data[c]["sweep"]) / min(data[base]["sweep"])
    print(f"{labels[c].split(' ')[0] + '/' + labels[base].split(' ')[0]:<28} {r['init']:9.2f}"
          f" {r['sweep']:10.2f} {smin:10.2f} {both:11.2f} {r['route']:10.2f} {r['wall']:9.2f}"
          f" {med[c]['tail'] - med[base]['tail']:+9.1f}")
PY
version=$(opensm --version 2>/dev/null | sed -n 's/^OpenSM //p' | head -n 1)
echo "($(($(date +%s) - start)) s; OpenSM $version; load average $load_start at the start," \
  "$(cut -d' ' -f1-3 /proc/loadavg) at the end, $(nproc) CPUs)"
