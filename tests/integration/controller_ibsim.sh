#!/usr/bin/env bash
# The controller end to end with the real processes: an ibsim XGFT(2;4,4;1,4), opensm as a daemon
# with libosmsdn.so (engine "sdn"), one ibsdn-switch-agent per switch, and ibsdnctl on the
# notice socket. Proves:
#  1. job_start installs entries that the switches hold (flows --from-switch == intent), and for
#     every pair of the job's hosts the path traced independently through the LFTs OpenSM wrote
#     (its dump) plus the agents' real tables equals the controller's `route`;
#  2. two overlapping jobs route around each other's load (busiest link 1 flow);
#  3. job_end leaves the tables empty;
#  4. an agent restarted empty gets its entries back from the periodic audit; opensm stopped and
#     restarted reloads its jobs and repairs a switch emptied meanwhile;
#  5. a stopped agent: job_start still answers within the timeout, degraded, naming the switch;
#  6. bad notices (garbage, a 2 MiB line, unknown hosts, unknown jobs, a non-root user) are
#     refused and leave the jobs and every switch table unchanged; 64 idle connections of a
#     socket-group member do not keep root's job_start out, and that user's next one is refused;
#  7. a cable an entry sends traffic over is unplugged (ibsim's Unlink): after OpenSM's sweep the
#     controller re-routes the job, no entry uses the dead port, and the switches' tables with
#     OpenSM's new LFTs again trace exactly the controller's routes;
#  8. overlapping jobs (a ring on four hosts of a permutation; two all-to-alls on the same 16
#     hosts) never intend two entries with the same match and priority on a switch; the audit is
#     consistent and the tables stay identical, with no FlowMod, over several periodic checks;
#  9. a 16 x 1024-rank all-to-all is answered at host level (240 flows);
# 10. an entry rewritten in place (same entry count) is found by its table generation and repaired.
# (Sections run in the order 1-6, 8-10, 7: the unplugged cable of 7 ends the XGFT.)
# Usage: controller_ibsim.sh BUILD_DIR    (exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: controller_ibsim.sh BUILD_DIR}
key=0x5eed
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

ibsim_lib_init controller-ibsim python3
ibsdn_programs "$build"

"$sim" topo --xgft "2;4,4;1,4" --netlist "$WORK/fabric.net" >/dev/null
mapfile -t switches < <(netlist_switches "$WORK/fabric.net")
((${#switches[@]} == 8)) || fail "expected 8 switches in the netlist, found ${#switches[@]}"
hosts=()
for i in $(seq 1 16); do hosts+=("$(printf 'n%04d' "$i")"); done
all_hosts=$(IFS=,; echo "${hosts[*]}")

cat >"$WORK/ibsdn.yaml" <<EOF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: $key
mad: {timeout_ms: 200, retries: 2}
job_start_timeout_ms: 5000
audit_interval_ms: 1000
socket_group: nogroup
EOF
chmod 600 "$WORK/ibsdn.yaml"
# The socket is 0660 root:nogroup: "nobody" (gid nogroup) may connect, "daemon" may not. The
# work directory must let them reach it.
chmod 755 "$WORK"

ibsim_start "$WORK/fabric.net"
start_agent() {  # NAME PORTS
  sim_start "agent-$1" "$1" "$agent" --key "$key" --num-ports "$2" --log "$WORK/agent-$1.log"
  wait_for_file_text "$WORK/agent-$1.log" "attached" 10 || fail "agent on $1 did not attach"
}
declare -A ports_of
for entry in "${switches[@]}"; do
  read -r name ports <<<"$entry"
  ports_of[$name]=$ports
  start_agent "$name" "$ports"
done

osm_dir=$WORK/osm
# sweep_interval 1: a light sweep each second notices an unplugged cable at once.
opensm_conf "$osm_dir" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml" \
  "sweep_interval 1"
start_opensm() {
  local mark
  mark=$(file_size "$osm_dir/opensm.log")
  opensm_start opensm "$osm_dir" -R sdn,no_fallback
  opensm_wait_audit "$osm_dir" 60 "$mark"
}
start_opensm
"$ctl" ping >/dev/null || fail "ibsdnctl ping"
pass "opensm with the plugin up, 8 agents, the notice socket answers"

# Every switch's real table, as format_flow lines under "== NAME" headers; and the intent.
tables() {  # [--from-switch]
  "$ctl" --json flows "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for sw in sorted(r["switches"], key=lambda s: s["name"]):
    if sw["entries"]:
        print("==", sw["name"])
        for e in sw["entries"]:
            print(e["text"])
for w in r.get("warnings", []):
    print("warning:", w)'
}
# Waits (up to 10 s: the periodic audit runs every second) until the switches hold the intent.
wait_switches_hold_intent() {  # WHAT
  for _ in $(seq 50); do
    tables >"$WORK/intent" 2>/dev/null || true
    tables --from-switch >"$WORK/switches" 2>/dev/null || true
    cmp -s "$WORK/intent" "$WORK/switches" && return 0
    sleep 0.2
  done
  diff -u "$WORK/intent" "$WORK/switches" >&2
  fail "$1: the switches do not hold the intent after 10 s"
}
expect_switches_hold_intent() {  # WHAT
  tables >"$WORK/intent" || fail "$1: flows"
  tables --from-switch >"$WORK/switches" || fail "$1: flows --from-switch"
  diff -u "$WORK/intent" "$WORK/switches" >&2 || fail "$1: the switches do not hold the intent"
}

# --- 1. job_start: entries on the switches, traced paths == the controller's ------------------
"$ctl" --json job start --job 42 --user root --nodes "$all_hosts" --pattern random-perm \
  >"$WORK/ready42.json" || fail "job start 42: $(cat "$WORK/ready42.json")"
read -r flows entries ld bound degraded < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["flows"], r["entries"], r["max_link_load"], r["bound"], r["degraded"])' "$WORK/ready42.json")
[[ $degraded == False ]] || fail "job 42 degraded: $(cat "$WORK/ready42.json")"
((entries > 0)) || fail "job 42 installed no entries"
[[ $ld == "$bound" ]] || fail "job 42: L_D $ld, bound $bound (sdn-optimal on a full fat-tree)"
expect_switches_hold_intent "job 42"
[[ -s $WORK/switches ]] || fail "no entries on the switches"
pass "job 42: $flows flows, $entries entries on the switches as intended, L_D $ld = bound"

# trace_check NETLIST: for every pair of hosts, the controller's route against the independent
# trace through OpenSM's current LFT dump and the switches' real tables.
trace_check() {
  "$ctl" --json flows --from-switch >"$WORK/switch-flows.json"
  : >"$WORK/routes.jsonl"
  local s d
  for s in "${hosts[@]}"; do
    for d in "${hosts[@]}"; do
      [[ $s == "$d" ]] && continue
      "$ctl" --json route "$s" "$d" >>"$WORK/routes.jsonl" || fail "route $s $d"
    done
  done
  "$check" --netlist "$1" --dump-dir "$osm_dir/dump" \
    --switch-flows "$WORK/switch-flows.json" --routes "$WORK/routes.jsonl" >"$WORK/check.out" ||
    fail "traced paths differ from the controller's: $(cat "$WORK/check.out")"
}
trace_check "$WORK/fabric.net"
pass "240 host pairs: LFT dump + switch tables trace exactly the controller's paths ($(tail -n1 "$WORK/check.out"))"

# --- 2. two overlapping jobs ------------------------------------------------------------------
"$ctl" job end --job 42 >/dev/null || fail "job end 42"
tables --from-switch >"$WORK/switches"
[[ ! -s $WORK/switches ]] || fail "tables not empty after job end: $(cat "$WORK/switches")"
pass "job_end: every switch table empty"

# n0001 -> n0005 and n0002 -> n0009 leave the same leaf toward destinations DmodK sends up the
# same port: on the default routes that port would carry 2 flows. Job 44 must take another.
"$ctl" job start --job 43 --user root --nodes n0001,n0005 --pattern shift:k=1 >/dev/null ||
  fail "job start 43"
"$ctl" --json job start --job 44 --user root --nodes n0002,n0009 --pattern shift:k=1 \
  >"$WORK/ready44.json" || fail "job start 44"
top=$("$ctl" --json links --top 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["links"][0]["flows"])')
((top == 1)) || fail "two jobs share a link: busiest link carries $top flows"
python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["entries"] > 0 else 1)' \
  "$WORK/ready44.json" || fail "job 44 needed no entry: the test does not exercise the shared load"
expect_switches_hold_intent "jobs 43+44"
pass "jobs 43 and 44 route around each other: busiest link 1 flow"

# --- 4. restarts ------------------------------------------------------------------------------
tables >"$WORK/intent-before"
# A switch that holds entries now: restarting its agent empties a table that matters.
busy=$(sed -n 's/^== //p' "$WORK/intent-before" | head -n1)
[[ -n $busy ]] || fail "no switch holds entries of jobs 43 and 44"
proc_stop "agent-$busy"
start_agent "$busy" "${ports_of[$busy]}"
wait_switches_hold_intent "the restarted agent on $busy"
diff -u "$WORK/intent-before" "$WORK/intent" >&2 || fail "the intent changed"
pass "agent on $busy restarted empty: the periodic audit re-installed its entries"

proc_stop opensm
proc_stop "agent-$busy"
start_agent "$busy" "${ports_of[$busy]}"
start_opensm
"$ctl" --json jobs | python3 -c '
import json, sys
jobs = sorted(j["job"] for j in json.load(sys.stdin)["jobs"])
sys.exit(0 if jobs == [43, 44] else 1)' || fail "jobs after the opensm restart: $("$ctl" jobs)"
tables >"$WORK/intent-after"
diff -u "$WORK/intent-before" "$WORK/intent-after" >&2 || fail "the intent changed over the restart"
expect_switches_hold_intent "after the opensm restart"
pass "opensm restarted: jobs 43, 44 and their entries reloaded, $busy (emptied meanwhile) repaired"

# --- 5. a stopped agent -----------------------------------------------------------------------
proc_stop agent-l1s003
t0=$(date +%s%N)
"$ctl" --json job start --job 45 --user root --nodes n0009,n0010,n0011,n0012,n0013,n0014 \
  --pattern all-to-all >"$WORK/ready45.json" || fail "job start 45: $(cat "$WORK/ready45.json")"
ms=$((($(date +%s%N) - t0) / 1000000))
python3 - "$WORK/ready45.json" <<'EOF' || fail "job 45: $(cat "$WORK/ready45.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["degraded"] is True, "not degraded"
assert any("l1s003" in w for w in r["warnings"]), "l1s003 not named"
EOF
((ms < 5000)) || fail "job 45 answered after $ms ms"
start_agent l1s003 "${ports_of[l1s003]}"
wait_switches_hold_intent "l1s003 back"
pass "agent l1s003 stopped: job 45 answered in $ms ms, degraded, naming l1s003"

# --- 6. bad notices ---------------------------------------------------------------------------
"$ctl" --json jobs >"$WORK/jobs-before"
tables --from-switch >"$WORK/switches-before"
python3 - "$WORK/notice.sock" <<'EOF' || fail "raw notices"
import json, socket, sys
def ask(payload):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    try:
        s.sendall(payload)
    except BrokenPipeError:
        pass  # the server refused the rest of an over-long line; its answer is there to read
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    return json.loads(data)
cases = [
    (b"garbage\n", "parse_error"),
    (b"{\"v\":1,\"op\":\"job_start\",\"job\":46}\n", "invalid"),
    (b"{\"v\":2,\"op\":\"ping\"}\n", "unsupported_version"),
    (b"x" * (2 << 20) + b"\n", "too_large"),
    (json.dumps({"v": 1, "op": "job_start", "job": 46, "user": "root", "nodes": ["n0001", "nosuchhost"],
                 "pattern": "random-perm"}).encode() + b"\n", "unknown_host"),
    (json.dumps({"v": 1, "op": "job_end", "job": 4242}).encode() + b"\n", "unknown_job"),
    (json.dumps({"v": 1, "op": "phase", "job": 43, "action": "end", "name": "none"}).encode() + b"\n",
     "unknown_phase"),
]
for payload, code in cases:
    r = ask(payload)
    got = r.get("error", {}).get("code")
    if r.get("ok") or got != code:
        print(f"expected {code}, got {r}", file=sys.stderr)
        sys.exit(1)
EOF
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" "$@"; }
rc=0
setpriv --reuid=1 --regid=1 --clear-groups "$ctl" ping >/dev/null 2>&1 || rc=$?
((rc == 3)) || fail "user daemon (not in the socket's group) reached the socket (exit $rc)"
as_nobody ping >/dev/null || fail "user nobody (group nogroup) cannot use the socket"
rc=0
out=$(as_nobody job start --job 47 --user nobody --nodes n0001,n0002 --pattern ring 2>&1) || rc=$?
[[ $rc == 1 && $out == *"forbidden"* ]] || fail "nobody started a job (exit $rc: $out)"
rc=0
out=$(as_nobody job phase --job 43 --begin x --pattern ring 2>&1) || rc=$?
[[ $rc == 1 && $out == *"forbidden"* ]] || fail "nobody changed root's job 43 (exit $rc: $out)"
rc=0
out=$(as_nobody audit --repair 2>&1) || rc=$?
[[ $rc == 1 && $out == *"forbidden"* ]] || fail "nobody ran a repair (exit $rc: $out)"
# The quarantine: anyone may list it (empty here), only root may release, and only what is in it.
out=$(as_nobody quarantine) || fail "nobody cannot list the quarantine"
[[ $out == "JOB  QUARANTINED  STORED  ON SWITCHES  REASON" ]] || fail "quarantine not empty: $out"
rc=0
out=$(as_nobody quarantine release --job 43 2>&1) || rc=$?
[[ $rc == 1 && $out == *"forbidden: quarantine_release is for root"* ]] ||
  fail "nobody released a job (exit $rc: $out)"
rc=0
out=$("$ctl" quarantine release --job 43 --delete-entries 2>&1) || rc=$?
[[ $rc == 1 && $out == *"unknown_job: job 43 is not quarantined (it is an active job"* ]] ||
  fail "root released the active job 43 (exit $rc: $out)"
"$ctl" --json jobs >"$WORK/jobs-after"
tables --from-switch >"$WORK/switches-after"
cmp -s "$WORK/jobs-before" "$WORK/jobs-after" || fail "bad notices changed the jobs"
diff -u "$WORK/switches-before" "$WORK/switches-after" >&2 || fail "bad notices changed the tables"
proc_alive opensm || fail "opensm died"
pass "bad notices refused with their codes; daemon cannot connect, nobody may query but not start, change others' jobs, repair or release; jobs and tables unchanged"

# A user's own job: root (Slurm) starts it for nobody, nobody announces its phases.
"$ctl" job start --job 48 --user nobody --uid 65534 --nodes n0001,n0002,n0005,n0006 \
  --pattern shift:k=2 >/dev/null || fail "job start 48 for nobody"
as_nobody job phase --job 48 --begin swap --pattern shift:k=1 >/dev/null ||
  fail "nobody could not begin a phase of its own job"
[[ $("$ctl" --json jobs | python3 -c 'import json,sys; print([j["phase"] for j in json.load(sys.stdin)["jobs"] if j["job"] == 48][0])') == swap ]] ||
  fail "job 48's phase is not 'swap'"
as_nobody job phase --job 48 --end swap >/dev/null || fail "nobody could not end its phase"
"$ctl" job end --job 48 >/dev/null || fail "job end 48"
wait_switches_hold_intent "after job 48"
pass "nobody's own job: its phase notices accepted, entries swapped and back"

# 64 idle connections from a socket-group member (nobody) must not lock the scheduler out.
mark=$(file_size "$osm_dir/opensm.log")
mkfifo "$WORK/hold"
# /usr/bin/python3: a python under root's home (pyenv) is out of nobody's reach.
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$WORK/notice.sock" "$WORK/hold" \
  >"$WORK/flood.out" 2>&1 <<'PY' &
import socket, sys
held, refused = [], 0
for _ in range(64):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1])
        held.append(s)
    except OSError:
        refused += 1
print(f"connected {len(held)}, refused at connect {refused}", flush=True)
open(sys.argv[2]).read()  # hold them until told
PY
flood=$!
sleep 1
t0=$(date +%s%N)
"$ctl" --json job start --job 49 --user root --nodes n0003,n0004 --pattern ring \
  >"$WORK/ready49.json" || fail "job start 49 while nobody holds 64 connections: $(cat "$WORK/ready49.json")"
ms=$((($(date +%s%N) - t0) / 1000000))
as_nobody ping >"$WORK/nobody-ping.out" 2>&1 && fail "nobody got a 65th connection past its per-uid limit"
# Refused: the server's one "busy" line, which ibsdnctl shows even when the server closed before
# the request was written (the write then fails with EPIPE).
grep -q "ibsdnctl: busy: " "$WORK/nobody-ping.out" ||
  fail "nobody's extra connection: $(cat "$WORK/nobody-ping.out")"
echo >"$WORK/hold"
wait "$flood" || true
"$ctl" job end --job 49 >/dev/null || fail "job end 49"
# 57 refusals, one line: the others are counted into one line per 10 s.
refusals=$(tail -c +"$((mark + 1))" "$osm_dir/opensm.log" |
  grep -c "osmsdn: warning: notice socket: .* refusing the connection of pid [0-9]* uid 65534 " || true)
((refusals == 1)) || fail "nobody's refused connections logged $refusals times, not once"
wait_for_file_text "$osm_dir/opensm.log" "osmsdn: warning: notice socket: .* [0-9]+ more connections refused from uid 65534 \\(the last: uid 65534 holds 8 connections" 15 "$mark" ||
  fail "nobody's further refused connections were not counted in a line"
pass "nobody holding 64 idle connections: root's job_start answered in $ms ms; nobody's next connection refused busy by its per-uid limit; the refusals logged once and counted"

# --- 8. overlapping jobs ----------------------------------------------------------------------
for id in 43 44 45; do "$ctl" job end --job "$id" >/dev/null || fail "job end $id"; done
# No switch is meant to hold two entries with the same match and priority (it would keep one).
no_collisions() {  # WHAT
  tables | awk -v what="$1" '
    /^== / { sw = $2; delete seen; next }
    /^warning/ { next }
    { key = $0; sub(/^cookie=[^,]*, /, "", key); sub(/ actions=.*/, "", key)
      if (key in seen) { print what ": " sw " is meant to hold two entries for " key > "/dev/stderr"; bad = 1 }
      seen[key] = 1 }
    END { exit bad }' || fail "$1: colliding entries in the intent"
}
flow_mods_sent() {
  "$ctl" --json stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["stats"]["flow_mods_sent"])'
}
# Stable over several periodic checks (every second): same tables, no FlowMod sent.
expect_stable() {  # WHAT
  local sent0 sent1
  tables --from-switch >"$WORK/stable-0"
  sent0=$(flow_mods_sent)
  sleep 4
  tables --from-switch >"$WORK/stable-1"
  sent1=$(flow_mods_sent)
  diff -u "$WORK/stable-0" "$WORK/stable-1" >&2 || fail "$1: the switches' tables changed"
  ((sent0 == sent1)) || fail "$1: the periodic check sent $((sent1 - sent0)) FlowMods"
}
"$ctl" --json job start --job 50 --user root --nodes "$all_hosts" --pattern random-perm \
  >/dev/null || fail "job start 50"
"$ctl" --json job start --job 51 --user root --nodes n0001,n0006,n0011,n0016 --pattern ring \
  >"$WORK/ready51.json" || fail "job start 51: $(cat "$WORK/ready51.json")"
no_collisions "jobs 50+51"
expect_switches_hold_intent "jobs 50+51"
"$ctl" audit >/dev/null || fail "jobs 50+51: audit finds differences"
expect_stable "jobs 50+51"
"$ctl" job start --job 52 --user root --nodes "$all_hosts" --pattern all-to-all >/dev/null ||
  fail "job start 52"
"$ctl" --json job start --job 53 --user root --nodes "$all_hosts" --pattern all-to-all \
  >"$WORK/ready53.json" || fail "job start 53"
python3 - "$WORK/ready53.json" <<'PY' || fail "job 53: $(cat "$WORK/ready53.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["off_path_counts"].get("shared") == 240, "not all 240 flows shared"
assert r["entries"] == 0, "a job on shared pairs installed entries"
PY
no_collisions "jobs 50-53"
expect_switches_hold_intent "jobs 50-53"
expect_stable "jobs 50-53"
"$ctl" job end --job 50 >/dev/null || fail "job end 50"
"$ctl" job end --job 52 >/dev/null || fail "job end 52"
no_collisions "jobs 51+53"
expect_switches_hold_intent "jobs 51+53 after their pairs' owners ended"
"$ctl" audit >/dev/null || fail "jobs 51+53: audit finds differences"
for id in 51 53; do "$ctl" job end --job "$id" >/dev/null || fail "job end $id"; done
pass "overlapping jobs: no colliding entries, audit consistent, tables stable and no FlowMod over 4 periodic checks; later jobs take over the pairs of ended ones"

# --- 9. a job with 16 x 1024 ranks ------------------------------------------------------------
t0=$(date +%s%N)
"$ctl" --json job start --job 54 --user root --nodes "$all_hosts" --pattern all-to-all \
  --ranks-per-node 1024 >"$WORK/ready54.json" || fail "job start 54: $(cat "$WORK/ready54.json")"
ms=$((($(date +%s%N) - t0) / 1000000))
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["flows"] == 240 else 1)' \
  "$WORK/ready54.json" || fail "job 54: $(cat "$WORK/ready54.json")"
"$ctl" job end --job 54 >/dev/null || fail "job end 54"
pass "a 16 x 1024-rank all-to-all (268 M rank pairs) answered in $ms ms as 240 host pairs"

# --- 10. an entry rewritten in place behind the controller's back -------------------------------
"$ctl" --json job start --job 55 --user root --nodes "$all_hosts" --pattern random-perm \
  >/dev/null || fail "job start 55"
read -r sw lid text < <("$ctl" --json flows | python3 -c '
import json, sys
for s in sorted(json.load(sys.stdin)["switches"], key=lambda s: s["name"]):
    for e in s["entries"]:
        print(s["name"], s["lid"], e["text"])
        sys.exit(0)')
[[ -n ${text:-} ]] || fail "job 55 has no entry to rewrite"
port=${text##*output:}
port=${port%%[ ,]*}
other=$((port == 1 ? 2 : 1))
forged="${text%%actions=*}actions=output:$other"
mark=$(file_size "$osm_dir/opensm.log")
# From the SM's own node (OpenSM runs at n0001): the agents take FlowMods from the master SM LID
# only, so this is the one writer besides the controller that a switch accepts.
sim_run n0001 "$build/mad/agent/ibsdn-madtool" --key "$key" --lid "$lid" add "$forged" >/dev/null ||
  fail "madtool could not rewrite the entry on $sw"
wait_for_file_text "$osm_dir/opensm.log" "osmsdn: (warning: )?switch $sw repaired" 10 "$mark" ||
  fail "the rewritten entry on $sw was not repaired"
expect_switches_hold_intent "after the in-place rewrite on $sw"
"$ctl" job end --job 55 >/dev/null || fail "job end 55"
pass "an entry rewritten in place on $sw (same count) was found by its table generation and repaired"
# --- 7. a cable unplugged under a job's entries -------------------------------------------------
"$ctl" --json job start --job 46 --user root --nodes "$all_hosts" --pattern random-perm \
  >/dev/null || fail "job start 46"
# The first entry of the first switch that has one: its output port's cable goes.
read -r sw port < <("$ctl" --json flows | python3 -c '
import json, sys
for s in sorted(json.load(sys.stdin)["switches"], key=lambda s: s["name"]):
    for e in s["entries"]:
        print(s["name"], e["actions"]["output"])
        sys.exit(0)')
[[ -n ${sw:-} && -n ${port:-} ]] || fail "job 46 has no entry to unplug under"
mark=$(file_size "$osm_dir/opensm.log")
ibsim_console "Unlink \"$sw\"[$port]" >/dev/null
wait_for_file_text "$osm_dir/opensm.log" "osmsdn: job 46 re-routed on the new fabric" 30 "$mark" ||
  fail "job 46 was not re-routed after $sw port $port was unplugged"
wait_for_file_text "$osm_dir/opensm.log" "osmsdn: (warning: )?audit after SUBNET UP" 30 "$mark" ||
  fail "no audit after the re-route"
expect_switches_hold_intent "after the unplug"
if "$ctl" flows --switch "$sw" | grep -Eq "output:$port(,|$| )"; then
  fail "an entry of $sw still sends out of unplugged port $port"
fi
# The netlist without that cable (both of its ends), for the independent trace.
cut_cable() {  # NETLIST NODE PORT
  local peer
  peer=$(awk -v n="$2" -v p="$3" '
    /^(Switch|Hca)\t/ { split($0, f, "\""); cur = f[2] }
    /^\[/ && cur == n { split($0, f, /[\[\]]/); if (f[2] == p) { split($0, g, "\""); print g[2], f[4] } }' "$1")
  awk -v n="$2" -v p="$3" -v peer="$peer" '
    BEGIN { split(peer, q, " ") }
    /^(Switch|Hca)\t/ { split($0, f, "\""); cur = f[2] }
    /^\[/ { split($0, f, /[\[\]]/); if ((cur == n && f[2] == p) || (cur == q[1] && f[2] == q[2])) next }
    { print }' "$1"
}
cut_cable "$WORK/fabric.net" "$sw" "$port" >"$WORK/fabric-cut.net"
(($(wc -l <"$WORK/fabric.net") - $(wc -l <"$WORK/fabric-cut.net") == 2)) ||
  fail "could not remove the cable ${sw}[$port] from the netlist"
trace_check "$WORK/fabric-cut.net"
pass "$sw port $port unplugged: job 46 re-routed, no entry uses the port, traces match ($(tail -n1 "$WORK/check.out"))"

"$ctl" job end --job 46 >/dev/null || fail "job end 46"

tables --from-switch >"$WORK/switches"
[[ ! -s $WORK/switches ]] || fail "tables not empty at the end"
! grep -Eq "osmsdn: ERR 5D2[12]: controller: " "$osm_dir/opensm.log" || fail "the controller logged an exception"
pass "all jobs ended, all tables empty, no controller exception in the log"
