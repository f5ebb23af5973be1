#!/usr/bin/env bash
# The simulator's replay against the product (docs/simulation-static.md, `ibsdn-sim paths`): for the
# same jobs, in the same order, on the same netlist, `ibsdn-sim paths` (replay_static: the
# JobController over in-memory agents, the flows traced through its LFTs and the agents' tables)
# gives exactly the paths the real fabric carries: ibsim, opensm with libosmsdn.so (engine "sdn"),
# one ibsdn-switch-agent per switch, jobs sent with ibsdnctl, and every flow traced by
# osmsdn-route-check --paths through the LFTs OpenSM dumped and the entries read back from the
# agents (ibsdnctl flows --from-switch). Flow by flow, with the replay numbering the ports with the
# LIDs OpenSM assigned (its opensm-subnet.lst).
#
# Fabrics and jobs (two overlapping jobs each time, the second routed on top of the first):
#  1. XGFT(2;4,4;1,4): a ring on 8 hosts with sdn-greedy, then a 3dnn on 12 hosts, 4 of them the
#     ring's, with sdn-optimal; both ended, then an all-to-all on 6 hosts with sdn-greedy and a
#     random permutation of all 16 on top with sdn-optimal;
#  2. the same tree with one spine cable failed, tables of 4 entries: an all-to-all too large for
#     them (degraded, sdn-optimal) and a ring of all 16 hosts on top (sdn-greedy);
#  3. dragonfly(2,3,1,3) (min-hop default routes; 9 switches, 9 agents: ibsim's 10 clients with
#     opensm): a ring with df-minimal and an all-to-all on top with df-global-adaptive.
# Each comparison also requires per job the controller's flow count, entry count and degraded
# flag in its ready answer. Negative controls, so that the comparison can fail: the replay of
# other jobs (the other algorithm, the jobs in the other order, another job id and so another
# random permutation, tables with room for every entry), its flows traced on the same fabric,
# must differ from the fabric.
# Usage: replay_paths_ibsim.sh BUILD_DIR    (exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: replay_paths_ibsim.sh BUILD_DIR}
key=0x5eed
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

ibsim_lib_init replay-paths python3
ibsdn_programs "$build"

# --- one fabric at a time ----------------------------------------------------------------------
# fabric_up NAME CAPACITY TOPOLOGY-OPTION...: writes $WORK/NAME.net with ibsdn-sim topo, starts
# ibsim on it, an agent per switch with CAPACITY entries, and opensm with the plugin configured for
# the same capacity; waits for the plugin's first audit.
fabric_up() {
  local name=$1 capacity=$2
  shift 2
  net=$WORK/$name.net
  osm_dir=$WORK/osm-$name
  table_capacity=$capacity
  "$sim" topo "$@" --netlist "$net" >/dev/null
  ibsim_start "$net"
  agents_start "$net" "$agent" --key "$key" --capacity "$capacity"
  cat >"$WORK/ibsdn-$name.yaml" <<EOF
notice_socket: $IBSDN_SOCKET
state_dir: $WORK/state-$name
switch_key: $key
table_capacity: $capacity
mad: {timeout_ms: 200, retries: 2}
job_start_timeout_ms: 5000
EOF
  chmod 600 "$WORK/ibsdn-$name.yaml"
  opensm_conf "$osm_dir" "event_plugin_name osmsdn" \
    "event_plugin_options config=$WORK/ibsdn-$name.yaml"
  opensm_start opensm "$osm_dir" -R sdn,no_fallback
  opensm_wait_audit "$osm_dir" 30
  "$ctl" ping >/dev/null || fail "$name: ibsdnctl ping"
  sim_jobs=()
  job_ids=()
}

fabric_down() {
  local sw
  proc_stop opensm
  while read -r sw _; do proc_stop "agent-$sw"; done < <(netlist_switches "$net")
  ibsim_stop
}

# start_job ID NODES PATTERN ALGORITHM: job_start through ibsdnctl, and the same job for the
# replay (sim_jobs, in start order); the ready answer in $WORK/ready-ID.json.
start_job() {
  local id=$1 nodes=$2 pattern=$3 algorithm=$4
  "$ctl" --json job start --job "$id" --user root --nodes "$nodes" --pattern "$pattern" \
    --algorithm "$algorithm" >"$WORK/ready-$id.json" ||
    fail "job start $id: $(cat "$WORK/ready-$id.json")"
  sim_jobs+=(--job "nodes=$nodes;pattern=$pattern;algorithm=$algorithm;id=$id")
  job_ids+=("$id")
}

end_jobs() {
  local id
  for id in "${job_ids[@]}"; do "$ctl" job end --job "$id" >/dev/null || fail "job end $id"; done
  sim_jobs=()
  job_ids=()
}

# The switches' tables as the controller intends them and as read back; equal once installed.
tables() {  # [--from-switch]
  "$ctl" --json flows "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for sw in sorted(r["switches"], key=lambda s: s["name"]):
    for e in sw["entries"]:
        print(sw["name"], e["text"])
for w in r.get("warnings", []):
    print("warning:", w)'
}

# read_switches LABEL: the entries the agents hold, read back, into $WORK/LABEL.switch-flows.json;
# they must be the controller's intent.
read_switches() {
  local label=$1
  tables >"$WORK/$label.intent"
  tables --from-switch >"$WORK/$label.switches"
  diff -u "$WORK/$label.intent" "$WORK/$label.switches" >&2 ||
    fail "$label: the switches do not hold the controller's entries"
  "$ctl" --json flows --from-switch >"$WORK/$label.switch-flows.json"
}

# fabric_paths LABEL IN OUT: the flows of the replay's output IN as the fabric carries them, traced
# by osmsdn-route-check through OpenSM's LFT dump and the tables read back, into OUT.
fabric_paths() {
  local label=$1 in=$2 out=$3
  "$check" --netlist "$net" --dump-dir "$osm_dir/dump" \
    --switch-flows "$WORK/$label.switch-flows.json" --paths "$in" >"$out" ||
    fail "$label: osmsdn-route-check --paths $in: $(cat "$out")"
}

# replay OUT ARG...: ibsdn-sim paths on the fabric's netlist with its table capacity and ARG...
replay() {
  local out=$1
  shift
  "$sim" paths --netlist-in "$net" --table-capacity "$table_capacity" "$@" >"$out" ||
    fail "ibsdn-sim paths $*: exit $?"
}

flow_lines() {  # FILE: the lines that are compared (no comments)
  grep -v '^#' "$1"
}

# compare LABEL: the replay of the jobs started so far, in their order and with the LIDs OpenSM
# assigned, gives the fabric's paths flow by flow; and each job's flow count, entry count and
# degraded flag equal the controller's ready answer.
compare() {
  local label=$1 id
  replay "$WORK/$label.sim" --subnet-lst "$osm_dir/dump/opensm-subnet.lst" "${sim_jobs[@]}"
  read_switches "$label"
  fabric_paths "$label" "$WORK/$label.sim" "$WORK/$label.fabric"
  diff -u <(flow_lines "$WORK/$label.sim") <(flow_lines "$WORK/$label.fabric") >&2 ||
    fail "$label: the replay's paths differ from the fabric's (- replay, + fabric)"
  for id in "${job_ids[@]}"; do
    python3 - "$WORK/ready-$id.json" "$WORK/$label.sim" "$id" <<'EOF' || fail "$label: job $id"
import json, re, sys
ready = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
at = lines.index("job " + sys.argv[3])
comment = lines[at + 1]
flows = 0
for line in lines[at + 2:]:
    if line.startswith("job "):
        break
    flows += 0 if line.startswith("#") or not line else 1
m = re.search(r": (\d+) flows, (\d+) entries, (\w+)", comment)
assert m, comment
want = (ready["flows"], ready["entries"], "degraded" if ready["degraded"] else "ok")
got = (flows, int(m.group(2)), m.group(3))
assert int(m.group(1)) == flows, comment
assert got == want, f"replay (flows, entries, status) {got}, controller {want}"
EOF
  done
}

# differs LABEL WHAT ARG...: the negative control, compare's own steps with a wrong input: the
# replay with ARG... instead of the jobs as started, its flows traced on the fabric, must differ;
# or the comparison could not fail.
differs() {
  local label=$1 what=$2
  shift 2
  replay "$WORK/$label.wrong" --subnet-lst "$osm_dir/dump/opensm-subnet.lst" "$@"
  fabric_paths "$label" "$WORK/$label.wrong" "$WORK/$label.wrong-fabric"
  if diff -q <(flow_lines "$WORK/$label.wrong") <(flow_lines "$WORK/$label.wrong-fabric") \
    >/dev/null; then
    fail "$label: the replay with $what agrees with the fabric too: the comparison proves nothing"
  fi
}

count_flows() {  # FILE
  flow_lines "$1" | grep -vc '^job ' || true
}

# --- 1. XGFT(2;4,4;1,4) --------------------------------------------------------------------------
fabric_up xgft 4096 --xgft "2;4,4;1,4"
start_job 11 "n[0001-0004],n[0009-0012]" ring sdn-greedy
start_job 12 "n[0003-0006],n[0011-0014],n0016,n0007,n0008,n0015" 3dnn sdn-optimal
compare xgft-1
differs xgft-1 "sdn-optimal for the ring too" "${sim_jobs[@]/sdn-greedy/sdn-optimal}"
differs xgft-1 "the jobs in the other order" "${sim_jobs[@]:2:2}" "${sim_jobs[@]:0:2}"
pass "XGFT(2;4,4;1,4): a ring (sdn-greedy) and a 3dnn on top (sdn-optimal), $(count_flows "$WORK/xgft-1.sim") flows: the replay's paths are the fabric's; with the ring on sdn-optimal too or the jobs reversed they are not"

# The same fabric after both jobs ended: job_end left nothing behind that the replay, which
# starts empty, would not know of.
end_jobs
start_job 13 "n0001,n0006,n0011,n0016,n0002,n0007" all-to-all sdn-greedy
start_job 14 "n[0001-0016]" random-perm sdn-optimal
compare xgft-2
differs xgft-2 "another job id, another permutation" "${sim_jobs[@]:0:2}" --job \
  "${sim_jobs[3]/id=14/id=15}"
pass "XGFT(2;4,4;1,4) after job_end: an all-to-all (sdn-greedy) and a random permutation on top (sdn-optimal), $(count_flows "$WORK/xgft-2.sim") flows: identical; another permutation seed is not"
end_jobs
fabric_down

# --- 2. the tree with a failed cable, tables of 4 entries -----------------------------------------
fabric_up xgft-cut 4 --xgft "2;4,4;1,4" --fail-cables 6.25 --fail-seed 3
(($(grep -c '^\[' "$WORK/xgft.net") - $(grep -c '^\[' "$net") == 2)) ||
  fail "the cut netlist does not lack exactly one cable"
start_job 21 "n[0001-0008]" all-to-all sdn-optimal
start_job 22 "n[0001-0016]" ring sdn-greedy
grep -q '"degraded":true' "$WORK/ready-21.json" || fail "job 21 is not degraded: $(cat "$WORK/ready-21.json")"
compare xgft-cut
table_capacity=4096
differs xgft-cut "tables of 4096 entries" "${sim_jobs[@]}"
table_capacity=4
pass "XGFT(2;4,4;1,4) without one spine cable, 4-entry tables: job 21 degraded, job 22 on top, $(count_flows "$WORK/xgft-cut.sim") flows: identical; the replay with room for every entry is not"
end_jobs
fabric_down

# --- 3. dragonfly(2,3,1,3) -----------------------------------------------------------------------
fabric_up dragonfly 4096 --dragonfly 2,3,1,3
start_job 31 "n[0001-0018]" ring df-minimal
start_job 32 "n0001,n0003,n0007,n0009,n0013,n0015" all-to-all df-global-adaptive
compare dragonfly
differs dragonfly "df-valiant for the all-to-all" "${sim_jobs[@]/df-global-adaptive/df-valiant}"
pass "dragonfly(2,3,1,3) on min-hop LFTs: a ring (df-minimal) and an all-to-all on top (df-global-adaptive), $(count_flows "$WORK/dragonfly.sim") flows: identical; with df-valiant they are not"
end_jobs
