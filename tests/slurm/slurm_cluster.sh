#!/usr/bin/env bash
# The single-host Slurm cluster of slurm_lib.sh, end to end, with the Slurm behaviour the ibsdn
# hook relies on: 8 nodes come up idle; a 4-node batch job runs and completes; two --oversubscribe
# jobs run at the same time on overlapping nodes while a job without it waits; a PrologSlurmctld
# runs before the job's first line with SLURM_JOB_ID and SLURM_JOB_NODELIST (and no PATH) in its
# environment, and an EpilogSlurmctld after the job; a failing PrologSlurmctld requeues a batch
# job (which waits cred_expire + 1 s before its next try and runs once the prolog succeeds) and
# cancels a --no-requeue job without running either; the stop leaves no process behind.
#
# Usage: slurm_cluster.sh    (as root; exit 77 if Slurm or munge is missing)
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/slurm_lib.sh"
slurm_lib_init slurm-cluster

jobs=$WORK/jobs
mkdir -m 777 "$jobs"

# PrologSlurmctld / EpilogSlurmctld: record the environment they run with (PATH included: Slurm
# gives them none, so only absolute paths work). The prolog fails for jobs with the comment
# "fail-prolog" until $WORK/prolog-recovered exists.
cat >"$WORK/prolog.sh" <<EOF
#!/bin/bash
/usr/bin/env >"$jobs/prolog.\$SLURM_JOB_ID.\${SLURM_JOB_RESTART_COUNT:-0}"
if [[ \$SLURM_JOB_COMMENT == fail-prolog && ! -e $WORK/prolog-recovered ]]; then exit 3; fi
exit 0
EOF
cat >"$WORK/epilog.sh" <<EOF
#!/bin/bash
/usr/bin/env >"$jobs/epilog.\$SLURM_JOB_ID"
EOF
chmod 755 "$WORK/prolog.sh" "$WORK/epilog.sh"

# cred_expire 5 s: a requeued job may start again after 6 s instead of 121 s, and does so at the
# next full scheduler pass (every second instead of 60: no event wakes the scheduler for it).
slurm_cluster_start --prolog-slurmctld "$WORK/prolog.sh" --epilog-slurmctld "$WORK/epilog.sh" \
  --cred-expire 5 --sched-param sched_interval=1
[[ $(slurm_idle_nodes) == 8 ]] || fail "expected 8 idle nodes, sinfo says $(slurm_idle_nodes)"
pass "8 nodes idle: ${CLUSTER_NODES[*]}"

submit() {  # sbatch ARG... with the job's output in $jobs/ID.out
  slurm_submit --chdir="$jobs" --output="$jobs/%j.out" "$@"
}

# Fails unless job ID ended COMPLETED with exit code 0.
expect_completed() {  # ID WHAT
  slurm_wait_job "$1" 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY' 20 ||
    fail "$2: job $1 still $(slurm_job_field "$1" JobState) after 20 s (reason $(slurm_job_field "$1" Reason))"
  local state code
  state=$(slurm_job_field "$1" JobState)
  code=$(slurm_job_field "$1" ExitCode)
  [[ $state == COMPLETED && $code == 0:0 ]] ||
    fail "$2: job $1 ended $state, exit code $code; output: $(cat "$jobs/$1.out" 2>/dev/null)"
}

# Waits (TIMEOUT_S) until FILE exists.
wait_file() {  # FILE TIMEOUT_S
  local i
  for ((i = 0; i < $2 * 10; i++)); do
    [[ -e $1 ]] && return 0
    sleep 0.1
  done
  return 1
}

# --- a 4-node job, and a job that finds what the prolog wrote before its first line ---
# Job scripts (sbatch --wrap: /bin/sh) find $jobs in their environment, which sbatch passes on.
export TEST_JOBS=$jobs
hostname_job=$(submit -N4 --wrap 'hostname')
# shellcheck disable=SC2016  # the job's shell expands them
prolog_job=$(submit -N4 --wrap '
f=$TEST_JOBS/prolog.$SLURM_JOB_ID.0
[ -f "$f" ] || { echo "no $f before the first line"; exit 1; }
grep -qxF "SLURM_JOB_ID=$SLURM_JOB_ID" "$f" || { echo "$f: SLURM_JOB_ID differs"; exit 2; }
grep -qxF "SLURM_JOB_NODELIST=$SLURM_JOB_NODELIST" "$f" || { echo "$f: SLURM_JOB_NODELIST differs"; exit 3; }
echo "prolog seen for $SLURM_JOB_ID on $SLURM_JOB_NODELIST"')
expect_completed "$hostname_job" "sbatch -N4 --wrap hostname"
[[ $(slurm_job_field "$hostname_job" NumNodes) == 4 ]] ||
  fail "job $hostname_job has $(slurm_job_field "$hostname_job" NumNodes) nodes, expected 4"
[[ $(cat "$jobs/$hostname_job.out") == "$CLUSTER_HOST" ]] ||
  fail "job $hostname_job printed '$(cat "$jobs/$hostname_job.out")', expected '$CLUSTER_HOST'"
pass "sbatch -N4 --wrap hostname: COMPLETED on $(slurm_job_field "$hostname_job" NodeList)"

expect_completed "$prolog_job" "prolog before the first line"
nodelist=$(slurm_job_field "$prolog_job" NodeList)
grep -qxF "SLURM_JOB_NODELIST=$nodelist" "$jobs/prolog.$prolog_job.0" ||
  fail "the prolog saw $(grep SLURM_JOB_NODELIST "$jobs/prolog.$prolog_job.0"), the job ran on $nodelist"
grep -qxF "SLURM_JOB_NUM_NODES=4" "$jobs/prolog.$prolog_job.0" || fail "the prolog did not see SLURM_JOB_NUM_NODES=4"
! grep -q "^PATH=" "$jobs/prolog.$prolog_job.0" ||
  fail "PrologSlurmctld now runs with a PATH ($(grep "^PATH=" "$jobs/prolog.$prolog_job.0")): update docs/architecture.md, 'Facts and pitfalls on Debian 12'"
pass "PrologSlurmctld ran before job $prolog_job's first line with SLURM_JOB_ID, SLURM_JOB_NODELIST=$nodelist, no PATH"
wait_file "$jobs/epilog.$prolog_job" 10 || fail "no EpilogSlurmctld for job $prolog_job within 10 s"
grep -qxF "SLURM_JOB_ID=$prolog_job" "$jobs/epilog.$prolog_job" || fail "the epilog did not see SLURM_JOB_ID=$prolog_job"
pass "EpilogSlurmctld ran after job $prolog_job"

# --- two --oversubscribe jobs on overlapping nodes at the same time; a plain job waits ---
# Each job marks that it started, then waits for the other's mark and for the release: both end
# COMPLETED only if they ran at the same time.
pair_script() {  # ME OTHER
  sed -e "s/ME/$1/g" -e "s/OTHER/$2/g" <<'EOF'
touch "$TEST_JOBS/ME.started"
i=0
while [ $i -lt 300 ]; do
  [ -e "$TEST_JOBS/OTHER.started" ] && [ -e "$TEST_JOBS/release" ] && exit 0
  sleep 0.1; i=$((i + 1))
done
echo "timed out waiting for OTHER and the release"; exit 1
EOF
}
job_a=$(submit -N4 -w n0001,n0002,n0003,n0004 --oversubscribe --wrap "$(pair_script a b)")
job_b=$(submit -N4 -w n0003,n0004,n0005,n0006 --oversubscribe --wrap "$(pair_script b a)")
if ! wait_file "$jobs/a.started" 15 || ! wait_file "$jobs/b.started" 15; then
  fail "the overlapping jobs did not both start: $job_a $(slurm_job_field "$job_a" JobState), $job_b $(slurm_job_field "$job_b" JobState) ($(slurm_job_field "$job_b" Reason))"
fi
plain_job=$(submit -N1 -w n0004 --wrap 'true')
# Two scheduler ticks: a plain job on n0004 would have started by then if the node were free.
sleep 2.5
[[ $(slurm_job_field "$plain_job" JobState) == PENDING ]] ||
  fail "job $plain_job without --oversubscribe is $(slurm_job_field "$plain_job" JobState) on a node of two running jobs"
plain_reason=$(slurm_job_field "$plain_job" Reason)
touch "$jobs/release"
expect_completed "$job_a" "overlapping job a"
expect_completed "$job_b" "overlapping job b"
expect_completed "$plain_job" "plain job after the overlapping pair"
pass "--oversubscribe jobs $job_a ($(slurm_job_field "$job_a" NodeList)) and $job_b ($(slurm_job_field "$job_b" NodeList)) ran together; job $plain_job on n0004 without it waited ($plain_reason)"

# --- a failing PrologSlurmctld ---
requeued=$(submit -N2 --comment=fail-prolog --wrap 'echo ran')
cancelled=$(submit -N2 --comment=fail-prolog --no-requeue --wrap 'echo ran')
wait_file "$jobs/prolog.$requeued.0" 10 || fail "no prolog for job $requeued within 10 s"
slurm_wait_job "$cancelled" CANCELLED 10 ||
  fail "--no-requeue job $cancelled is $(slurm_job_field "$cancelled" JobState) after its prolog failed, expected CANCELLED"
for ((i = 0; i < 50; i++)); do
  [[ $(slurm_job_field "$requeued" Restarts) == 1 ]] && break
  sleep 0.1
done
state=$(slurm_job_field "$requeued" JobState)
[[ $state == PENDING && $(slurm_job_field "$requeued" Restarts) == 1 ]] ||
  fail "job $requeued is $state with $(slurm_job_field "$requeued" Restarts) restarts after its prolog failed, expected PENDING, 1"
grep -q "Requeuing JobId=$requeued\$" "$CLUSTER_DIR/slurmctld.log" || fail "slurmctld did not log 'Requeuing JobId=$requeued'"
eligible=$(slurm_job_field "$requeued" EligibleTime)
[[ ! -e $jobs/$requeued.out && ! -e $jobs/$cancelled.out ]] || fail "a job whose prolog failed ran its script"
pass "failing prolog: batch job $requeued requeued (PENDING, Restarts=1, eligible at $eligible), --no-requeue job $cancelled CANCELLED, neither ran"
touch "$WORK/prolog-recovered"
expect_completed "$requeued" "requeued job once the prolog succeeds"
[[ $(cat "$jobs/$requeued.out") == ran ]] || fail "requeued job $requeued printed '$(cat "$jobs/$requeued.out")'"
grep -qxF "SLURM_JOB_RESTART_COUNT=1" "$jobs/prolog.$requeued.1" || fail "the second prolog of job $requeued did not see SLURM_JOB_RESTART_COUNT=1"
pass "requeued job $requeued ran once its prolog succeeded (second prolog with SLURM_JOB_RESTART_COUNT=1)"

# --- the stop: a running job is cancelled and nothing of the cluster is left ---
# shellcheck disable=SC2016
sleeper=$(submit -N8 --wrap 'echo $$ >"$TEST_JOBS/sleeper.pid"; exec sleep 300')
wait_file "$jobs/sleeper.pid" 15 || fail "job $sleeper did not start: $(slurm_job_field "$sleeper" JobState)"
sleeper_pid=$(cat "$jobs/sleeper.pid")
daemon_pids=("$(proc_pid munged)" "$(proc_pid slurmctld)")
for node in "${CLUSTER_NODES[@]}"; do daemon_pids+=("$(proc_pid "slurmd-$node")"); done
dir=$CLUSTER_DIR
slurm_cluster_stop || fail "the stop had to kill processes left behind (see above)"
for pid in "$sleeper_pid" "${daemon_pids[@]}"; do
  ! kill -0 "$pid" 2>/dev/null || fail "process $pid ($(ps -o args= -p "$pid")) still runs after the stop"
done
leftover=$(slurm_cluster_leftovers "$dir")
[[ -z $leftover ]] || fail "processes of the cluster still run after the stop: $leftover"
pass "stopped: job $sleeper's processes, munged, slurmctld and the 8 slurmd are gone"
echo "PASS"
