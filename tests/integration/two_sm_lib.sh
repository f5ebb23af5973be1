# Two opensm with libosmsdn.so on one ibsim XGFT(2;4,4;1,4), for the fail-over test and bench:
# sm-a on n0001 (priority 10), sm-b on n0002 (priority 5), one configuration whose socket and
# state paths are templated by the SM port GUID (%g), one key file both SMs and the 8 agents read.
# A standby polls the master every second and takes over after two missed answers.
# Source after ibsim_lib.sh and ibsim_lib_init, with $build set to the build directory.
#   two_sm_setup                   netlist, key, configuration, ibsim, 8 agents (no opensm yet)
#   start_sm a|b REGEX             starts sm-a|sm-b and waits (60 s) for REGEX in its new log lines
#   ctl_a / ctl_b ARG...           ibsdnctl on that SM's socket
#   sm_state a|b                   the SM state its controller reports (MASTER, STANDBY, ...)
#   job_ids a|b                    its jobs: "46 47:adopted ..."
#   tables a|b [--from-switch]     every switch's entries (intent, or read from the switches) as
#                                  sorted "SWITCH ENTRY" lines
#   counter a|b NAME               one of its stats counters
# shellcheck shell=bash
# shellcheck disable=SC2034  # hosts, all_hosts, guid_* and sock_* are for the sourcing script

: "${build:?set build to the build directory before sourcing two_sm_lib.sh}"
ctl="$build/cli/ibsdnctl"
hosts=()
for i in $(seq 1 16); do hosts+=("$(printf 'n%04d' "$i")"); done
all_hosts=$(IFS=,; echo "${hosts[*]}")
# ibsim gives an HCA's port 1 the node GUID + 1.
guid_a=0x0002c90300000011
guid_b=0x0002c90300000021
sock_a=$WORK/run-$guid_a/notice.sock
sock_b=$WORK/run-$guid_b/notice.sock
export OPENSM_PLUGIN_DIR=$build/plugin

two_sm_setup() {
  local sim="$build/sim_backend/ibsdn-sim" agent="$build/mad/agent/ibsdn-switch-agent" f
  local sm prio
  for f in "$sim" "$agent" "$ctl" "$build/plugin/libosmsdn.so"; do
    [[ -e $f ]] || skip "$f not built"
  done
  "$sim" topo --xgft "2;4,4;1,4" --netlist "$WORK/fabric.net" >/dev/null
  # Both SMs must hold the same key: a key file, distributed like opensm.conf.
  printf '0x5eed\n' >"$WORK/switch.key"
  chmod 600 "$WORK/switch.key"
  cat >"$WORK/ibsdn.yaml" <<EOF
notice_socket: $WORK/run-%g/notice.sock
state_dir: $WORK/state-%g
switch_key_file: $WORK/switch.key
mad: {timeout_ms: 200, retries: 2}
job_start_timeout_ms: 5000
audit_interval_ms: 1000
EOF
  chmod 600 "$WORK/ibsdn.yaml"
  ibsim_start "$WORK/fabric.net"
  agents_start "$WORK/fabric.net" "$agent" --key-file "$WORK/switch.key"
  ((AGENTS_STARTED == 8)) || fail "expected 8 switches in the netlist, found $AGENTS_STARTED"
  for sm in a b; do
    prio=10
    [[ $sm == b ]] && prio=5
    opensm_conf "$WORK/osm-$sm" "event_plugin_name osmsdn" \
      "event_plugin_options config=$WORK/ibsdn.yaml" "sm_priority $prio" \
      "sminfo_polling_timeout 1000" "polling_retry_number 2" "sweep_interval 1"
  done
}

start_sm() {  # a|b TEXT_TO_WAIT_FOR
  local sm=$1 host=n0001 guid=$guid_a mark
  [[ $sm == b ]] && { host=n0002; guid=$guid_b; }
  mark=$(file_size "$WORK/osm-$sm/opensm.log")
  OPENSM_HOST=$host opensm_start "sm-$sm" "$WORK/osm-$sm" -R sdn,no_fallback -g "$guid"
  wait_for_file_text "$WORK/osm-$sm/opensm.log" "$2" 60 "$mark" ||
    fail "sm-$sm: no '$2' in its log"
}
ctl_a() { "$ctl" --socket "$sock_a" "$@"; }
ctl_b() { "$ctl" --socket "$sock_b" "$@"; }
sm_state() {  # a|b
  "ctl_$1" --json ping | python3 -c 'import json,sys; print(json.load(sys.stdin).get("sm_state"))'
}
job_ids() {  # a|b
  "ctl_$1" --json jobs | python3 -c '
import json, sys
print(" ".join(str(j["job"]) + (":adopted" if j["algorithm"] == "adopted" else "")
               for j in sorted(json.load(sys.stdin)["jobs"], key=lambda j: j["job"])))'
}
# Every switch's real table (read through controller a|b), as sorted format_flow lines.
tables() {  # a|b [--from-switch]
  local sm=$1
  shift
  "ctl_$sm" --json flows "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for sw in sorted(r["switches"], key=lambda s: s["name"]):
    for e in sorted(x["text"] for x in sw["entries"]):
        print(sw["name"], e)
for w in r.get("warnings", []):
    print("warning:", w)'
}
counter() {  # a|b NAME
  "ctl_$1" --json stats | python3 -c '
import json, sys
print(json.load(sys.stdin)["stats"].get(sys.argv[1], 0))' "$2"
}

