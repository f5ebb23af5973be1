#!/usr/bin/env bash
# Fail-over with the real processes: two opensm with libosmsdn.so on one ibsim XGFT(2;4,4;1,4)
# (sm-a on n0001 with priority 10, sm-b on n0002 with priority 5), one configuration whose socket
# and state paths are templated by the SM port GUID (%g), a key file both share, 8 agents.
# Proves:
#  1. each opensm gets its own socket and state directory from the one configuration; the
#     standby's controller says STANDBY and refuses job notices (not_master) without touching a
#     switch;
#  2. the master's jobs (two overlapping ones) are on the switches; the master is killed (-9);
#     the standby takes over: it adopts both jobs from the switches by cookie, no entry is lost
#     or rewritten, the audit is consistent and the periodic check sends no FlowMod;
#  3. the adopted jobs survive a restart of the new master (they are in its store);
#  4. job_end through the new master removes an adopted job's entries; a new job_start works;
#  5. the old master comes back with its stale store (it still lists the ended job): it becomes
#     master again by priority, takes the jobs over from the switches, drops the job that ended
#     meanwhile instead of re-installing it, and keeps the others' entries unchanged.
# Usage: failover_ibsim.sh BUILD_DIR    (exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: failover_ibsim.sh BUILD_DIR}
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

ibsim_lib_init failover-ibsim python3
# shellcheck source-path=SCRIPTDIR source=two_sm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/two_sm_lib.sh"
two_sm_setup

# --- 1. one configuration, two SMs ------------------------------------------------------------
start_sm a "osmsdn: (warning: )?audit after SUBNET UP"
start_sm b "Entering STANDBY state"
for _ in $(seq 50); do
  [[ -S $sock_b && $(sm_state b 2>/dev/null) == STANDBY ]] && break
  sleep 0.2
done
[[ $(sm_state a) == MASTER ]] || fail "sm-a says $(sm_state a), not MASTER"
[[ $(sm_state b) == STANDBY ]] || fail "sm-b says $(sm_state b), not STANDBY"
[[ -d $WORK/state-$guid_a && -d $WORK/state-$guid_b ]] ||
  fail "no state directory per SM port: $(ls "$WORK")"
rc=0
ctl_b --json job start --job 99 --user root --nodes n0001,n0002 --pattern ring \
  >"$WORK/standby.json" 2>&1 || rc=$?
if ((rc != 1)) || ! grep -q '"not_master"' "$WORK/standby.json"; then
  fail "the standby took a job_start (status $rc): $(cat "$WORK/standby.json")"
fi
pass "one configuration, a socket and a state directory per SM port; the standby refuses job notices (not_master)"

# --- 2. kill the master -----------------------------------------------------------------------
ctl_a job start --job 46 --user root --nodes "$all_hosts" --pattern random-perm >/dev/null ||
  fail "job start 46"
ctl_a job start --job 47 --user root --nodes n0001,n0006,n0011,n0016 --pattern ring >/dev/null ||
  fail "job start 47"
tables a --from-switch >"$WORK/before"
tables a >"$WORK/intent-a"
diff -u "$WORK/intent-a" "$WORK/before" >&2 || fail "the switches do not hold sm-a's intent"
[[ -s $WORK/before ]] || fail "jobs 46 and 47 installed nothing"
entries_before=$(wc -l <"$WORK/before")

mark=$(file_size "$WORK/osm-b/opensm.log")
t0=$(date +%s%N)
proc_stop sm-a KILL
wait_for_file_text "$WORK/osm-b/opensm.log" "osmsdn: (warning: )?audit after SUBNET UP" 60 "$mark" ||
  fail "sm-b did not take over"
t1=$(date +%s%N)
[[ $(sm_state b) == MASTER ]] || fail "sm-b says $(sm_state b) after the take-over"
grep -q "took over from another master: 2 adopted" "$WORK/osm-b/opensm.log" ||
  fail "sm-b did not adopt two jobs: $(grep osmsdn "$WORK/osm-b/opensm.log" | tail -n 5)"
[[ $(job_ids b) == "46:adopted 47:adopted" ]] || fail "sm-b's jobs: $(job_ids b)"
tables b --from-switch >"$WORK/after"
diff -u "$WORK/before" "$WORK/after" >&2 || fail "the take-over changed the switches' tables"
tables b >"$WORK/intent-b"
diff -u "$WORK/after" "$WORK/intent-b" >&2 || fail "sm-b's intent is not what the switches hold"
ctl_b audit >"$WORK/audit.out" || fail "audit after the take-over: $(cat "$WORK/audit.out")"
sent=$(counter b flow_mods_sent)
checks=$(counter b periodic_checks)
for _ in $(seq 100); do
  (($(counter b periodic_checks) >= checks + 3)) && break
  sleep 0.1
done
(($(counter b flow_mods_sent) == sent)) || fail "the periodic check sent FlowMods after the take-over"
pass "sm-a killed: sm-b master after $(((t1 - t0) / 1000000)) ms, jobs 46 and 47 adopted, $entries_before entries kept, 0 lost or rewritten, no FlowMod"

# --- 3. the new master restarts ---------------------------------------------------------------
proc_stop sm-b
start_sm b "osmsdn: (warning: )?audit after SUBNET UP"
[[ $(job_ids b) == "46:adopted 47:adopted" ]] || fail "sm-b's jobs after its restart: $(job_ids b)"
tables b --from-switch >"$WORK/after"
diff -u "$WORK/before" "$WORK/after" >&2 || fail "sm-b's restart changed the switches' tables"
pass "sm-b restarted: the adopted jobs come back from its store, tables unchanged"

# --- 4. job_end and job_start through the new master ------------------------------------------
ctl_b job end --job 46 >/dev/null || fail "job end 46 through sm-b"
tables b --from-switch >"$WORK/after46"
grep -v "cookie=0x2e," "$WORK/before" >"$WORK/expected46" || true
diff -u "$WORK/expected46" "$WORK/after46" >&2 ||
  fail "job_end 46 through sm-b did not remove exactly its entries"
ctl_b --json job start --job 48 --user root --nodes n0003,n0007,n0012 --pattern ring \
  >"$WORK/ready48.json" || fail "job start 48 through sm-b: $(cat "$WORK/ready48.json")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if not r["degraded"] else 1)' \
  "$WORK/ready48.json" || fail "job 48 degraded: $(cat "$WORK/ready48.json")"
tables b --from-switch >"$WORK/switches"
tables b >"$WORK/intent-b"
diff -u "$WORK/intent-b" "$WORK/switches" >&2 || fail "the agents did not take sm-b's FlowMods"
pass "through sm-b: job_end 46 removed exactly its entries, job 48 installed"

# --- 5. the old master returns with a stale store ----------------------------------------------
tables b --from-switch >"$WORK/before-a"
mark=$(file_size "$WORK/osm-a/opensm.log")
start_sm a "osmsdn: (warning: )?audit after SUBNET UP"
for _ in $(seq 100); do
  [[ $(sm_state a 2>/dev/null) == MASTER && $(sm_state b 2>/dev/null) == STANDBY ]] && break
  sleep 0.2
done
[[ $(sm_state a) == MASTER ]] || fail "sm-a says $(sm_state a) after its return"
[[ $(job_ids a) == "47 48:adopted" ]] ||
  fail "sm-a's jobs after its return: $(job_ids a) (46 ended meanwhile; 48 is new to it)"
tables a --from-switch >"$WORK/after-a"
diff -u "$WORK/before-a" "$WORK/after-a" >&2 || fail "sm-a's return changed the switches' tables"
ctl_a audit >"$WORK/audit.out" || fail "audit after sm-a's return: $(cat "$WORK/audit.out")"
ctl_a job end --job 47 >/dev/null || fail "job end 47"
ctl_a job end --job 48 >/dev/null || fail "job end 48"
tables a --from-switch >"$WORK/switches"
[[ ! -s $WORK/switches ]] || fail "tables not empty at the end: $(cat "$WORK/switches")"
pass "sm-a returned with a stale store: job 46 (ended meanwhile) dropped, not re-installed; 47 and 48 kept"
