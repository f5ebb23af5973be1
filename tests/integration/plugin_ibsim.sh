#!/usr/bin/env bash
# libosmsdn.so inside the stock opensm, on an ibsim XGFT(2;4,4;1,4) with one ibsdn-switch-agent
# per switch:
#  1. `opensm --once -R sdn,no_fallback`: the plugin's "sdn" engine configures every switch, the
#     dumped LFTs equal DmodK's (checked independently by osmsdn-lft-check) and route every
#     switch LID, and after SUBNET UP every agent answers the controller's TableInfo Get.
#  2. `opensm --once -R ftree`: another engine fills the LFTs; the plugin still snapshots them
#     and talks to every agent.
#
# Usage: plugin_ibsim.sh BUILD_DIR    (exit 77: a required tool is missing)
set -euo pipefail

build=${1:?usage: plugin_ibsim.sh BUILD_DIR}
sim="$build/sim_backend/ibsdn-sim"
check="$build/plugin/osmsdn-lft-check"
agent="$build/mad/agent/ibsdn-switch-agent"
plugin_dir="$build/plugin"
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
key=5eed

for tool in ibsim opensm; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
[[ -r $umad2sim ]] || { echo "SKIP: $umad2sim missing"; exit 77; }
for f in "$sim" "$check" "$plugin_dir/libosmsdn.so"; do
  [[ -e $f ]] || { echo "SKIP: $f not built"; exit 77; }
done
have_agent=1
if [[ ! -x $agent ]]; then
  have_agent=0
  echo "NOTE: $agent not built: checking the plugin without switch agents"
fi

work=$(mktemp -d /tmp/ibsdn-plugin-ibsim.XXXXXX)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ ${KEEP_WORK:-0} == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Concurrent ibsim instances (parallel ctest) need distinct socket names, shared with clients.
export IBSIM_SOCKNAME="ibsdn-plugin-$$-$RANDOM"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Runs a command in the background so the trap can kill it, and waits for it.
run_tracked() {
  "$@" &
  local pid=$!
  pids+=("$pid")
  wait "$pid"
}

# wait_for FILE PATTERN SECONDS WHAT
wait_for() {
  local i
  for ((i = 0; i < $3 * 10; i++)); do
    grep -qs -- "$2" "$1" && return 0
    sleep 0.1
  done
  fail "$4: '$2' not in $1 after $3 s"
}

summary=$("$sim" topo --xgft "2;4,4;1,4" --netlist "$work/fabric.net")
echo "generated: $summary"
# "Switch <ports> "<name>"" records: one agent per switch.
mapfile -t switches < <(sed -n 's/^Switch\t\([0-9]*\)\t"\([^"]*\)".*/\2 \1/p' "$work/fabric.net")
(( ${#switches[@]} == 8 )) || fail "expected 8 switches in the netlist, found ${#switches[@]}"

ibsim -s "$work/fabric.net" </dev/null >"$work/ibsim.log" 2>&1 &
pids+=("$!")
wait_for "$work/ibsim.log" "Network simulator ready" 10 "ibsim"

if ((have_agent)); then
  for entry in "${switches[@]}"; do
    read -r name ports <<<"$entry"
    SIM_HOST=$name LD_PRELOAD=$umad2sim "$agent" --key "$key" --num-ports "$ports" \
      --log "$work/agent-$name.log" --verbose </dev/null >"$work/agent-$name.out" 2>&1 &
    pids+=("$!")
  done
  for entry in "${switches[@]}"; do
    read -r name ports <<<"$entry"
    wait_for "$work/agent-$name.log" "attached" 10 "agent on $name"
  done
fi

# run_opensm TAG ENGINES: one `opensm --once` with the plugin; dumps in $work/TAG/dump.
run_opensm() {
  local dir="$work/$1"
  mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump"
  # OpenSM keeps only the first word of a value: the plugin's options are one word.
  # sa_db_dump: OpenSM reports SUBNET UP to plugins only after waking `--once`'s main thread,
  # which then exits first; SA_DB_DUMPED comes just before that wake-up (plugin/README.md).
  cat >"$dir/opensm.conf" <<EOF
event_plugin_name osmsdn
event_plugin_options key=0x$key,mad_timeout_ms=2000
sa_db_dump TRUE
EOF
  # opensm dlopen()s "lib<event_plugin_name>.so" by the loader's search path.
  run_tracked env LD_LIBRARY_PATH="$plugin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    LD_PRELOAD="$umad2sim" OSM_CACHE_DIR="$dir/cache" OSM_TMP_DIR="$dir/tmp" \
    timeout 60 opensm --once -F "$dir/opensm.conf" -f "$dir/opensm.log" -R "$2" \
    -D 0x43 --dump_files_dir "$dir/dump" >"$dir/opensm.out" 2>&1 ||
    { tail -20 "$dir/opensm.log" >&2; fail "opensm -R $2 failed"; }
  grep -q "SUBNET UP" "$dir/opensm.log" || fail "no SUBNET UP with -R $2"
}

# expect_table_info TAG: every switch's agent answered the controller (or, without agents, the
# controller saw every request fail and said so).
expect_table_info() {
  local log="$work/$1/opensm.log" entry name ports
  if ((have_agent)); then
    for entry in "${switches[@]}"; do
      read -r name ports <<<"$entry"
      grep -q "osmsdn: TableInfo from $name (LID [0-9]*): capacity [0-9]*, used 0, .*, $ports ports," \
        "$log" || fail "$1: no TableInfo from $name in the opensm log"
    done
    grep -q "osmsdn: TableInfo round 1: 8 of 8 switches answered" "$log" ||
      fail "$1: the TableInfo round did not complete with 8 answers"
  else
    grep -q "osmsdn: TableInfo round 1: 0 of 8 switches answered" "$log" ||
      fail "$1: the controller did not report its unanswered TableInfo round"
  fi
}

# 1. The plugin's own engine.
run_opensm sdn "sdn,no_fallback"
log="$work/sdn/opensm.log"
grep -q "osmsdn: routing engine 'sdn' registered" "$log" || fail "sdn engine not registered"
grep -q "osmsdn: sdn engine: dmodk on XGFT(2;4,4;1,4); 8 switch tables" "$log" ||
  fail "the sdn engine did not run DmodK on the recognised XGFT"
grep -q "sdn tables configured on all switches" "$log" || fail "sdn did not configure the switches"
grep -q "osmsdn: subnet up, routed by 'sdn': 24 nodes (8 switches, 16 CAs), 32 cables" "$log" ||
  fail "the controller did not get the sdn-routed subnet"
grep -q "LFTs of 8 switches, 0 of 192 entries differ from the sdn engine's dmodk" "$log" ||
  fail "the LFTs on the switches are not the ones the sdn engine computed"
"$check" "$work/fabric.net" "$work/sdn/dump" --dmodk --switch-lids ||
  fail "the dumped LFTs are not DmodK's or leave a route out"
expect_table_info sdn
if ((have_agent)); then
  for entry in "${switches[@]}"; do
    read -r name ports <<<"$entry"
    grep -q "Get TableInfo status ok" "$work/agent-$name.log" || fail "agent on $name saw no TableInfo Get"
  done
fi

# 2. Another engine routes; the plugin still snapshots and talks to the agents.
run_opensm ftree "ftree"
log="$work/ftree/opensm.log"
grep -q "ftree tables configured on all switches" "$log" || fail "ftree did not configure the switches"
grep -q "osmsdn: subnet up, routed by 'ftree': 24 nodes (8 switches, 16 CAs), 32 cables" "$log" ||
  fail "the controller did not get the ftree-routed subnet"
grep -q "osmsdn: sdn engine" "$log" && fail "the sdn engine ran although ftree was chosen"
"$check" "$work/fabric.net" "$work/ftree/dump" || fail "the ftree LFTs do not connect every HCA pair"
expect_table_info ftree

((have_agent)) || echo "NOTE: ran without ibsdn-switch-agent (not built)"
echo "PASS"
