#!/usr/bin/env bash
# ibsdn-switch-agent on a real ibsim fabric: XGFT(2;4,4;1,4) (8 switches, 16 HCAs), OpenSM --once
# to bring it up, one agent per switch, and ibsdn-madtool at an HCA sending class-0x09 MADs by
# LID through the simulated LFTs. Checks: FlowMods answer the real `affected` count (it lies below
# byte 224, which umad2sim overwrites) and read back identical on every switch, a wrong
# key is refused and installs nothing, a full table answers table-full, a malformed MAD gets an
# error status and leaves the agent running, del-cookie empties the tables, SIGTERM stops the
# agents cleanly and frees their ibsim slots.
# Usage: agent_ibsim.sh BUILD_DIR    (exit 77: skipped, the ibsim / OpenSM tools are missing)
set -euo pipefail

BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
SIM=$BUILD/sim_backend/ibsdn-sim
AGENT=$BUILD/mad/agent/ibsdn-switch-agent
TOOL=$BUILD/mad/agent/ibsdn-madtool
KEY=0x5eedc0de
CLIENT_HCA=n0002
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

for f in "$SIM" "$AGENT" "$TOOL"; do
  [[ -x $f || -f $f ]] || fail "missing $f"
done
ibsim_lib_init agent-ibsim ibswitches

tool() { sim_run "$CLIENT_HCA" "$TOOL" "$@"; }

# --- fabric ---------------------------------------------------------------------------------
"$SIM" topo --help 2>&1 | grep -q -- --netlist || fail "ibsdn-sim topo has no --netlist yet"
"$SIM" topo --xgft "2;4,4;1,4" --netlist "$WORK/net" >/dev/null 2>&1 || fail "netlist export"
ibsim_start "$WORK/net"

OPENSM_HOST=n0001 opensm_run "$WORK/opensm" || fail "opensm --once failed (see $WORK/opensm/opensm.log)"
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

for sw in "${SWITCHES[@]}"; do
  extra=()
  [[ $sw == "$SMALL" ]] && extra=(--capacity 4)
  sim_start "agent-$sw" "$sw" "$AGENT" --key "$KEY" "${extra[@]}" --verbose --log "$WORK/agent-$sw.log"
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
  ports=$(tool --key "$KEY" --lid "$lid" info | sed -n 's/.*num_ports=\([0-9]*\).*/\1/p')
  [[ -n $ports ]] || fail "info from $sw (LID $lid)"
  flows_for "$lid" "$ports" >"$WORK/sent-$sw"
  [[ $sw == "$SMALL" ]] && head -n 4 "$WORK/sent-$sw" >"$WORK/sent-$sw.tmp" && mv "$WORK/sent-$sw.tmp" "$WORK/sent-$sw"
  while IFS= read -r flow; do
    # The GetResp's `affected` sits below byte 224 (wire-format revision 2): umad2sim, which
    # overwrites bytes 224-255, must not turn it into 0.
    out=$(tool --key "$KEY" --lid "$lid" add "$flow") || fail "add on $sw: $flow"
    [[ $out == "ok, affected=1" ]] || fail "add on $sw: expected 'ok, affected=1', got '$out': $flow"
  done <"$WORK/sent-$sw"
  tool --key "$KEY" --lid "$lid" barrier >/dev/null || fail "barrier on $sw"
  tool --key "$KEY" --lid "$lid" dump >"$WORK/dump-$sw" || fail "dump of $sw"
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
tool --key "$KEY" --lid "$lid" dump >"$WORK/dump-after-badkey"
diff -u "$WORK/sent-$sw" "$WORK/dump-after-badkey" >&2 || fail "a refused FlowMod changed the table"
pass "wrong key refused with status 0x0100, nothing installed"

# --- table full -----------------------------------------------------------------------------
rc=0
out=$(tool --key "$KEY" --lid "${LID[$SMALL]}" add "cookie=0x2a, priority=1, dlid=0x99 actions=output:1" 2>&1) || rc=$?
if ((rc != 1)) || ! grep -q "status 0x0200" <<<"$out"; then
  fail "table full: expected status 0x0200, got rc $rc: $out"
fi
tool --key "$KEY" --lid "${LID[$SMALL]}" info | grep -q "capacity=4 used=4 " || fail "full table's info"
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
tool --key "$KEY" --lid "$lid" info >/dev/null || fail "the agent on $sw stopped answering"
pass "malformed MADs answered with 0x0008 / 0x001c; agent still up and answering"

# --- del-cookie -----------------------------------------------------------------------------
for sw in "${SWITCHES[@]}"; do
  lid=${LID[$sw]}
  want=$(grep -c "cookie=0x2a," "$WORK/sent-$sw")
  out=$(tool --key "$KEY" --lid "$lid" del-cookie 0x2a) || fail "del-cookie 0x2a on $sw"
  [[ $out == "ok, affected=$want" ]] || fail "del-cookie 0x2a on $sw: expected affected=$want, got '$out'"
  tool --key "$KEY" --lid "$lid" dump >"$WORK/dump-$sw"
  grep -v "cookie=0x2a," "$WORK/sent-$sw" | diff -u - "$WORK/dump-$sw" >&2 ||
    fail "$sw: del-cookie 0x2a left the wrong entries"
  tool --key "$KEY" --lid "$lid" del-cookie 0x2b >/dev/null || fail "del-cookie 0x2b on $sw"
  [[ -z $(tool --key "$KEY" --lid "$lid" dump) ]] || fail "$sw: table not empty after del-cookie"
  tool --key "$KEY" --lid "$lid" info | grep -q " used=0 " || fail "$sw: info does not say used=0"
done
pass "del-cookie removed exactly each job's entries (affected counted them); all tables empty"

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
