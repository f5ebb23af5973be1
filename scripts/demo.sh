#!/usr/bin/env bash
# The main job on an embedded default: an ibsim fat-tree XGFT(2;4,4;1,4) (8 switches, 16 hosts),
# the stock opensm with libosmsdn.so (routing engine "sdn" + the SDN controller), one
# ibsdn-switch-agent per switch, a job notice as Slurm's prolog sends it, the flow entries read
# back from the switches, one route hop by hop, and the job's end; then the same job on the same
# switches without agents (stock switches): its routes in their LFTs, read with ibroute, and the
# tables restored at its end. Everything started here is
# stopped on exit, also on failure (logs are then kept and named).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
# Only what the demo runs: the plugin, the switch agent, ibsdnctl and ibsdn-sim (not the tests).
"$root/scripts/build.sh" release osmsdn ibsdn-switch-agent ibsdnctl ibsdn-sim >/dev/null
build="$root/build/release"
ctl="$build/cli/ibsdnctl"
key=0xd3e0
# shellcheck source=../tests/integration/ibsim_lib.sh
source "$root/tests/integration/ibsim_lib.sh"
ibsim_lib_init demo
OPENSM_PLUGIN_DIR=$build/plugin
export IBSDN_SOCKET=$WORK/notice.sock
step() { printf '\n== %s\n' "$*"; }

step "fabric: XGFT(2;4,4;1,4) as an ibsim netlist"
"$build/sim_backend/ibsdn-sim" topo --xgft "2;4,4;1,4" --netlist "$WORK/fabric.net"
ibsim_start "$WORK/fabric.net"
mapfile -t switches < <(sed -n 's/^Switch\t\([0-9]*\)\t"\([^"]*\)".*/\2 \1/p' "$WORK/fabric.net")
for entry in "${switches[@]}"; do
  read -r name ports <<<"$entry"
  sim_start "agent-$name" "$name" "$build/mad/agent/ibsdn-switch-agent" --key "$key" \
    --num-ports "$ports" --log "$WORK/agent-$name.log"
done
for entry in "${switches[@]}"; do
  read -r name _ <<<"$entry"
  wait_for_file_text "$WORK/agent-$name.log" "attached" 10 || fail "agent on $name did not start"
done
echo "ibsim up, ${#switches[@]} switch agents attached"

step "opensm with the plugin (routing engine sdn, controller config $WORK/ibsdn.yaml)"
umask 077
cat >"$WORK/ibsdn.yaml" <<CONF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: $key
slurm_user: root
CONF
umask 022
opensm_conf "$WORK/osm" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml"
opensm_start opensm "$WORK/osm" -R sdn,no_fallback
wait_for_file_text "$WORK/osm/opensm.log" "osmsdn: (warning: )?audit after SUBNET UP" 60 ||
  fail "opensm did not come up with the plugin (see $WORK/osm/opensm.log)"
grep -o "osmsdn: subnet up.*" "$WORK/osm/opensm.log" | head -n1
"$ctl" ping

hosts=$(printf 'n%04d,' $(seq 1 16))
step "job 1001 starts (what PrologSlurmctld sends): 16 hosts, random permutation"
echo "\$ ibsdnctl job start --job 1001 --user root --nodes n0001,...,n0016 --pattern random-perm"
"$ctl" job start --job 1001 --user root --nodes "${hosts%,}" --pattern random-perm

step "ibsdnctl jobs"
"$ctl" jobs
step "ibsdnctl flows --from-switch   (read back from the switches with FlowStats)"
"$ctl" flows --from-switch
step "ibsdnctl links --top 6"
"$ctl" links --top 6

# A pair from n0001 whose route answer matches REGEX (e.g. a hop a job's entry decides).
pair_where() {  # REGEX
  local d dst
  for d in $(seq 2 16); do
    dst=$(printf 'n%04d' "$d")
    if grep -q "$1" <<<"$("$ctl" --json route n0001 "$dst")"; then echo "n0001 $dst"; return; fi
  done
  echo "n0001 n0002"
}
pair=$(pair_where '"by":"flow"')
step "ibsdnctl route $pair"
# shellcheck disable=SC2086
"$ctl" route $pair

step "ibsdnctl audit   (the switches' tables against the controller's intent)"
"$ctl" audit
step "job 1001 ends (EpilogSlurmctld): its entries are removed"
"$ctl" job end --job 1001
"$ctl" flows --from-switch

# The same on the switches every cluster has: no agent, so the routes go into the LFTs.
step "stock switches: the agents stop, opensm restarts (install_backend auto: LFT entries where no agent answers)"
for entry in "${switches[@]}"; do
  read -r name _ <<<"$entry"
  proc_stop "agent-$name"
done
proc_stop opensm
mark=$(file_size "$WORK/osm/opensm.log")
opensm_start opensm "$WORK/osm" -R sdn,no_fallback
wait_for_file_text "$WORK/osm/opensm.log" "osmsdn: (warning: )?audit after SUBNET UP" 60 "$mark" ||
  fail "opensm did not come up again (see $WORK/osm/opensm.log)"
# Every switch's LFT as the fabric holds it, read with ibroute from an HCA (not through ibsdn).
lfts() {  # DIR
  mkdir -p "$1"
  local name lid
  while read -r name lid; do
    sim_run n0001 ibroute -n "$lid" >"$1/$name" 2>/dev/null || fail "ibroute $name"
  done < <(sim_run n0001 ibswitches 2>/dev/null | sed -n 's/.*"\([^"]*\)".* lid \([0-9]*\) .*/\1 \2/p')
}
lfts "$WORK/lft-before"
step "job 1002 on stock switches: what would it change? (--backend dry_run writes nothing)"
"$ctl" job start --job 1002 --user root --nodes "${hosts%,}" --pattern random-perm --backend dry_run
step "job 1002 starts: its routes go into the switches' LFTs through OpenSM"
"$ctl" job start --job 1002 --user root --nodes "${hosts%,}" --pattern random-perm
lfts "$WORK/lft-during"
step "ibroute -n (read from an HCA): the LFT entries job 1002 changed"
for f in "$WORK"/lft-before/*; do
  name=$(basename "$f")
  diff "$f" "$WORK/lft-during/$name" | sed -n "s/^> /$name: /p" || true
done
step "ibsdnctl flows --from-switch   (the LFT blocks read back through OpenSM)"
"$ctl" flows --from-switch
pair=$(pair_where '"backend":"lft"')
step "ibsdnctl route $pair"
# shellcheck disable=SC2086
"$ctl" route $pair
step "job 1002 ends: every LFT is as before the job"
"$ctl" job end --job 1002
lfts "$WORK/lft-after"
diff -r "$WORK/lft-before" "$WORK/lft-after" >/dev/null || fail "the LFTs differ from before job 1002"
echo "every switch's ibroute dump is byte-identical to before job 1002"
echo
echo "demo done; stopping opensm and ibsim"
