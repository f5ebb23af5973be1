#!/usr/bin/env bash
# ibsdn-switch-agent on a real ibsim fabric: XGFT(2;4,4;1,4) (8 switches, 16 HCAs), OpenSM --once
# to bring it up, one agent per switch, and ibsdn-madtool at an HCA sending class-0x09 MADs by
# LID through the simulated LFTs. The agents read their key from a 0600 key file and take FlowMods
# from the madtool's HCA only because --allow-lid names it. Checks: FlowMods answer the real
# `affected` count (it lies below byte 224, which umad2sim overwrites) and read back identical on
# every switch, a wrong key is refused and installs nothing, a full table answers table-full, a
# malformed MAD gets an error status and leaves the agent running, del-cookie empties the tables;
# an agent without --allow-lid takes FlowMods only from the master SM's node (OpenSM ran at n0001)
# and refuses them from the HCA with status 0x0600 (logged once), while reads stay open to key
# holders; bad key files and key options are refused before the agent attaches; SIGTERM stops the
# agents cleanly and frees their ibsim slots.
# Usage: agent_ibsim.sh BUILD_DIR    (exit 77: skipped, the ibsim / OpenSM tools are missing)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
SIM=$BUILD/sim_backend/ibsdn-sim
AGENT=$BUILD/mad/agent/ibsdn-switch-agent
TOOL=$BUILD/mad/agent/ibsdn-madtool
KEY=0x5eedc0de
SM_HOST=n0001     # where OpenSM runs: the master SM's LID is this HCA's
CLIENT_HCA=n0002
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

for f in "$SIM" "$AGENT" "$TOOL"; do
  [[ -x $f || -f $f ]] || fail "missing $f"
done
ibsim_lib_init agent-ibsim ibswitches ibaddr
KEY_FILE=$WORK/switch.key
(umask 077 && printf '%s\n' "$KEY" >"$KEY_FILE")

tool() { sim_run "$CLIENT_HCA" "$TOOL" "$@"; }

# --- fabric ---------------------------------------------------------------------------------
grep -q -- --netlist <<<"$("$SIM" topo --help 2>&1)" || fail "ibsdn-sim topo has no --netlist yet"
"$SIM" topo --xgft "2;4,4;1,4" --netlist "$WORK/net" >/dev/null 2>&1 || fail "netlist export"
ibsim_start "$WORK/net"

OPENSM_HOST=$SM_HOST opensm_run "$WORK/opensm" || fail "opensm --once failed (see $WORK/opensm/opensm.log)"
grep -q "SUBNET UP" "$WORK/opensm/opensm.log" || fail "no SUBNET UP in opensm's log"
[[ $(ibsim_attached_clients) == 0 ]] || fail "opensm's ibsim slot was not freed after it exited"
pass "opensm --once: SUBNET UP, ibsim slot freed"

# --- switches and their LIDs ----------------------------------------------------------------
declare -A LID
while read -r name lid; do LID[$name]=$lid; done < <(
  sim_run "$CLIENT_HCA" ibswitches 2>/dev/null | sed -n 's/.*"\([^"]*\)".* lid \([0-9]*\) .*/\1 \2/p')
((${#LID[@]} == 8)) || fail "expected 8 switches from ibswitches, got ${#LID[@]}"
mapfile -t SWITCHES < <(printf '%s\n' "${!LID[@]}" | sort)
SMALL=${SWITCHES[-1]}  # the one with a 4-entry table
hca_lid() { sim_run "$1" ibaddr 2>/dev/null | sed -n 's/.* LID start \(0x[0-9a-f]*\) .*/\1/p'; }
SM_LID=$(hca_lid "$SM_HOST")
CLIENT_LID=$(hca_lid "$CLIENT_HCA")
[[ -n $SM_LID && -n $CLIENT_LID ]] || fail "no LIDs from ibaddr at $SM_HOST / $CLIENT_HCA"

for sw in "${SWITCHES[@]}"; do
  extra=()
  [[ $sw == "$SMALL" ]] && extra=(--capacity 4)
  sim_start "agent-$sw" "$sw" "$AGENT" --key-file "$KEY_FILE" --allow-lid "$CLIENT_LID" "${extra[@]}" \
    --verbose --log "$WORK/agent-$sw.log"
done
for sw in "${SWITCHES[@]}"; do
  wait_for_file_text "$WORK/agent-$sw.log" "attached to" 10 || fail "agent on $sw did not attach"
done
pass "8 agents attached (LIDs: $(for sw in "${SWITCHES[@]}"; do printf '%s=%s ' "$sw" "${LID[$sw]}"; done))"

# --- FlowMods by LID, read back identical ---------------------------------------------------
# In format_flow()'s canonical form, so that `dump` must print exactly these lines. Two cookies
# (jobs) and more entries than one FlowStats page holds.
flows_for() {
  local lid=$1 ports=$2
  printf 'cookie=0x2a, priority=100, slid=0x12, dlid=0x40 actions=output:1, n_packets=0\n'
  printf 'cookie=0x2a, priority=50, dlid=0x100/0xff00 actions=set_sl:3,output:2, n_packets=0\n'
  printf 'cookie=0x2b, priority=10, slid=0x%x, dlid=0x7, sl=0x2, dest_qp=0x1234 actions=output:%d, n_packets=0\n' "$lid" "$ports"
  printf 'cookie=0x2b, priority=10, dlid=0x8, sl=0x0/0x8 actions=output:1, n_packets=0\n'
  local i
  for i in 1 2 3 4 5; do
    printf 'cookie=0x2a, priority=20, slid=0x%x, dlid=0x%x actions=output:%d, n_packets=0\n' \
      "$((0x20 + i))" "$((0x200 + lid))" "$((1 + i % ports))"
  done
}

for sw in "${SWITCHES[@]}"; do
  lid=${LID[$sw]}
  ports=$(tool --key-file "$KEY_FILE" --lid "$lid" info | sed -n 's/.*num_ports=\([0-9]*\).*/\1/p')
  [[ -n $ports ]] || fail "info from $sw (LID $lid)"
  flows_for "$lid" "$ports" >"$WORK/sent-$sw"
  [[ $sw == "$SMALL" ]] && head -n 4 "$WORK/sent-$sw" >"$WORK/sent-$sw.tmp" && mv "$WORK/sent-$sw.tmp" "$WORK/sent-$sw"
  while IFS= read -r flow; do
    # The GetResp's `affected` sits below byte 224 (wire-format revision 2): umad2sim, which
    # overwrites bytes 224-255, must not turn it into 0.
    out=$(tool --key-file "$KEY_FILE" --lid "$lid" add "$flow") || fail "add on $sw: $flow"
    [[ $out == "ok, affected=1" ]] || fail "add on $sw: expected 'ok, affected=1', got '$out': $flow"
  done <"$WORK/sent-$sw"
  tool --key-file "$KEY_FILE" --lid "$lid" barrier >/dev/null || fail "barrier on $sw"
  tool --key-file "$KEY_FILE" --lid "$lid" dump >"$WORK/dump-$sw" || fail "dump of $sw"
  diff -u "$WORK/sent-$sw" "$WORK/dump-$sw" >&2 || fail "$sw: table read back differs from what was sent"
done
pass "FlowMods sent by LID to all 8 switches answered affected=1 and read back identical ($(cat "$WORK"/sent-* | wc -l) entries)"

# --- wrong key ------------------------------------------------------------------------------
sw=${SWITCHES[0]}
lid=${LID[$sw]}
rc=0
out=$(tool --key 0xbad --lid "$lid" add "cookie=0x66, priority=1, dlid=0x66 actions=output:1" 2>&1) || rc=$?
if ((rc != 1)) || ! grep -q "status 0x0100" <<<"$out"; then
  fail "wrong key: expected bad-key status, got rc $rc: $out"
fi
tool --key-file "$KEY_FILE" --lid "$lid" dump >"$WORK/dump-after-badkey"
diff -u "$WORK/sent-$sw" "$WORK/dump-after-badkey" >&2 || fail "a refused FlowMod changed the table"
pass "wrong key refused with status 0x0100, nothing installed"

# --- table full -----------------------------------------------------------------------------
rc=0
out=$(tool --key-file "$KEY_FILE" --lid "${LID[$SMALL]}" add "cookie=0x2a, priority=1, dlid=0x99 actions=output:1" 2>&1) || rc=$?
if ((rc != 1)) || ! grep -q "status 0x0200" <<<"$out"; then
  fail "table full: expected status 0x0200, got rc $rc: $out"
fi
grep -q "capacity=4 used=4 " <<<"$(tool --key-file "$KEY_FILE" --lid "${LID[$SMALL]}" info)" || fail "full table's info"
pass "5th entry on a 4-entry table: status 0x0200 (table full)"

# --- malformed MADs -------------------------------------------------------------------------
# A TableInfo Get whose method (0x03) the class does not have, and one with junk in its body.
# (A wrong BaseVersion or ClassVersion > 2 never reaches the agent: ibsim drops such packets.)
cat >"$WORK/bad-method.hex" <<'EOF'
01 09 01 03  00 00 00 00  00 00 00 00 00 00 0b 01  00 12 00 00  00 00 00 00
00 00 00 00 5e ed c0 de
EOF
cat >"$WORK/bad-body.hex" <<'EOF'
01 09 01 01  00 00 00 00  00 00 00 00 00 00 0b 02  00 12 00 00  00 00 00 00
00 00 00 00 5e ed c0 de  ff ff ff ff
EOF
out=$(tool --lid "$lid" raw "$WORK/bad-method.hex") || fail "raw bad method: no answer"
[[ $out == "status 0x0008"* ]] || fail "bad method: expected status 0x0008, got: $out"
out=$(tool --lid "$lid" raw "$WORK/bad-body.hex") || fail "raw bad body: no answer"
[[ $out == "status 0x001c"* ]] || fail "junk body: expected status 0x001c, got: $out"
proc_alive "agent-$sw" || fail "the agent on $sw died after malformed MADs"
tool --key-file "$KEY_FILE" --lid "$lid" info >/dev/null || fail "the agent on $sw stopped answering"
pass "malformed MADs answered with 0x0008 / 0x001c; agent still up and answering"

# --- del-cookie -----------------------------------------------------------------------------
for sw in "${SWITCHES[@]}"; do
  lid=${LID[$sw]}
  want=$(grep -c "cookie=0x2a," "$WORK/sent-$sw")
  out=$(tool --key-file "$KEY_FILE" --lid "$lid" del-cookie 0x2a) || fail "del-cookie 0x2a on $sw"
  [[ $out == "ok, affected=$want" ]] || fail "del-cookie 0x2a on $sw: expected affected=$want, got '$out'"
  tool --key-file "$KEY_FILE" --lid "$lid" dump >"$WORK/dump-$sw"
  grep -v "cookie=0x2a," "$WORK/sent-$sw" | diff -u - "$WORK/dump-$sw" >&2 ||
    fail "$sw: del-cookie 0x2a left the wrong entries"
  tool --key-file "$KEY_FILE" --lid "$lid" del-cookie 0x2b >/dev/null || fail "del-cookie 0x2b on $sw"
  [[ -z $(tool --key-file "$KEY_FILE" --lid "$lid" dump) ]] || fail "$sw: table not empty after del-cookie"
  grep -q " used=0 " <<<"$(tool --key-file "$KEY_FILE" --lid "$lid" info)" || fail "$sw: info does not say used=0"
done
pass "del-cookie removed exactly each job's entries (affected counted them); all tables empty"

# --- only the master SM writes ------------------------------------------------------------------
# The agent of one switch restarted without --allow-lid: it reads the master SM's LID from its own
# PortInfo (OpenSM at $SM_HOST set it on every port) and takes FlowMods from there only.
sw=${SWITCHES[1]}
lid=${LID[$sw]}
sm_lid_text=$(printf '0x%04x' "$SM_LID")
client_lid_text=$(printf '0x%04x' "$CLIENT_LID")
restart_agent() {  # LOG ARG...: the agent of $sw again, with these options
  local log=$1
  shift
  proc_signal "agent-$sw" TERM
  proc_wait "agent-$sw" 10 || fail "agent on $sw did not stop on SIGTERM"
  sim_start "agent-$sw" "$sw" "$AGENT" --key-file "$KEY_FILE" "$@" --log "$log"
  wait_for_file_text "$log" "attached to" 10 || fail "agent on $sw did not attach again ($log)"
}
auth_log=$WORK/agent-$sw-master-only.log
restart_agent "$auth_log"
grep -q "writers: the master SM (LID $sm_lid_text by PortInfo:MasterSMLID)$" "$auth_log" ||
  fail "the agent did not read the master SM's LID $sm_lid_text from PortInfo: $(cat "$auth_log")"
flow="cookie=0x31, priority=7, dlid=0x31 actions=output:1"
for i in 1 2 3; do
  rc=0
  out=$(tool --key-file "$KEY_FILE" --lid "$lid" add "$flow" 2>&1) || rc=$?
  ((rc == 1)) && grep -q "status 0x0600" <<<"$out" ||
    fail "a FlowMod from $CLIENT_HCA (LID $client_lid_text, not the master SM): expected status 0x0600, got rc $rc: $out"
done
[[ -z $(tool --key-file "$KEY_FILE" --lid "$lid" dump) ]] ||
  fail "a refused FlowMod changed the table (or reads from $CLIENT_HCA no longer work)"
out=$(sim_run "$SM_HOST" "$TOOL" --key-file "$KEY_FILE" --lid "$lid" add "$flow") ||
  fail "a FlowMod from the master SM's node $SM_HOST was refused"
[[ $out == "ok, affected=1" ]] || fail "FlowMod from $SM_HOST: expected 'ok, affected=1', got '$out'"
[[ $(tool --key-file "$KEY_FILE" --lid "$lid" dump) == "$flow, n_packets=0" ]] ||
  fail "the master SM's FlowMod is not in the table read from $CLIENT_HCA"
refusals=$(grep -c "warning: from $client_lid_text Set FlowMod status sender not authorized" "$auth_log" || true)
((refusals == 1)) || fail "3 refused FlowMods should be logged once (rate limit), found $refusals: $(cat "$auth_log")"
grep -q "LID $client_lid_text may not write: only the master SM (LID $sm_lid_text) may" "$auth_log" ||
  fail "the refusal does not say who may write: $(cat "$auth_log")"
pass "without --allow-lid: FlowMods from $CLIENT_HCA refused (0x0600, logged once for 3), from the SM's node $SM_HOST applied; reads open"

restart_agent "$WORK/agent-$sw-allowed.log" --allow-lid "$CLIENT_LID"
grep -q "3 FlowMods refused" "$auth_log" || fail "the agent did not count its refusals: $(tail -n 1 "$auth_log")"
out=$(tool --key-file "$KEY_FILE" --lid "$lid" add "$flow") || fail "--allow-lid $CLIENT_LID: FlowMod refused"
[[ $out == "ok, affected=1" ]] || fail "--allow-lid: expected 'ok, affected=1', got '$out'"
pass "--allow-lid $CLIENT_LID: FlowMods from $CLIENT_HCA applied again"

# --- key files and key options are checked before anything attaches --------------------------
expect_usage() {  # WHAT EXPECTED-TEXT CMD...: exit 2 with EXPECTED-TEXT on stderr
  local what=$1 want=$2 rc=0 out
  shift 2
  out=$("$@" 2>&1) || rc=$?
  ((rc == 2)) && grep -qF -- "$want" <<<"$out" || fail "$what: expected exit 2 and '$want', got rc $rc: $out"
}
cp "$KEY_FILE" "$WORK/open.key" && chmod 644 "$WORK/open.key"
printf '0x5eed c0de\n' >"$WORK/junk.key" && chmod 600 "$WORK/junk.key"
ln -s "$KEY_FILE" "$WORK/link.key"
expect_usage "world-readable key file" "$WORK/open.key: mode 0644 gives group or others access" \
  "$AGENT" --key-file "$WORK/open.key"
expect_usage "key file syntax" "$WORK/junk.key:1:7: unexpected a blank; expected a hex digit" \
  "$AGENT" --key-file "$WORK/junk.key"
expect_usage "symbolic link" "$WORK/link.key: a symbolic link" "$AGENT" --key-file "$WORK/link.key"
expect_usage "directory" "$WORK: not a regular file" "$AGENT" --key-file "$WORK"
expect_usage "--key 0" "use --no-key" "$AGENT" --key 0
expect_usage "--key with --key-file" "excludes" "$AGENT" --key "$KEY" --key-file "$KEY_FILE"
expect_usage "no key at all" "--no-key" "$AGENT"
expect_usage "--allow-lid with --any-writer" "excludes" "$AGENT" --no-key --allow-lid 1 --any-writer
expect_usage "madtool, world-readable key file" "$WORK/open.key: mode 0644 gives group or others access" \
  "$TOOL" --key-file "$WORK/open.key" --lid 1 info
pass "bad key files (mode 0644, syntax, link, directory) and --key 0 / conflicting options: exit 2, naming the problem"

# --- every agent survived, and stops cleanly on SIGTERM ---------------------------------------
for sw in "${SWITCHES[@]}"; do proc_alive "agent-$sw" || fail "agent on $sw is gone"; done
if grep -h "^.* error: " "$WORK"/agent-*.log >&2; then fail "agents logged errors"; fi
for sw in "${SWITCHES[@]}"; do proc_signal "agent-$sw" TERM; done
for sw in "${SWITCHES[@]}"; do
  rc=0
  proc_wait "agent-$sw" || rc=$?
  ((rc == 0)) || fail "agent on $sw exited with $rc on SIGTERM"
done
[[ $(ibsim_attached_clients) == 0 ]] || fail "agents left ibsim slots attached"
pass "SIGTERM: all agents exited 0 and freed their ibsim slots"
echo "PASS agent_ibsim"
