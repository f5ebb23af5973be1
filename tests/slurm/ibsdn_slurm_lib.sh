# shellcheck shell=bash
# ibsdn under the single-host Slurm cluster, with the real processes, for tests/slurm/ and bench/:
# an ibsim XGFT(2;4,4;1,4) whose HCAs n0001..n0016 include the Slurm nodes (two under each leaf
# switch, so that jobs cross the fabric), one ibsdn-switch-agent per switch, opensm with
# libosmsdn.so from the build, and Slurm with spank_ibsdn.so and ibsdn-slurm-hook as
# PrologSlurmctld / EpilogSlurmctld. Source it from a `set -euo pipefail` script.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/ibsdn_slurm_lib.sh"    # (from tests/slurm/)
#
#   ibsdn_slurm_init NAME BUILD_DIR
#                                  ibsim_lib_init and slurm_lib_init (exit 77 if a tool is
#                                  missing or not root), and the built parts (exit 77 if one is
#                                  not built): sets sim, agent, ctl, hook, spank, hints_check to
#                                  their paths; exports IBSDN_SOCKET ($WORK/notice.sock, for
#                                  ibsdnctl).
#   ibsdn_slurm_fabric [YAML_LINE...]
#                                  The netlist ($WORK/fabric.net), $WORK/ibsdn.yaml (socket,
#                                  state_dir $WORK/state, key, MAD limits, then YAML_LINE...),
#                                  ibsim, the 8 agents and the controller (controller_start).
#                                  With IBSDN_SLURM_AGENTS=0, no agent: every switch is a stock
#                                  one, and install_backend auto puts the jobs' routes into the
#                                  LFTs through OpenSM.
#                                  With IBSDN_SLURM_LMC=N, opensm runs with -l N (2^N LIDs a
#                                  port: jobs sharing nodes get LID offsets of their own).
#                                  Writes the hook's configuration $WORK/hook.conf (the socket,
#                                  StateDir, LogFile $WORK/hook.log, ConnectTimeoutMs 2000,
#                                  TimeoutMs 5000; the hook reads it at every run, so a script
#                                  may change it) and $WORK/hook.sh, which slurmctld runs: the
#                                  hook with that configuration (slurmctld passes no arguments).
#   controller_start               Starts opensm with the plugin (tracked as opensm, files in
#                                  $WORK/osm; a restart keeps its LIDs and state) and waits (60 s)
#                                  for its audit after SUBNET UP.
#   IBSDN_SLURM_NODES              The Slurm nodes: n0001 n0002 n0005 n0006 n0009 n0010 n0013 n0014.
#   ibsdn_slurm_cluster_start [OPTION...]
#                                  slurm_cluster_start on those nodes with the SPANK plugin
#                                  (required), $WORK/hook.sh as PrologSlurmctld and
#                                  EpilogSlurmctld, cred_expire 5 s, sched_interval=1,
#                                  PrologEpilogTimeout=30, and OPTION... (slurm_cluster_start's).
#   switch_entries                 Prints how many entries the switches hold (read from them).
#   controller_jobs                Prints the controller's job ids, space-separated.
#   expect_released WHAT           Waits (10 s) until the controller has no job and the switches
#                                  no entry; fails naming WHAT otherwise.

# shellcheck source-path=SCRIPTDIR source=../integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../integration/ibsim_lib.sh"
# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"

IBSDN_SLURM_NODES=(n0001 n0002 n0005 n0006 n0009 n0010 n0013 n0014)

ibsdn_slurm_init() {
  local name=${1:?usage: ibsdn_slurm_init NAME BUILD_DIR} build f
  build=$(cd "${2:?usage: ibsdn_slurm_init NAME BUILD_DIR}" && pwd)
  ibsim_lib_init "$name" python3
  slurm_lib_init "$name"
  sim="$build/sim_backend/ibsdn-sim"
  agent="$build/mad/agent/ibsdn-switch-agent"
  ctl="$build/cli/ibsdnctl"
  hook="$build/scheduler_hook/ibsdn-slurm-hook"
  spank="$build/scheduler_hook/spank_ibsdn.so"
  hints_check="$build/hints/ibsdn-hints-check"
  for f in "$sim" "$agent" "$ctl" "$hook" "$spank" "$hints_check" "$build/plugin/libosmsdn.so"; do
    [[ -e $f ]] || skip "$f not built"
  done
  # shellcheck disable=SC2034  # read by ibsim_lib's opensm_start
  OPENSM_PLUGIN_DIR=$build/plugin
  export IBSDN_SOCKET=$WORK/notice.sock
}

ibsdn_slurm_fabric() {
  local key=0x5eed
  "$sim" topo --xgft "2;4,4;1,4" --netlist "$WORK/fabric.net" >/dev/null
  {
    cat <<EOF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: $key
mad: {timeout_ms: 200, retries: 2}
job_start_timeout_ms: 5000
EOF
    (($# == 0)) || printf '%s\n' "$@"
  } >"$WORK/ibsdn.yaml"
  chmod 600 "$WORK/ibsdn.yaml"
  ibsim_start "$WORK/fabric.net"
  if [[ ${IBSDN_SLURM_AGENTS:-1} != 0 ]]; then
    agents_start "$WORK/fabric.net" "$agent" --key "$key"
    ((AGENTS_STARTED == 8)) || fail "expected 8 switches in the netlist, found $AGENTS_STARTED"
  fi
  opensm_conf "$WORK/osm" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml"
  controller_start
  cat >"$WORK/hook.conf" <<EOF
NoticeSocket=$WORK/notice.sock
StateDir=$WORK/hook-state
LogFile=$WORK/hook.log
ConnectTimeoutMs=2000
TimeoutMs=5000
EOF
  cat >"$WORK/hook.sh" <<EOF
#!/bin/sh
exec $hook --config $WORK/hook.conf
EOF
  chmod 755 "$WORK/hook.sh"
}

controller_start() {
  local mark
  mark=$(file_size "$WORK/osm/opensm.log")
  # IBSDN_SLURM_LMC=N: opensm gives every port 2^N LIDs (-l N).
  opensm_start opensm "$WORK/osm" -R sdn,no_fallback -l "${IBSDN_SLURM_LMC:-0}"
  opensm_wait_audit "$WORK/osm" 60 "$mark"
}

ibsdn_slurm_cluster_start() {
  slurm_cluster_start --prolog-slurmctld "$WORK/hook.sh" --epilog-slurmctld "$WORK/hook.sh" \
    --plugstack "required $spank socket=$WORK/notice.sock" --cred-expire 5 --sched-param sched_interval=1 \
    --conf PrologEpilogTimeout=30 "$@" "${IBSDN_SLURM_NODES[@]}"
}

switch_entries() {
  "$ctl" --json flows --from-switch |
    python3 -c 'import json,sys; print(sum(len(s["entries"]) for s in json.load(sys.stdin)["switches"]))'
}

controller_jobs() {
  "$ctl" --json jobs | python3 -c 'import json,sys; print(" ".join(str(j["job"]) for j in json.load(sys.stdin)["jobs"]))'
}

expect_released() {
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -z $(controller_jobs) && $(switch_entries) == 0 ]] && return 0
    sleep 0.2
  done
  fail "$1: after 10 s the controller still has jobs '$(controller_jobs)', the switches $(switch_entries) entries"
}
