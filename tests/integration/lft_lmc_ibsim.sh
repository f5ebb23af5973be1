#!/usr/bin/env bash
# Shared nodes with LMC on stock switches: an ibsim XGFT(2;4,4;1,4) whose hosts answer two LIDs
# each (opensm -l 1), opensm with the plugin (routing engine sdn, install_backend at its default
# `auto`), no switch agent. Two jobs on the same nodes (Slurm's OverSubscribe), each a permutation
# on which DmodK collides:
#  1. the first job gets LID offset 0, the second offset 1 (ready answers, `ibsdnctl jobs`); every
#     LFT entry of the first is on a base LID, every one of the second on a host's second LID, and
#     the ibroute dumps differ from before in exactly both jobs' entries;
#  2. ibtracert of every pair of each job, from and to the LIDs at its offset, equals
#     `ibsdnctl route --job`; on those paths each job alone is at its bound (1: a permutation), so
#     neither follows the other's trees, and no flow of the second is `shared_destination`;
#  3. kill -9 of opensm and a restart: the jobs come back from the store with their offsets and
#     every ibroute dump is as before the kill;
#  4. the second job's end leaves the first job's entries; the first job's end leaves every
#     switch's ibroute dump byte-identical to before the jobs.
# Usage: lft_lmc_ibsim.sh BUILD_DIR   (exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: lft_lmc_ibsim.sh BUILD_DIR}
xgft="2;4,4;1,4"
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"
ibsim_lib_init lft-lmc-ibsim python3 ibroute ibtracert ibaddr ibswitches
ibsdn_programs "$build"
# shellcheck source-path=SCRIPTDIR source=lft_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lft_lib.sh"

"$sim" topo --xgft "$xgft" --netlist "$WORK/fabric.net" >/dev/null
mapfile -t switches < <(netlist_switches "$WORK/fabric.net")
mapfile -t hosts < <(sed -n 's/^Hca\t[0-9]*\t"\([^"]*\)".*/\1/p' "$WORK/fabric.net")
# Both jobs on the same eight hosts, two on each leaf.
job_hosts=()
for i in "${!hosts[@]}"; do
  if (((i / 2) % 2 == 0)); then job_hosts+=("${hosts[i]}"); fi
done
nodes=$(csv "${job_hosts[@]}")
ranks=${#job_hosts[@]}

lft_bed_up 1 -R sdn,no_fallback -l 1
for h in "${hosts[@]}"; do
  ((host_lid[$h] % 2 == 0)) || fail "$h has LID ${host_lid[$h]}: with LMC 1 a base LID is even"
done
pass "opensm -l 1 with the plugin on XGFT($xgft): ${#hosts[@]} hosts with two LIDs each, no switch agent"
dump_all "$WORK/before"

# --- 1. two jobs on the same nodes, each on its own LIDs ------------------------------------------
colliding_matrix 60 "$nodes" "$ranks"
"$ctl" --json job start --job 60 --user root --nodes "$nodes" --matrix "$WORK/60.tm" --path-bits \
  >"$WORK/60.ready.json" || fail "job start 60: $(cat "$WORK/60.ready.json")"
dump_all "$WORK/during-60"
colliding_matrix 61 "$nodes" "$ranks"
"$ctl" --json job start --job 61 --user root --nodes "$nodes" --matrix "$WORK/61.tm" --path-bits \
  >"$WORK/61.ready.json" || fail "job start 61: $(cat "$WORK/61.ready.json")"
python3 - "$WORK/60.ready.json" "$WORK/61.ready.json" <<'PY' || fail "the jobs' ready answers: $(cat "$WORK/61.ready.json")"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["lid_offset"] == 0 and b["lid_offset"] == 1, (a["lid_offset"], b["lid_offset"])
assert b["backends"]["lft"]["entries"] > 0, b["backends"]
assert "shared_destination" not in b.get("off_path_counts", {}), b.get("off_path_counts")
PY
"$ctl" --json jobs | python3 -c '
import json, sys
offsets = {j["job"]: j["lid_offset"] for j in json.load(sys.stdin)["jobs"]}
sys.exit(0 if offsets == {60: 0, 61: 1} else 1)' || fail "ibsdnctl jobs: $("$ctl" jobs)"
"$ctl" --json flows --job 60 >"$WORK/60.flows.json"
"$ctl" --json flows --job 61 >"$WORK/61.flows.json"
python3 - "$WORK/60.flows.json" "$WORK/61.flows.json" <<'PY' || fail "a job's LFT entry is not on its own LIDs"
import json, sys
for path, parity in zip(sys.argv[1:], (0, 1)):
    for sw in json.load(open(path))["switches"]:
        for e in sw["entries"]:
            m = e["match"]["dlid"]
            lid = m if isinstance(m, int) else m["value"]
            assert lid % 2 == parity, (path, sw["name"], lid)
PY
dump_all "$WORK/during"
changes=$(check_changes "$WORK/during" flows "$WORK/60.flows.json" "$WORK/61.flows.json")
pass "jobs 60 and 61 on the same $ranks hosts: LID offsets 0 and 1; $changes, exactly both jobs' entries, each on its own LIDs"

# --- 2. ibtracert at each job's LIDs equals its route; each job alone at its bound -----------------
for job in 60 61; do
  offset=$((job - 60))
  trace_pairs ibtracert "$nodes" "$WORK/$job.tm" "$job" "$offset" >"$WORK/$job.ibtracert"
  trace_pairs route "$nodes" "$WORK/$job.tm" "$job" "$offset" >"$WORK/$job.route"
  diff "$WORK/$job.ibtracert" "$WORK/$job.route" >"$WORK/diff.txt" ||
    fail "job $job: ibtracert and ibsdnctl route --job differ: $(head -4 "$WORK/diff.txt")"
  python3 - "$WORK/$job.ibtracert" "$WORK/$job.ready.json" <<'PY' || fail "job $job is not at its bound on the traced paths"
import collections, json, sys
load = collections.Counter()
for line in open(sys.argv[1]):
    for hop in line.split()[2:]: load[hop] += 1
r = json.load(open(sys.argv[2]))
assert max(load.values()) == r["bound"] == 1, (max(load.values()), r["bound"])
PY
done
pass "ibtracert of both jobs' $ranks pairs at their LIDs equals ibsdnctl route --job hop by hop; each job alone at L_D 1 = its bound"

# --- 3. kill -9 and restart ----------------------------------------------------------------------
proc_stop opensm KILL
mark=$(file_size "$osm_dir/opensm.log")
opensm_start opensm "$osm_dir" -R sdn,no_fallback -l 1
opensm_wait_audit "$osm_dir" 60 "$mark"
dump_all "$WORK/after-restart"
same_dumps "$WORK/during" "$WORK/after-restart" "after kill -9 and a restart the LFTs are not the jobs'"
"$ctl" --json jobs | python3 -c '
import json, sys
offsets = {j["job"]: j["lid_offset"] for j in json.load(sys.stdin)["jobs"]}
sys.exit(0 if offsets == {60: 0, 61: 1} else 1)' || fail "after the restart: $("$ctl" jobs)"
pass "kill -9 of opensm, restart: jobs 60 and 61 back with LID offsets 0 and 1, every ibroute dump as before the kill"

# --- 4. the ends restore -----------------------------------------------------------------------
"$ctl" job end --job 61 >/dev/null || fail "job end 61"
dump_all "$WORK/after-61"
same_dumps "$WORK/during-60" "$WORK/after-61" "job 61's end did not leave exactly job 60's entries"
"$ctl" job end --job 60 >/dev/null || fail "job end 60"
dump_all "$WORK/after"
same_dumps "$WORK/before" "$WORK/after" "the job ends did not restore the LFTs"
pass "job 61's end left job 60's entries as they were; job 60's end: every ibroute dump byte-identical to before the jobs"
