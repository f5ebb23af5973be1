#!/usr/bin/env bash
# libosmsdn.so inside the stock opensm, on an ibsim XGFT(2;4,4;1,4) with one ibsdn-switch-agent
# per switch:
#  1. `opensm --once -R sdn,no_fallback`: the plugin's "sdn" engine configures every switch, the
#     dumped LFTs equal DmodK's (checked independently by osmsdn-lft-check) and route every
#     switch LID, and after SUBNET UP the controller audits every switch through its agent.
#  2. `opensm --once -R ftree`: another engine fills the LFTs; the plugin still snapshots them
#     and audits every agent.
#  3. a configuration file with a mistake: opensm logs FILE:LINE:COLUMN and runs without the
#     plugin.
#
# Usage: plugin_ibsim.sh BUILD_DIR    (exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: plugin_ibsim.sh BUILD_DIR}
sim="$build/sim_backend/ibsdn-sim"
check="$build/tests/integration/tools/osmsdn-lft-check"
agent="$build/mad/agent/ibsdn-switch-agent"
key=5eed
# shellcheck source-path=SCRIPTDIR source=ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"

ibsim_lib_init plugin-ibsim
for f in "$sim" "$check" "$build/plugin/libosmsdn.so"; do
  [[ -e $f ]] || skip "$f not built"
done
have_agent=1
if [[ ! -x $agent ]]; then
  have_agent=0
  echo "NOTE: $agent not built: checking the plugin without switch agents"
fi
# opensm dlopen()s "lib<event_plugin_name>.so" by the loader's search path.
OPENSM_PLUGIN_DIR=$build/plugin

summary=$("$sim" topo --xgft "2;4,4;1,4" --netlist "$WORK/fabric.net")
echo "generated: $summary"
# "Switch <ports> "<name>"" records: one agent per switch.
mapfile -t switches < <(sed -n 's/^Switch\t\([0-9]*\)\t"\([^"]*\)".*/\2 \1/p' "$WORK/fabric.net")
(( ${#switches[@]} == 8 )) || fail "expected 8 switches in the netlist, found ${#switches[@]}"

ibsim_start "$WORK/fabric.net"

if ((have_agent)); then
  for entry in "${switches[@]}"; do
    read -r name ports <<<"$entry"
    sim_start "agent-$name" "$name" "$agent" --key "$key" --num-ports "$ports" \
      --log "$WORK/agent-$name.log" --verbose
  done
  for entry in "${switches[@]}"; do
    read -r name ports <<<"$entry"
    wait_for_file_text "$WORK/agent-$name.log" "attached" 10 ||
      fail "agent on $name: 'attached' not in $WORK/agent-$name.log after 10 s"
  done
fi

# run_opensm TAG ENGINES: one `opensm --once` with the plugin; dumps in $WORK/TAG/dump.
run_opensm() {
  local dir="$WORK/$1"
  # OpenSM keeps only the first word of a value: the plugin's options are one word.
  # sa_db_dump: OpenSM reports SUBNET UP to plugins only after waking `--once`'s main thread,
  # which then exits first; SA_DB_DUMPED comes just before that wake-up (plugin/opensm/README.md).
  mkdir -p "$dir"
  cat >"$dir/ibsdn.yaml" <<EOF
notice_socket: $dir/notice.sock
state_dir: $dir/state
switch_key: 0x$key
mad: {timeout_ms: 500, retries: 1}
audit_interval_ms: 0
EOF
  chmod 600 "$dir/ibsdn.yaml"
  opensm_conf "$dir" "event_plugin_name osmsdn" "event_plugin_options config=$dir/ibsdn.yaml" \
    "sa_db_dump TRUE"
  opensm_run "$dir" -R "$2" || fail "opensm -R $2 failed"
  grep -q "SUBNET UP" "$dir/opensm.log" || fail "no SUBNET UP with -R $2"
}

# expect_audit TAG: after SUBNET UP the controller read every switch's table through its agent
# (or, without agents, saw every switch unreachable and said so).
expect_audit() {
  local log="$WORK/$1/opensm.log" entry name ports
  if ((have_agent)); then
    grep -Eq "osmsdn: audit after SUBNET UP: 8 switches, 0 differences \(0 FlowMods to repair\), 0 unreachable" \
      "$log" || fail "$1: the controller did not audit all 8 switches"
    for entry in "${switches[@]}"; do
      read -r name ports <<<"$entry"
      grep -q "Get FlowStats status ok" "$WORK/agent-$name.log" ||
        fail "$1: agent on $name saw no FlowStats Get"
    done
  else
    grep -Eq "osmsdn: warning: audit after SUBNET UP: 8 switches, 0 differences .*, 8 unreachable" \
      "$log" || fail "$1: the controller did not report the 8 unreachable switches"
  fi
}

# 1. The plugin's own engine.
run_opensm sdn "sdn,no_fallback"
log="$WORK/sdn/opensm.log"
grep -q "osmsdn: routing engine 'sdn' registered" "$log" || fail "sdn engine not registered"
grep -q "osmsdn: sdn engine: dmodk on XGFT(2;4,4;1,4); 8 switch tables" "$log" ||
  fail "the sdn engine did not run DmodK on the recognised XGFT"
grep -q "sdn tables configured on all switches" "$log" || fail "sdn did not configure the switches"
grep -q "osmsdn: subnet up, routed by 'sdn': 24 nodes (8 switches, 16 CAs), 32 cables" "$log" ||
  fail "the controller did not get the sdn-routed subnet"
grep -q "XGFT(2;4,4;1,4); LFTs of 8 switches, the sdn engine's own" "$log" ||
  fail "the controller did not recognise the XGFT or did not get the switches' LFTs"
"$check" "$WORK/fabric.net" "$WORK/sdn/dump" --dmodk --switch-lids ||
  fail "the dumped LFTs are not DmodK's or leave a route out"
expect_audit sdn

# 2. Another engine routes; the plugin still snapshots and talks to the agents.
run_opensm ftree "ftree"
log="$WORK/ftree/opensm.log"
grep -q "ftree tables configured on all switches" "$log" || fail "ftree did not configure the switches"
grep -Eq "osmsdn: subnet up, routed by 'ftree': 24 nodes \(8 switches, 16 CAs\), 32 cables.* [0-9]+ of 192 entries differ from the sdn engine's dmodk" "$log" ||
  fail "the controller did not get the ftree-routed subnet"
grep -q "osmsdn: sdn engine" "$log" && fail "the sdn engine ran although ftree was chosen"
"$check" "$WORK/fabric.net" "$WORK/ftree/dump" || fail "the ftree LFTs do not connect every HCA pair"
expect_audit ftree

# 3. A broken configuration: the plugin stays out, opensm logs where the mistake is (to syslog
#    too) and routes.
dir="$WORK/badconf"
mkdir -p "$dir"
printf 'state_dir: %s/state\ntable_capacity: lots\n' "$dir" >"$dir/ibsdn.yaml"
opensm_conf "$dir" "event_plugin_name osmsdn" "event_plugin_options config=$dir/ibsdn.yaml" \
  "sa_db_dump TRUE"
opensm_run "$dir" -R ftree || fail "opensm with a broken plugin configuration failed"
grep -q "SUBNET UP" "$dir/opensm.log" || fail "no SUBNET UP with a broken plugin configuration"
refusal="osmsdn: ERR 5D10: osmsdn_create: cannot start the controller: .*ibsdn.yaml:2:17: table_capacity"
# 0x81: OSM_LOG_ERROR | OSM_LOG_SYS. OpenSM prints its SYS lines, which go to syslog, to stdout too.
grep -q "0x81 -> $refusal" "$dir/opensm.log" ||
  fail "opensm's log does not say where the configuration is wrong, as an error for syslog too"
grep -q "^$refusal" "$dir/opensm.out" || fail "the refusal did not take OpenSM's syslog path"
grep -q "0x81 -> plugin_create: osmsdn: ERR 5D02: controller not created (error -1); OpenSM runs without the plugin" \
  "$dir/opensm.log" || fail "opensm's log does not say that the plugin stays out"
grep -q "osmsdn: subnet up" "$dir/opensm.log" && fail "the plugin ran with a broken configuration"

((have_agent)) || echo "NOTE: ran without ibsdn-switch-agent (not built)"
echo "PASS"
