# shellcheck shell=bash
# A single-host Slurm 22.05 cluster (Debian's slurm-wlm and munge) for the Slurm tests and
# benchmarks: munged on a socket of its own, slurmctld, and one `slurmd -N NODE` per node, all with
# their own ports, pid, log and spool files in a scratch directory. Builds on the process tracking
# and cleanup of tests/integration/ibsim_lib.sh (sourced here): the daemons are tracked processes,
# stopped by PID at exit, also when the script fails. Runs as root: the daemons run as root, a job
# runs as whoever submits it.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"    # (from tests/slurm/)
#
# Setup
#   slurm_lib_init [NAME]          Skips (exit 77) unless run as root with Slurm and munge
#                                  installed (scripts/install-deps.sh). Unless ibsim_lib_init ran
#                                  before (a test with a fabric), calls harness_init NAME ($WORK,
#                                  tracking, traps). Makes $WORK readable by all: munged wants its
#                                  socket's directories open, and jobs of a test user write there.
#   slurm_missing_tools            Prints what slurm_lib_init would skip on; nothing if all is there.
#
# Cluster (one at a time; a second start after slurm_cluster_stop is a fresh cluster)
#   slurm_cluster_start [OPTION...] [NODE...]
#                                  Starts munged, slurmctld and one slurmd per NODE (Slurm node
#                                  names, e.g. the first words of an ibsim fabric's HCA node
#                                  descriptions; default n0001..n0008) on free TCP ports, tracked
#                                  as munged, slurmctld and slurmd-NODE, and waits until every node
#                                  is idle and slurmctld's scheduler has made its first pass (3 s
#                                  after slurmctld starts: a job submitted before waits for it),
#                                  CLUSTER_START_TIMEOUT s (default 30) in all; otherwise fails
#                                  naming what did not come up, with the end of its log.
#                                  Files in $CLUSTER_DIR ($WORK/slurm, then $WORK/slurm-2, ...):
#                                  slurm.conf, plugstack.conf, munge/, state/, spool/NODE/, the
#                                  logs slurmctld.log and slurmd-NODE.log (munged's stderr is
#                                  $WORK/munged.err). Exports SLURM_CONF (for sbatch, scontrol,
#                                  ...); sets CLUSTER_NODES (the node names) and CLUSTER_HOST (the
#                                  host they all run on).
#                                  One partition, "test" (default, all nodes, no time limit). Each
#                                  node has one CPU and the partition allows OverSubscribe: jobs
#                                  share a node only when they ask for --oversubscribe.
#                                  slurmctld allocates batch jobs on its 1 s background tick;
#                                  batch_sched_delay=0 lets every tick do so (Slurm's default waits
#                                  3 s after the last pass): on an idle cluster a job starts 0-1 s
#                                  after its sbatch (bench/slurm_submit_latency.sh). Options:
#       --prolog-slurmctld PATH    PrologSlurmctld (it runs as root with SLURM_JOB_ID,
#                                  SLURM_JOB_NODELIST, ... and no PATH in its environment)
#       --epilog-slurmctld PATH    EpilogSlurmctld
#       --plugstack LINE           a plugstack.conf line ("optional /path/spank_x.so ARG"); repeatable
#       --cred-expire S            AuthInfo's cred_expire (Slurm's default 120 s), which is also how
#                                  long a requeued batch job waits before it may start again
#       --sched-param KEY=VALUE    added to SchedulerParameters; repeatable. E.g. sched_interval=1:
#                                  a job that becomes eligible without an event (a requeued job's
#                                  wait is over) starts only at the full pass (every 60 s)
#       --conf LINE                a slurm.conf line after the generated ones (for a key given
#                                  twice slurmctld takes the last); repeatable
#   slurm_cluster_stop             Cancels the jobs, waits for them to end (CLUSTER_STOP_TIMEOUT s,
#                                  default 15), stops the daemons, then kills (TERM, KILL) and
#                                  names on stderr any slurmstepd of this cluster left behind, with
#                                  its children; status 1 if there were any. Also runs at exit.
#   slurm_cluster_leftovers DIR    Prints the PIDs of processes still running for the cluster that
#                                  was in DIR (a former $CLUSTER_DIR): anything started with its
#                                  daemons' environment, and their descendants.
#
# Jobs (SLURM_CONF is exported: Slurm's own commands work too)
#   slurm_submit ARG...            `sbatch --parsable ARG...`; prints the job id; fails with
#                                  sbatch's message if it refuses the job.
#   slurm_job_field JOBID FIELD    Prints FIELD of `scontrol -o show job JOBID` (JobState, Reason,
#                                  NodeList, ExitCode, Restarts, BatchHost, ...); empty if the job or
#                                  the field is unknown.
#   slurm_wait_job JOBID REGEX TIMEOUT_S
#                                  Waits until the job's JobState matches the extended REGEX (e.g.
#                                  'COMPLETED|FAILED'); status 1 after TIMEOUT_S (float) seconds.
#   slurm_idle_nodes               Prints how many nodes are idle.

if ! declare -F harness_init >/dev/null; then
  # shellcheck source-path=SCRIPTDIR source=../integration/ibsim_lib.sh
  source "$(dirname "${BASH_SOURCE[0]}")/../integration/ibsim_lib.sh"
fi

# --- setup --------------------------------------------------------------------------------------

slurm_missing_tools() {
  local tool missing=()
  for tool in munged mungekey slurmctld slurmd sbatch scontrol squeue scancel sinfo; do
    command -v "$tool" >/dev/null || missing+=("$tool")
  done
  if ((${#missing[@]} > 0)); then
    local list
    printf -v list '%s, ' "${missing[@]}"
    printf '%s not installed (scripts/install-deps.sh)\n' "${list%, }"
  elif (($(id -u) != 0)); then
    printf 'the Slurm cluster needs root (its daemons run as root)\n'
  fi
}

slurm_lib_init() {
  local missing
  missing=$(slurm_missing_tools)
  [[ -z $missing ]] || skip "$missing"
  [[ -n ${IBSIM_LIB_READY:-} ]] || harness_init "${1:?usage: slurm_lib_init NAME}"
  chmod 755 "$WORK"
  CLUSTER_DIR=
  CLUSTER_COUNT=0
  CLUSTER_NODES=()
  CLUSTER_HOST=$(hostname)
  ibsim_lib_at_exit slurm_cluster_stop
}

# --- cluster ------------------------------------------------------------------------------------

# Prints the first of COUNT consecutive TCP ports that no socket of this host uses (listening or
# connected, IPv4 or IPv6), below the ephemeral range so that outgoing connections do not take
# them; a random start keeps parallel clusters apart.
_slurm_lib_free_ports() {  # COUNT
  local count=$1 used=" " base p try ok local_address
  while read -r _ local_address _; do
    [[ $local_address == *:* ]] && used+="$((16#${local_address##*:})) "
  done < <(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
  for ((try = 0; try < 100; try++)); do
    base=$((20000 + RANDOM % (12000 - count)))
    ok=1
    for ((p = base; p < base + count; p++)); do
      [[ $used == *" $p "* ]] && { ok=0; break; }
    done
    ((ok)) && { echo "$base"; return 0; }
  done
  fail "no $count free consecutive TCP ports between 20000 and 32000"
}

_slurm_lib_log_tail() {  # WHAT LOG
  echo "--- end of $2 ($1):" >&2
  tail -n 10 "$2" >&2 2>/dev/null || echo "(no log)" >&2
}

slurm_cluster_start() {
  local prolog="" epilog="" cred_expire="" sched_params=batch_sched_delay=0 plugstack=() extra=()
  local nodes=()
  while (($# > 0)); do
    case $1 in
      --prolog-slurmctld) prolog=${2:?--prolog-slurmctld needs a path}; shift 2 ;;
      --epilog-slurmctld) epilog=${2:?--epilog-slurmctld needs a path}; shift 2 ;;
      --plugstack) plugstack+=("${2?--plugstack needs a line}"); shift 2 ;;
      --cred-expire) cred_expire=${2:?--cred-expire needs seconds}; shift 2 ;;
      --sched-param) sched_params+=",${2:?--sched-param needs KEY=VALUE}"; shift 2 ;;
      --conf) extra+=("${2?--conf needs a line}"); shift 2 ;;
      --*) fail "slurm_cluster_start: unknown option '$1'" ;;
      *) nodes+=("$1"); shift ;;
    esac
  done
  [[ -z $CLUSTER_DIR ]] || fail "slurm_cluster_start: a cluster is running ($CLUSTER_DIR)"
  local f
  for f in "$prolog" "$epilog"; do
    [[ -z $f || ($f == /* && -x $f) ]] || fail "slurm_cluster_start: '$f' is not an absolute path to an executable"
  done
  if ((${#nodes[@]} == 0)); then
    local i
    for i in $(seq 1 8); do nodes+=("$(printf 'n%04d' "$i")"); done
  fi
  local node
  for node in "${nodes[@]}"; do
    # What Slurm takes as one node name (no hostlist syntax, no separators).
    [[ $node =~ ^[A-Za-z][A-Za-z0-9_.-]*$ ]] || fail "slurm_cluster_start: '$node' is not a plain node name"
  done
  [[ $(printf '%s\n' "${nodes[@]}" | sort | uniq -d) == "" ]] || fail "slurm_cluster_start: node names repeat"

  CLUSTER_COUNT=$((CLUSTER_COUNT + 1))
  CLUSTER_DIR=$WORK/slurm
  ((CLUSTER_COUNT == 1)) || CLUSTER_DIR+="-$CLUSTER_COUNT"
  CLUSTER_NODES=("${nodes[@]}")
  local dir=$CLUSTER_DIR
  # munged insists that every directory above its socket be searchable by all.
  mkdir -m 755 "$dir" "$dir/munge"
  mkdir -p "$dir/state" "$dir/spool"

  # --- munge: a key of our own, a socket of our own.
  mungekey --create --keyfile="$dir/munge/munge.key" ||
    fail "mungekey could not create $dir/munge/munge.key"
  # In the foreground munged logs to stderr ($WORK/munged.err), not to a --log-file.
  proc_start munged munged --foreground --socket="$dir/munge/munge.socket" \
    --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
    --seed-file="$dir/munge/munged.seed"
  local i
  for ((i = 0; i < 100; i++)); do
    [[ -S $dir/munge/munge.socket ]] && break
    proc_alive munged || break
    sleep 0.1
  done
  if [[ ! -S $dir/munge/munge.socket ]]; then
    _slurm_lib_log_tail munged "$WORK/munged.err"
    fail "munged did not create its socket $dir/munge/munge.socket"
  fi

  # --- slurm.conf
  local base
  base=$(_slurm_lib_free_ports $((${#nodes[@]} + 1)))
  {
    cat <<EOF
# Written by tests/slurm/slurm_lib.sh: a whole cluster on $CLUSTER_HOST.
ClusterName=ibsdn-test
SlurmctldHost=$CLUSTER_HOST(127.0.0.1)
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket${cred_expire:+,cred_expire=$cred_expire}
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
LogTimeFormat=iso8601_ms
PlugStackConfig=$dir/plugstack.conf
# Several slurmd on one host: trust the node lines below, track processes without cgroups.
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# slurmctld allocates batch jobs only in its background thread, which looks once a second whether
# jobs were submitted or ended since, and by default skips the pass unless the last one is
# batch_sched_delay (3 s) old: 0 makes a job start at the next tick after its sbatch.
SchedulerType=sched/backfill
SchedulerParameters=$sched_params
# Cancelled jobs are killed 2 s after their SIGTERM (default 30), so that the cleanup is quick.
KillWait=2
EOF
    [[ -z $prolog ]] || echo "PrologSlurmctld=$prolog"
    [[ -z $epilog ]] || echo "EpilogSlurmctld=$epilog"
    for ((i = 0; i < ${#nodes[@]}; i++)); do
      echo "NodeName=${nodes[i]} NodeHostname=$CLUSTER_HOST NodeAddr=127.0.0.1 Port=$((base + 1 + i)) CPUs=1 State=UNKNOWN"
    done
    echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
    ((${#extra[@]} == 0)) || printf '%s\n' "${extra[@]}"
  } >"$dir/slurm.conf"
  if ((${#plugstack[@]} > 0)); then printf '%s\n' "${plugstack[@]}" >"$dir/plugstack.conf"; else : >"$dir/plugstack.conf"; fi
  export SLURM_CONF=$dir/slurm.conf

  # --- daemons, in the foreground so that the tracked PID is the daemon's. The marker in their
  # environment lets the cleanup find slurmstepd processes they leave behind.
  proc_start slurmctld env IBSDN_SLURM_CLUSTER="$dir" slurmctld -D -f "$dir/slurm.conf"
  for node in "${nodes[@]}"; do
    mkdir -p "$dir/spool/$node"
    proc_start "slurmd-$node" env IBSDN_SLURM_CLUSTER="$dir" slurmd -D -f "$dir/slurm.conf" -N "$node"
  done
  _slurm_lib_wait_idle
}

slurm_idle_nodes() {
  local states
  states=$(timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null) || true
  grep -c ' idle$' <<<"$states" || true
}

_slurm_lib_wait_idle() {
  local dir=$CLUSTER_DIR timeout=${CLUSTER_START_TIMEOUT:-30} states node state exited=()
  local deadline=$((SECONDS + timeout))
  while ((SECONDS < deadline)); do
    for node in "${CLUSTER_NODES[@]}"; do
      proc_alive "slurmd-$node" || exited+=("$node")
    done
    if ((${#exited[@]} > 0)) || ! proc_alive slurmctld; then break; fi
    if [[ $(slurm_idle_nodes) == "${#CLUSTER_NODES[@]}" ]]; then
      # slurmctld prints its SchedulerParameters at the scheduler's first pass.
      wait_for_file_text "$dir/slurmctld.log" '\] SchedulerParameters=' $((deadline - SECONDS)) &&
        return 0
      _slurm_lib_log_tail slurmctld "$dir/slurmctld.log"
      fail "slurmctld's scheduler made no pass within ${timeout} s"
    fi
    sleep 0.2
  done
  if ! proc_alive slurmctld; then
    _slurm_lib_log_tail "slurmctld, stderr" "$WORK/slurmctld.err"
    fail "slurmctld exited while the cluster was starting"
  fi
  if ((${#exited[@]} > 0)); then
    for node in "${exited[@]}"; do
      _slurm_lib_log_tail "slurmd -N $node, stderr" "$WORK/slurmd-$node.err"
    done
    fail "slurmd exited while the cluster was starting: ${exited[*]}"
  fi
  states=$(timeout 10 sinfo -h -N -o '%N %T' 2>&1) || true
  local down=()
  for node in "${CLUSTER_NODES[@]}"; do
    state=$(awk -v n="$node" '$1 == n { print $2 }' <<<"$states")
    [[ $state == idle ]] && continue
    down+=("$node (${state:-unknown to slurmctld})")
    _slurm_lib_log_tail "slurmd -N $node" "$dir/slurmd-$node.log"
  done
  ((${#down[@]} > 0)) || down=("sinfo: $states")
  _slurm_lib_log_tail slurmctld "$dir/slurmctld.log"
  local list
  printf -v list '%s, ' "${down[@]}"
  fail "Slurm nodes not idle after ${timeout} s: ${list%, }"
}

# The daemons, and the slurmstepd they fork, carry the marker IBSDN_SLURM_CLUSTER=DIR in their
# environment; a job's processes are their descendants.
slurm_cluster_leftovers() {  # DIR
  local marker="IBSDN_SLURM_CLUSTER=$1" env_file pid roots=()
  for env_file in /proc/[0-9]*/environ; do
    pid=${env_file#/proc/}
    pid=${pid%/environ}
    ((pid != BASHPID)) || continue
    grep -qzxF -- "$marker" "$env_file" 2>/dev/null && roots+=("$pid")
  done
  ((${#roots[@]} > 0)) || return 0
  ps -e -o pid=,ppid= | awk -v roots="${roots[*]}" '
    BEGIN { n = split(roots, r, " "); for (i = 1; i <= n; i++) keep[r[i]] = 1 }
    { parent[$1] = $2 }
    END {
      for (p in parent) { q = p; while (q in parent && !(q in keep) && q > 1) q = parent[q]; if (q in keep) print p }
    }'
}

slurm_cluster_stop() {
  local dir=${CLUSTER_DIR:-}
  [[ -n $dir ]] || return 0
  local deadline=$((SECONDS + ${CLUSTER_STOP_TIMEOUT:-15})) jobs node
  if proc_alive slurmctld; then
    jobs=$(timeout 10 squeue -h -o %i 2>/dev/null) || true
    if [[ -n $jobs ]]; then
      # shellcheck disable=SC2086  # one id a word
      timeout 10 scancel $jobs 2>/dev/null || true
      while ((SECONDS < deadline)); do
        jobs=$(timeout 10 squeue -h -o %i 2>/dev/null) || break
        [[ -z $jobs ]] && break
        sleep 0.2
      done
      [[ -z $jobs ]] || echo "slurm_cluster_stop: jobs still there after ${CLUSTER_STOP_TIMEOUT:-15} s: $jobs" >&2
    fi
  fi
  for node in "${CLUSTER_NODES[@]}"; do proc_stop "slurmd-$node"; done
  proc_stop slurmctld
  proc_stop munged
  local strays
  strays=$(slurm_cluster_leftovers "$dir")
  local rc=0
  if [[ -n $strays ]]; then
    rc=1
    echo "slurm_cluster_stop: stopping processes left behind by the cluster:" >&2
    # shellcheck disable=SC2086  # one PID a word
    ps -o pid=,args= -p "$(tr '\n' ',' <<<"$strays" | sed 's/,$//')" >&2 || true
    # shellcheck disable=SC2086
    kill -TERM $strays 2>/dev/null || true
    sleep 1
    strays=$(slurm_cluster_leftovers "$dir")
    # shellcheck disable=SC2086
    [[ -z $strays ]] || kill -KILL $strays 2>/dev/null || true
  fi
  CLUSTER_DIR=
  CLUSTER_NODES=()
  unset SLURM_CONF
  return "$rc"
}

# --- jobs ---------------------------------------------------------------------------------------

slurm_submit() {
  local out rc=0
  out=$(sbatch --parsable "$@" 2>&1) || rc=$?
  ((rc == 0)) || fail "sbatch $* refused the job: $out"
  # --parsable prints "ID" or "ID;CLUSTER"; warnings may come first.
  out=${out##*$'\n'}
  printf '%s\n' "${out%%;*}"
}

slurm_job_field() {
  local line
  line=$(timeout 10 scontrol -o show job "$1" 2>/dev/null) || return 0
  sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $line"
}

slurm_wait_job() {
  local id=$1 regex=$2 timeout=$3 state start
  start=$(date +%s.%N)
  while :; do
    state=$(slurm_job_field "$id" JobState)
    [[ $state =~ ^($regex)$ ]] && return 0
    awk -v s="$start" -v t="$timeout" -v now="$(date +%s.%N)" 'BEGIN { exit !(now - s > t) }' && return 1
    sleep 0.1
  done
}
