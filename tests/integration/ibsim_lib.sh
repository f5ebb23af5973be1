# shellcheck shell=bash
# The ibsim harness shared by the integration tests, the ibsim benchmarks and the demo: a stock
# ibsim fabric, clients attached to it through umad2sim, opensm, and cleanup of everything started.
# Source it from a `set -euo pipefail` script; sourcing defines functions and nothing else.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/ibsim_lib.sh"    # (from tests/integration/)
#
# Setup
#   ibsim_lib_init NAME [TOOL...]  Needs ibsim, opensm, libumad2sim.so and each TOOL: if one is
#                                  missing, prints "SKIP: ..." and exits 77 (CTest's skip code).
#                                  Makes $WORK (${TMPDIR:-/tmp}/ibsdn-NAME.XXXXXX), exports a
#                                  unique IBSIM_SOCKNAME (parallel runs) and OSM_CACHE_DIR /
#                                  OSM_TMP_DIR inside $WORK (no stale guid2lid), sets UMAD2SIM
#                                  and installs the EXIT / INT / TERM traps (see Cleanup).
#   ibsim_missing_tools [TOOL...]  Prints what ibsim_lib_init would skip on, one line; nothing if
#                                  all is there. For scripts that report it their own way.
#   harness_init NAME              What ibsim_lib_init does after its check, without the ibsim
#                                  parts ($WORK, process tracking, traps): for scripts that start
#                                  no fabric, such as tests/slurm/ (slurm_lib.sh calls it).
#   ibsim_lib_at_exit COMMAND      Runs the shell COMMAND at exit, before the processes are stopped
#                                  (the latest first).
#   fail MSG / pass MSG / skip MSG "FAIL: MSG" on stderr, exit 1 / "ok: MSG" / "SKIP: MSG", exit 77.
#
# ibsim (one at a time; log $WORK/ibsim.log, appended by restarts)
#   ibsim_start NETFILE [ARG...]   Starts `ibsim -s NETFILE ARG...` (e.g. -N 2224 -S 448) in $WORK,
#                                  its console on a FIFO kept open read-write (at EOF ibsim would
#                                  spin), and waits for the "sim>" prompt; fails if it does not
#                                  come (IBSIM_START_TIMEOUT s, default 30). Tracked as "ibsim".
#   ibsim_console COMMAND          Sends one console command ("Attached", 'Unlink "l1s001"[5]',
#                                  'Link "l1s001"[5] "l2s001"[1]', 'ReLink "l1s001"', ...) and
#                                  prints its output once the next prompt is there.
#   ibsim_attached_clients         Prints how many clients are attached (ibsim has 10 slots).
#   ibsim_stop                     Stops ibsim (its clients are yours to stop first).
#
# Processes: each runs with cwd $WORK (umad2sim writes ./sys-PID there; a relative CMD path is
# taken from the caller's directory, relative paths in its arguments from $WORK) and is tracked
# by NAME for the cleanup. Start background processes from the script's own shell, not inside
# $(...) or a pipeline, or the tracking is lost with the subshell; a NAME is free again once its
# process was stopped or waited for (restarts).
#   sim_run HOST CMD...            Runs CMD in the foreground as an ibsim client at node HOST
#                                  (LD_PRELOAD=umad2sim, SIM_HOST=HOST; HOST '' = ibsim's default,
#                                  the netlist's first node); stdin/stdout/stderr are the caller's;
#                                  returns CMD's status. Killed by the cleanup if the script is.
#   sim_start NAME HOST CMD...     Starts CMD in the background as an ibsim client; stdout to
#                                  $WORK/NAME.out, stderr to $WORK/NAME.err (appended by a
#                                  restart); its PID in LAST_PID.
#   proc_start NAME CMD...         The same for a process that is not an ibsim client.
#   proc_pid NAME                  Prints the PID of a tracked process.
#   proc_alive NAME                Succeeds while it runs.
#   proc_signal NAME [SIGNAL]      Sends SIGNAL (default TERM) and nothing else.
#   proc_wait NAME [TIMEOUT_S]     Waits for it to exit, forgets it and returns its exit status;
#                                  returns 124 (still tracked) if it runs longer than TIMEOUT_S.
#   proc_stop NAME [SIGNAL]        Sends SIGNAL (default TERM), waits up to PROC_STOP_TIMEOUT s
#                                  (default 5) and then sends KILL; forgets it; status 0. Stop
#                                  ibsim clients with TERM: a KILLed client keeps its ibsim slot.
#
# Files
#   wait_for_file_text FILE REGEX TIMEOUT_S [FROM_BYTE]
#                                  Waits until FILE (after byte FROM_BYTE, default 0) has a line
#                                  matching the extended REGEX; status 1 after TIMEOUT_S seconds.
#   file_size FILE                 Prints FILE's size in bytes (0 if missing): a FROM_BYTE mark.
#
# opensm (an ibsim client at node $OPENSM_HOST, default ibsim's default; all files in DIR)
#   opensm_conf DIR [LINE...]      Writes DIR/opensm.conf with these lines (none: opensm's
#                                  defaults, whatever /etc/opensm holds). OpenSM keeps only the
#                                  first word of a value.
#   opensm_run DIR [ARG...]        `opensm --once` in the foreground (timeout OPENSM_TIMEOUT s,
#                                  default 60) with -D 0x43 (routing dumps), then ARG...; log
#                                  DIR/opensm.log, output DIR/opensm.out, dumps in DIR/dump, cache
#                                  DIR/cache and DIR/tmp, -F DIR/opensm.conf if it exists. Returns
#                                  opensm's status; on failure the log's tail goes to stderr.
#   opensm_start NAME DIR [ARG...] The same files, but opensm as a daemon tracked as NAME (see
#                                  proc_*), flushing its log after each line (-d2). A restart with
#                                  the same DIR keeps the guid2lid cache (same LIDs) and appends
#                                  to the log: mark it with file_size first.
#   If OPENSM_PLUGIN_DIR is set, opensm finds event plugins there (it dlopen()s
#   "lib<event_plugin_name>.so" through the loader's search path).
#   opensm_wait_audit DIR TIMEOUT_S [FROM_BYTE]
#                                  Waits until the plugin's "audit after SUBNET UP" line is in
#                                  DIR/opensm.log (after FROM_BYTE); fails naming the log if not.
#
# ibsdn switch agents (one per switch of an ibsim netlist)
#   netlist_switches NETFILE       Prints "NAME PORTS" for each switch of an ibsim netlist.
#   agents_start NETFILE AGENT [ARG...]
#                                  Starts AGENT ARG... --num-ports PORTS --log $WORK/agent-NAME.log
#                                  at each switch NAME of NETFILE (tracked as agent-NAME) and waits
#                                  (10 s each) until it has attached; AGENTS_STARTED: how many.
#   ibsdn_programs BUILD_DIR       After ibsim_lib_init, for a script that runs the product: sets
#                                  sim, agent, ctl and check to ibsdn-sim, ibsdn-switch-agent,
#                                  ibsdnctl and osmsdn-route-check in BUILD_DIR, OPENSM_PLUGIN_DIR
#                                  to its plugin/ (libosmsdn.so) and exports IBSDN_SOCKET
#                                  ($WORK/notice.sock); skips (77) if one of them is not built.
#
# Cleanup (EXIT trap; INT exits 130, TERM 143): runs the ibsim_lib_at_exit commands, stops every
# tracked process newest first (TERM, then KILL after PROC_STOP_TIMEOUT s), closes ibsim's
# console, and removes $WORK unless the script failed (exit status other than 0 and 77) or KEEP=1
# (or KEEP_WORK=1); a kept $WORK is named on stderr. The script's exit status is kept.

# --- setup ------------------------------------------------------------------------------------

_ibsim_lib_umad2sim() {
  if [[ -n ${UMAD2SIM:-} ]]; then
    printf '%s\n' "$UMAD2SIM"
    return
  fi
  local lib
  for lib in /usr/lib/*/umad2sim/libumad2sim.so; do
    [[ -f $lib ]] && { printf '%s\n' "$lib"; return; }
  done
  printf '%s\n' /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
}

ibsim_missing_tools() {
  local tool package missing=() packages=" "
  for tool in ibsim opensm "$@" libumad2sim.so; do
    case $tool in
      libumad2sim.so) [[ -f $(_ibsim_lib_umad2sim) ]] && continue; package=ibsim-utils ;;
      ibsim) command -v ibsim >/dev/null && continue; package=ibsim-utils ;;
      *) command -v "$tool" >/dev/null && continue; package= ;;
    esac
    case $tool in
      opensm) package=opensm ;;
      ib?*|smp*|perfquery|saquery|sminfo) [[ -n $package ]] || package=infiniband-diags ;;
    esac
    missing+=("$tool")
    [[ -z $package || $packages == *" $package "* ]] || packages+="$package "
  done
  ((${#missing[@]} == 0)) && return 0
  local list
  printf -v list '%s, ' "${missing[@]}"
  printf '%s not installed' "${list%, }"
  [[ $packages == " " ]] || printf ' (apt-get install%s)' "${packages% }"
  printf '\n'
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

pass() {
  echo "ok: $*"
}

skip() {
  echo "SKIP: $*"
  exit 77
}

ibsim_lib_init() {
  local name=${1:?usage: ibsim_lib_init NAME [TOOL...]}
  shift
  [[ -z ${IBSIM_LIB_READY:-} ]] || fail "ibsim_lib_init called twice"
  local missing
  missing=$(ibsim_missing_tools "$@")
  [[ -z $missing ]] || skip "$missing"

  harness_init "$name"
  UMAD2SIM=$(_ibsim_lib_umad2sim)
  # ibsim's sockets live in the abstract namespace: a name of our own keeps parallel runs apart.
  export IBSIM_SOCKNAME="ibsdn-$name-$$-$RANDOM"
  export OSM_CACHE_DIR=$WORK/osm-cache OSM_TMP_DIR=$WORK/osm-tmp
  mkdir -p "$OSM_CACHE_DIR" "$OSM_TMP_DIR"
}

harness_init() {
  local name=${1:?usage: harness_init NAME}
  [[ -z ${IBSIM_LIB_READY:-} ]] || fail "ibsim_lib_init / harness_init called twice"
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibsdn-$name.XXXXXX")
  IBSIM_LIB_READY=1
  IBSIM_LIB_NAMES=()
  declare -gA IBSIM_LIB_PID=()
  IBSIM_LIB_AT_EXIT=()
  IBSIM_CONSOLE_FD=
  LAST_PID=
  trap _ibsim_lib_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

ibsim_lib_at_exit() {
  IBSIM_LIB_AT_EXIT+=("$1")
}

_ibsim_lib_cleanup() {
  local rc=$? i
  for ((i = ${#IBSIM_LIB_AT_EXIT[@]} - 1; i >= 0; i--)); do
    eval "${IBSIM_LIB_AT_EXIT[i]}" || true
  done
  # Newest first: clients detach from ibsim before ibsim goes away.
  for ((i = ${#IBSIM_LIB_NAMES[@]} - 1; i >= 0; i--)); do
    proc_stop "${IBSIM_LIB_NAMES[i]}" || true
  done
  _ibsim_lib_close_console
  if ((rc != 0 && rc != 77)) || [[ ${KEEP:-0} == 1 || ${KEEP_WORK:-0} == 1 ]]; then
    echo "--- logs kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}

# --- processes ----------------------------------------------------------------------------------

_ibsim_lib_track() {  # NAME PID
  [[ -z ${IBSIM_LIB_PID[$1]:-} ]] || fail "a process named '$1' is already running"
  IBSIM_LIB_PID[$1]=$2
  IBSIM_LIB_NAMES+=("$1")
  # shellcheck disable=SC2034  # for the caller
  LAST_PID=$2
}

_ibsim_lib_forget() {  # NAME
  local keep=() n
  for n in "${IBSIM_LIB_NAMES[@]}"; do [[ $n == "$1" ]] || keep+=("$n"); done
  IBSIM_LIB_NAMES=("${keep[@]}")
  unset 'IBSIM_LIB_PID[$1]'
}

# Runs in a subshell: cwd $WORK, ibsim's console closed, the umad2sim environment for HOST
# ('-': not an ibsim client), then exec's CMD.
_ibsim_lib_exec() {  # HOST CMD...
  local host=$1 cmd=$2
  shift 2
  [[ $cmd != */* || $cmd == /* ]] || cmd=$PWD/$cmd
  cd "$WORK" || exit 1
  if [[ -n $IBSIM_CONSOLE_FD ]]; then exec {IBSIM_CONSOLE_FD}>&-; fi
  if [[ $host != - ]]; then
    export LD_PRELOAD=$UMAD2SIM
    if [[ -n $host ]]; then export SIM_HOST=$host; else unset SIM_HOST; fi
  fi
  exec "$cmd" "$@"
}

sim_run() {
  local host=$1 pid rc=0 name
  shift
  # In the background (keeping the caller's stdin) so that the traps can stop it.
  (_ibsim_lib_exec "$host" "$@") <&0 &
  pid=$!
  name="sim_run-$pid"
  _ibsim_lib_track "$name" "$pid"
  wait "$pid" || rc=$?
  _ibsim_lib_forget "$name"
  return "$rc"
}

sim_start() {
  local name=$1 host=$2
  shift 2
  (_ibsim_lib_exec "$host" "$@") >>"$WORK/$name.out" 2>>"$WORK/$name.err" &
  _ibsim_lib_track "$name" "$!"
}

proc_start() {
  local name=$1
  shift
  sim_start "$name" - "$@"
}

proc_pid() {
  [[ -n ${IBSIM_LIB_PID[$1]:-} ]] || fail "no process named '$1'"
  printf '%s\n' "${IBSIM_LIB_PID[$1]}"
}

proc_alive() {
  local pid=${IBSIM_LIB_PID[$1]:-}
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null
}

proc_signal() {
  local pid=${IBSIM_LIB_PID[$1]:-}
  [[ -n $pid ]] || fail "no process named '$1'"
  kill -"${2:-TERM}" "$pid"
}

proc_wait() {
  local name=$1 timeout=${2:-} pid i rc=0
  pid=${IBSIM_LIB_PID[$name]:-}
  [[ -n $pid ]] || fail "no process named '$name'"
  if [[ -n $timeout ]]; then
    for ((i = 0; i < timeout * 10; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && return 124
  fi
  wait "$pid" || rc=$?
  _ibsim_lib_forget "$name"
  return "$rc"
}

proc_stop() {
  local name=$1 signal=${2:-TERM} pid i
  pid=${IBSIM_LIB_PID[$name]:-}
  [[ -n $pid ]] || return 0
  if kill -"$signal" "$pid" 2>/dev/null; then
    for ((i = 0; i < ${PROC_STOP_TIMEOUT:-5} * 10; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  _ibsim_lib_forget "$name"
  [[ $name != ibsim ]] || _ibsim_lib_close_console
}

# --- files --------------------------------------------------------------------------------------

file_size() {
  if [[ -e $1 ]]; then stat -c %s "$1"; else echo 0; fi
}

wait_for_file_text() {
  local file=$1 regex=$2 timeout=$3 from=${4:-0} i
  for ((i = 0; i <= timeout * 10; i++)); do
    # Not `tail | grep -q`: under pipefail, tail's SIGPIPE would fail the match.
    grep -qE -- "$regex" < <(tail -c +"$((from + 1))" "$file" 2>/dev/null) && return 0
    sleep 0.1
  done
  return 1
}

# --- ibsim --------------------------------------------------------------------------------------

ibsim_start() {
  local net=$1
  shift
  [[ -z ${IBSIM_LIB_PID[ibsim]:-} ]] || fail "ibsim is already running"
  [[ $net == /* ]] || net=$PWD/$net
  local log=$WORK/ibsim.log fifo=$WORK/ibsim.in from
  from=$(file_size "$log")
  rm -f "$fifo"
  mkfifo "$fifo"
  exec {IBSIM_CONSOLE_FD}<>"$fifo"
  (_ibsim_lib_exec - ibsim -s "$net" "$@") <&"$IBSIM_CONSOLE_FD" >>"$log" 2>&1 &
  _ibsim_lib_track ibsim "$!"
  local i
  for ((i = 0; i < ${IBSIM_START_TIMEOUT:-30} * 10; i++)); do
    wait_for_file_text "$log" "sim>" 0 "$from" && return 0
    proc_alive ibsim || break
    sleep 0.1
  done
  tail -n 20 "$log" >&2
  fail "ibsim did not start on $net (see $log)"
}

_ibsim_lib_close_console() {
  if [[ -n ${IBSIM_CONSOLE_FD:-} ]]; then
    exec {IBSIM_CONSOLE_FD}>&-
    IBSIM_CONSOLE_FD=
  fi
}

ibsim_stop() {
  proc_stop ibsim
}

ibsim_console() {
  [[ -n ${IBSIM_CONSOLE_FD:-} ]] || fail "ibsim_console: ibsim is not running"
  local log=$WORK/ibsim.log from out i
  from=$(file_size "$log")
  printf '%s\n' "$*" >&"$IBSIM_CONSOLE_FD"
  # ibsim prints the command's output, then the next prompt.
  for ((i = 0; i < 100; i++)); do
    out=$(tail -c +"$((from + 1))" "$log")
    [[ $out == *"sim> "* ]] && break
    sleep 0.05
  done
  [[ $out == *"sim> "* ]] || fail "ibsim_console: no prompt after '$*' (see $log)"
  printf '%s\n' "${out%sim> *}"
}

ibsim_attached_clients() {
  local out
  out=$(ibsim_console Attached)
  grep -c "^Client" <<<"$out" || true
}

# --- opensm -------------------------------------------------------------------------------------

opensm_conf() {
  local dir=$1
  shift
  mkdir -p "$dir"
  if (($# > 0)); then printf '%s\n' "$@" >"$dir/opensm.conf"; else : >"$dir/opensm.conf"; fi
}

# Runs opensm for DIR with ARG... through LAUNCHER (sim_run HOST or sim_start NAME HOST).
_ibsim_lib_opensm() {  # LAUNCHER... -- DIR ARG...
  local launcher=()
  while [[ $1 != -- ]]; do launcher+=("$1"); shift; done
  shift
  local dir=$1 plugin_dir=${OPENSM_PLUGIN_DIR:-}
  shift
  # opensm runs in $WORK.
  [[ $dir == /* ]] || dir=$PWD/$dir
  [[ -z $plugin_dir || $plugin_dir == /* ]] || plugin_dir=$PWD/$plugin_dir
  mkdir -p "$dir/cache" "$dir/tmp" "$dir/dump"
  local cmd=(env OSM_CACHE_DIR="$dir/cache" OSM_TMP_DIR="$dir/tmp")
  if [[ -n $plugin_dir ]]; then
    cmd+=(LD_LIBRARY_PATH="$plugin_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
  fi
  if [[ ${launcher[0]} == sim_run ]]; then
    cmd+=(timeout "${OPENSM_TIMEOUT:-60}" opensm --once)
  else
    # -d2: flush the log after each line, so that one can wait for lines of a running opensm.
    cmd+=(opensm -d2)
  fi
  cmd+=(-f "$dir/opensm.log" -D 0x43 --dump_files_dir "$dir/dump")
  [[ -f $dir/opensm.conf ]] && cmd+=(-F "$dir/opensm.conf")
  "${launcher[@]}" "${cmd[@]}" "$@"
}

opensm_run() {
  local dir=$1 rc=0
  mkdir -p "$dir"
  _ibsim_lib_opensm sim_run "${OPENSM_HOST:-}" -- "$@" >"$dir/opensm.out" 2>&1 || rc=$?
  if ((rc != 0)); then
    echo "opensm exited with $rc; end of $dir/opensm.log:" >&2
    tail -n 20 "$dir/opensm.log" >&2 || true
  fi
  return "$rc"
}

opensm_start() {
  local name=$1
  shift
  _ibsim_lib_opensm sim_start "$name" "${OPENSM_HOST:-}" -- "$@"
}

opensm_wait_audit() {
  local dir=$1 timeout=$2 from=${3:-0}
  wait_for_file_text "$dir/opensm.log" "osmsdn: (warning: )?audit after SUBNET UP" "$timeout" "$from" ||
    fail "no 'audit after SUBNET UP' in $dir/opensm.log within $timeout s"
}

# --- ibsdn switch agents ------------------------------------------------------------------------

netlist_switches() {
  sed -n 's/^Switch\t\([0-9]*\)\t"\([^"]*\)".*/\2 \1/p' "$1"
}

agents_start() {
  local netfile=$1 agent=$2 entry name ports switches
  shift 2
  mapfile -t switches < <(netlist_switches "$netfile")
  ((${#switches[@]} > 0)) || fail "no switch in the netlist $netfile"
  for entry in "${switches[@]}"; do
    read -r name ports <<<"$entry"
    sim_start "agent-$name" "$name" "$agent" "$@" --num-ports "$ports" --log "$WORK/agent-$name.log"
    wait_for_file_text "$WORK/agent-$name.log" "attached" 10 || fail "the agent on $name did not attach"
  done
  # shellcheck disable=SC2034  # for the caller
  AGENTS_STARTED=${#switches[@]}
}

# shellcheck disable=SC2034  # sim, agent, ctl, check, OPENSM_PLUGIN_DIR: for the caller
ibsdn_programs() {
  local build=${1:?usage: ibsdn_programs BUILD_DIR} f
  sim=$build/sim_backend/ibsdn-sim
  agent=$build/mad/agent/ibsdn-switch-agent
  ctl=$build/cli/ibsdnctl
  check=$build/tests/integration/tools/osmsdn-route-check
  for f in "$sim" "$agent" "$ctl" "$check" "$build/plugin/libosmsdn.so"; do
    [[ -e $f ]] || skip "$f not built"
  done
  OPENSM_PLUGIN_DIR=$build/plugin
  export IBSDN_SOCKET=$WORK/notice.sock
}
