#!/usr/bin/env bash
# The LFT backend on a fabric of stock switches: an ibsim XGFT with opensm (routing engine sdn,
# the plugin, install_backend left at its default `auto`) and no ibsdn-switch-agent anywhere. Every
# check reads the switches' own tables from an HCA (ibroute, ibtracert: SubnGet, not through the
# controller):
#  1. a dry run of a job whose DmodK routes collide changes no switch's ibroute dump;
#  2. the job start writes exactly the LFT entries the dry run reported (switch, LID, port), and
#     the ibroute dumps differ from before in nothing else;
#  3. ibtracert of every pair of the job equals `ibsdnctl route`, and the max link load counted
#     on the ibtracert paths equals the ready answer's (and the bound: the job is a permutation);
#  4. a second job on disjoint nodes adds its own entries and leaves the first job's;
#  5. a heavy sweep (SIGHUP: opensm recomputes every LFT) keeps the dumps as they were;
#  6. kill -9 of opensm and a restart: the routes come back from the controller's store with the
#     engine's first tables (reloaded before the first sweep; the audit then rewrites nothing);
#  7. the first job's end restores its entries only; the second's end leaves every switch's
#     ibroute dump byte-identical to before the jobs.
# Usage: lft_backend_ibsim.sh BUILD_DIR [XGFT]   (default XGFT "2;4,4;1,4", or written with ':'
# for ';'; exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: lft_backend_ibsim.sh BUILD_DIR [XGFT]}
# ':' may stand for ';' (CTest's command lines cannot carry a ';').
xgft=${2:-2;4,4;1,4}
xgft=${xgft//:/;}
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

ibsim_lib_init "lft-backend-ibsim-${xgft//[;,]/-}" python3 ibroute ibtracert ibaddr ibswitches
ibsdn_programs "$build"

"$sim" topo --xgft "$xgft" --netlist "$WORK/fabric.net" >/dev/null
mapfile -t switches < <(netlist_switches "$WORK/fabric.net")
mapfile -t hosts < <(sed -n 's/^Hca\t[0-9]*\t"\([^"]*\)".*/\1/p' "$WORK/fabric.net")
((${#hosts[@]} >= 8)) || fail "expected at least 8 hosts in the netlist, found ${#hosts[@]}"
# Two disjoint jobs that each span every leaf, two hosts out of four on each (with half the
# fabric each, a job on the first leaves alone could never collide under DmodK: its destinations
# behind one leaf would all differ modulo the up-port count).
job_a_hosts=() job_b_hosts=()
for i in "${!hosts[@]}"; do
  if (((i / 2) % 2 == 0)); then job_a_hosts+=("${hosts[i]}"); else job_b_hosts+=("${hosts[i]}"); fi
done
# shellcheck source-path=SCRIPTDIR source=lft_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lft_lib.sh"

lft_bed_up 0 -R sdn,no_fallback
pass "opensm with the plugin up on XGFT($xgft): ${#switches[@]} switches, ${#hosts[@]} hosts, no switch agent"

dump_all "$WORK/before"

# --- 1. dry run ---------------------------------------------------------------------------------
ranks_a=${#job_a_hosts[@]}
colliding_matrix 50 "$(csv "${job_a_hosts[@]}")" "$ranks_a"
dump_all "$WORK/after-dry"
same_dumps "$WORK/before" "$WORK/after-dry" "the dry run changed a switch's LFT"
pass "dry run of job 50: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dry_run"]; print(d["lft_blocks_total"], "blocks would change; L_D", d["planned"]["max_link_load"], "against", d["lft_only"]["max_link_load"], "on the LFT alone")' "$WORK/50.dry.json"); every ibroute dump unchanged"

# --- 2. the start writes what the dry run reported ----------------------------------------------
"$ctl" --json job start --job 50 --user root --nodes "$(csv "${job_a_hosts[@]}")" \
  --matrix "$WORK/50.tm" >"$WORK/50.ready.json" || fail "job start 50: $(cat "$WORK/50.ready.json")"
python3 - "$WORK/50.ready.json" "$WORK/50.dry.json" <<'PY' || fail "job 50's ready answer: $(cat "$WORK/50.ready.json")"
import json, sys
r, d = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert r["backend"] == "auto" and r["backends"]["flow_table"]["entries"] == 0, r["backends"]
assert r["backends"]["lft"]["blocks"] == d["dry_run"]["lft_blocks_total"], (r["backends"], d["dry_run"]["lft_blocks_total"])
assert r["max_link_load"] == d["dry_run"]["planned"]["max_link_load"] == r["bound"], r
PY
dump_all "$WORK/during-a"
changes=$(check_changes "$WORK/during-a" dry "$WORK/50.dry.json")
"$ctl" --json flows --job 50 >"$WORK/50.flows.json"
check_changes "$WORK/during-a" flows "$WORK/50.flows.json" >/dev/null
pass "job 50: $changes; exactly the dry run's entries and the controller's intent"

# --- 3. ibtracert equals ibsdnctl route; the load on the traced paths is the answer's ----------
trace_pairs ibtracert "$(csv "${job_a_hosts[@]}")" "$WORK/50.tm" >"$WORK/50.ibtracert"
trace_pairs route "$(csv "${job_a_hosts[@]}")" "$WORK/50.tm" >"$WORK/50.route"
diff "$WORK/50.ibtracert" "$WORK/50.route" >"$WORK/diff.txt" ||
  fail "ibtracert and ibsdnctl route differ: $(head -4 "$WORK/diff.txt")"
load=$(python3 - "$WORK/50.ibtracert" "$WORK/50.ready.json" <<'PY'
import collections, json, sys
load = collections.Counter()
for line in open(sys.argv[1]):
    for hop in line.split()[2:]: load[hop] += 1
r = json.load(open(sys.argv[2]))
assert max(load.values()) == r["max_link_load"], (max(load.values()), r["max_link_load"])
print(max(load.values()))
PY
) || fail "the load on the ibtracert paths is not the ready answer's"
while read -r s d _; do "$ctl" route "${job_a_hosts[s]}" "${job_a_hosts[d]}"; done <"$WORK/50.tm" \
  >"$WORK/50.route.txt"
grep -q "lft-entry" "$WORK/50.route.txt" || fail "ibsdnctl route names no hop of job 50 an lft-entry"
pass "job 50: ibtracert of its $(wc -l <"$WORK/50.tm") pairs equals ibsdnctl route hop by hop; L_D on the traced paths $load = the ready answer's = the bound"

# --- 4. a second job on disjoint nodes ---------------------------------------------------------
colliding_matrix 51 "$(csv "${job_b_hosts[@]}")" "${#job_b_hosts[@]}"
"$ctl" --json job start --job 51 --user root --nodes "$(csv "${job_b_hosts[@]}")" \
  --matrix "$WORK/51.tm" >"$WORK/51.ready.json" || fail "job start 51: $(cat "$WORK/51.ready.json")"
dump_all "$WORK/during"
"$ctl" --json flows >"$WORK/all.flows.json"
changes=$(check_changes "$WORK/during" flows "$WORK/all.flows.json")
"$ctl" --json flows --job 51 >"$WORK/51.flows.json"
trace_pairs ibtracert "$(csv "${job_b_hosts[@]}")" "$WORK/51.tm" >"$WORK/51.ibtracert"
trace_pairs route "$(csv "${job_b_hosts[@]}")" "$WORK/51.tm" >"$WORK/51.route"
diff -q "$WORK/51.ibtracert" "$WORK/51.route" >/dev/null || fail "job 51: ibtracert and ibsdnctl route differ"
trace_pairs ibtracert "$(csv "${job_a_hosts[@]}")" "$WORK/50.tm" >"$WORK/50.ibtracert.2"
diff -q "$WORK/50.ibtracert" "$WORK/50.ibtracert.2" >/dev/null || fail "job 51 moved job 50's paths"
pass "jobs 50 and 51 on disjoint nodes: $changes, both jobs' intent; job 50's paths unchanged"

# --- 5. a heavy sweep keeps them -----------------------------------------------------------------
mark=$(file_size "$osm_dir/opensm.log")
proc_signal opensm HUP
opensm_wait_audit "$osm_dir" 60 "$mark"
dump_all "$WORK/after-sweep"
same_dumps "$WORK/during" "$WORK/after-sweep" "a heavy sweep changed the jobs' LFT entries"
pass "heavy sweep (SIGHUP): every ibroute dump as during the jobs"

# --- 6. kill -9 and restart: the entries come back from the store --------------------------------
proc_stop opensm KILL
mark=$(file_size "$osm_dir/opensm.log")
opensm_start opensm "$osm_dir" -R sdn,no_fallback
opensm_wait_audit "$osm_dir" 60 "$mark"
# The controller reloaded its store before opensm's first sweep: the engine's first tables already
# held the jobs' entries (no window on the defaults), and the LFT audit at SUBNET UP found every
# block as intended.
# (The log since the restart into a file first: a grep that stops at its first match would end a
# pipe's writer with SIGPIPE, which pipefail reports as a failure.)
tail -c +"$((mark + 1))" "$osm_dir/opensm.log" >"$WORK/restart.log"
first_sweep=$(grep "sdn engine: " "$WORK/restart.log" | head -n 1 || true)
grep -Eq ", [1-9][0-9]* jobs' LFT entries kept" <<<"$first_sweep" ||
  fail "the restarted engine's first tables did not keep the stored jobs' LFT entries: $first_sweep"
grep -Eq "audit after SUBNET UP: .*LFTs: [1-9][0-9]* block\(s\) read on [0-9]+ switch\(es\), 0 rewritten" "$WORK/restart.log" ||
  fail "after the restart the LFT audit did not find the blocks as intended: $(grep 'audit after SUBNET UP' "$osm_dir/opensm.log" | tail -1)"
dump_all "$WORK/after-restart"
same_dumps "$WORK/during" "$WORK/after-restart" "after kill -9 and a restart the LFTs are not the jobs'"
"$ctl" --json jobs | python3 -c 'import json,sys; ids=sorted(j["job"] for j in json.load(sys.stdin)["jobs"]); sys.exit(0 if ids==[50,51] else 1)' ||
  fail "after the restart the controller does not list jobs 50 and 51: $("$ctl" jobs)"
pass "kill -9 of opensm, restart: the first sweep wrote jobs 50 and 51's entries from the store (the audit rewrote none), every ibroute dump as before the kill"

# --- 7. job ends restore -----------------------------------------------------------------------------
"$ctl" job end --job 50 >/dev/null || fail "job end 50"
dump_all "$WORK/after-a"
check_changes "$WORK/after-a" flows "$WORK/51.flows.json" >/dev/null
"$ctl" job end --job 51 >/dev/null || fail "job end 51"
dump_all "$WORK/after"
same_dumps "$WORK/before" "$WORK/after" "the job ends did not restore the LFTs"
pass "job 50's end left only job 51's entries; job 51's end: every switch's ibroute dump byte-identical to before the jobs"
