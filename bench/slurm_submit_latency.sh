#!/usr/bin/env bash
# How long a batch job takes from `sbatch` to its first line on the single-host Slurm cluster of
# tests/slurm/slurm_lib.sh (8 nodes), for 4- and 8-node jobs on an idle cluster: the baseline that
# ibsdn's PrologSlurmctld hook is measured against. Per row: p50 and p99 (nearest rank: the
# largest of fewer than 100 jobs) of
#   sched   sbatch started -> slurmctld allocates the job (logs "sched: Allocate JobId=N", or
#           "sched/backfill: _start_job: Started JobId=N" when the backfill pass came first); the
#           job is RUNNING then, or CONFIGURING while a PrologSlurmctld runs
#   launch  that log line -> the job script's first line ran (PrologSlurmctld, batch launch, slurmstepd)
#   total   sbatch started -> the job script's first line ran
# and total and launch p50 over those of the row "none" of the same size (no PrologSlurmctld).
# Rows: "none"; "true" (PrologSlurmctld=/bin/true: what Slurm's prolog machinery alone costs);
# with --prolog PATH also that prolog. Each configuration is a fresh cluster.
# With --ibsdn BUILD_DIR the cluster's nodes are HCAs of an ibsim fabric run by opensm with ibsdn's
# plugin and agents (tests/slurm/ibsdn_slurm_lib.sh), and rows follow with spank_ibsdn.so and
# ibsdn-slurm-hook as PrologSlurmctld / EpilogSlurmctld (ConnectTimeoutMs 2000, TimeoutMs 5000):
#   "hook, ring" / "hook, 3dnn"  jobs with --sdn-pattern (ring on 4 nodes, 3dnn on 8 likewise):
#                 the job starts once its entries are on the switches
#   "hook, no pattern"           jobs without --sdn-pattern (DefaultPattern none): the hook asks
#                 nothing of the controller
#   "hook, ctl stopped"          opensm not running: the hook fails open at connect
#   "hook, ctl hung"             opensm stopped with SIGSTOP: the hook fails open after TimeoutMs
#                 (at most --hung-reps jobs, default 3: each costs TimeoutMs twice, prolog and epilog)
# and after the rows, the controller must hold no job and the switches no entry (after a
# reconcile for the jobs whose job_end it could not take while stopped).
#
# slurmctld allocates a batch job at its next 1 s background tick, so "sched" is uniform over
# 0..1 s whatever one configures: submit times are spread evenly over one second (job i waits
# i/N s after the cluster is idle again) so that the p50 does not depend on the phase.
#
# Usage: slurm_submit_latency.sh [--quick] [--reps N] [--prolog PATH] [--conf LINE]...
#                                [--ibsdn BUILD_DIR [--hung-reps N]]
#   --reps N       jobs per row (default 20; --quick 5)
#   --prolog PATH  an extra row with this PrologSlurmctld (absolute path to an executable)
#   --conf LINE    a slurm.conf line for every cluster, repeatable; e.g.
#                  "SchedulerParameters=batch_sched_delay=3" for Slurm's default delay
# Exit 77 if Slurm or munge is missing or not root.
set -euo pipefail

usage="usage: slurm_submit_latency.sh [--quick] [--reps N] [--prolog PATH] [--conf LINE]... [--ibsdn BUILD_DIR [--hung-reps N]]"
reps=20
hung_reps=3
prolog=""
ibsdn=""
conf=()
while (($# > 0)); do
  case $1 in
    --quick) reps=5; shift ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --hung-reps) hung_reps=${2:?--hung-reps needs a number}; shift 2 ;;
    --prolog) prolog=${2:?--prolog needs a path}; shift 2 ;;
    --ibsdn) ibsdn=${2:?--ibsdn needs the build directory}; shift 2 ;;
    --conf) conf+=(--conf "${2?--conf needs a line}"); shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
for n in "$reps" "$hung_reps"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "--reps and --hung-reps want a positive number, not '$n'" >&2; exit 2; }
done

if [[ -n $ibsdn ]]; then
  # shellcheck source-path=SCRIPTDIR source=../tests/slurm/ibsdn_slurm_lib.sh
  source "$(dirname "${BASH_SOURCE[0]}")/../tests/slurm/ibsdn_slurm_lib.sh"
  ibsdn_slurm_init slurm-submit-latency "$ibsdn"
  # shellcheck disable=SC2119  # no extra configuration lines
  ibsdn_slurm_fabric
  nodes=("${IBSDN_SLURM_NODES[@]}")
else
  # shellcheck source-path=SCRIPTDIR source=../tests/slurm/slurm_lib.sh
  source "$(dirname "${BASH_SOURCE[0]}")/../tests/slurm/slurm_lib.sh"
  slurm_lib_init slurm-submit-latency
  nodes=()
fi
mkdir -m 777 "$WORK/jobs"

# Prints the seconds since the epoch of slurmctld's first log line for JOBID that matches the
# extended regex WHAT.
log_time() {  # LOG WHAT JOBID
  local line
  line=$(grep -m1 -E "($2) JobId=$3 " "$1") || fail "no '$2 JobId=$3' in $1"
  line=${line#[}
  date -d "${line%%]*}" +%s.%N
}

# Prints "P50 P99" (nearest rank) of the numbers on stdin.
percentiles() {
  sort -g | awk '{ v[NR] = $1 }
    END { i50 = int(NR * 0.50); if (i50 < NR * 0.50) i50++; i99 = int(NR * 0.99); if (i99 < NR * 0.99) i99++
          printf "%.3f %.3f\n", v[i50], v[i99] }'
}

# Runs N jobs of SIZE nodes (sbatch with ARG... too) one after the other on an idle cluster;
# appends "SCHED LAUNCH TOTAL" lines to FILE.
measure() {  # N SIZE FILE [ARG...]
  local n=$1 size=$2 file=$3 i id t0 first alloc
  shift 3
  for ((i = 0; i < n; i++)); do
    sleep "$(awk -v i="$i" -v n="$n" 'BEGIN { printf "%.3f", i / n }')"
    t0=$(date +%s.%N)
    id=$(slurm_submit -N "$size" "$@" --chdir="$WORK/jobs" --output="$WORK/jobs/%j.out" --wrap 'date +%s.%N')
    slurm_wait_job "$id" 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL' 40 ||
      fail "job $id ($size nodes) did not end within 40 s: $(slurm_job_field "$id" JobState)"
    [[ $(slurm_job_field "$id" JobState) == COMPLETED ]] ||
      fail "job $id ended $(slurm_job_field "$id" JobState), reason $(slurm_job_field "$id" Reason)"
    first=$(head -n 1 "$WORK/jobs/$id.out")
    alloc=$(log_time "$CLUSTER_DIR/slurmctld.log" "sched: Allocate|_start_job: Started" "$id")
    awk -v t0="$t0" -v a="$alloc" -v f="$first" 'BEGIN { printf "%.6f %.6f %.6f\n", a - t0, f - a, f - t0 }' >>"$file"
    local k
    for ((k = 0; k < 300; k++)); do
      [[ $(slurm_idle_nodes) == "${#CLUSTER_NODES[@]}" ]] && break
      sleep 0.05
    done
  done
}

configs=(none true)
[[ -z $prolog ]] || configs+=("$prolog")
[[ -z $ibsdn ]] || configs+=("hook, pattern" "hook, no pattern" "hook, ctl stopped" "hook, ctl hung")
printf 'slurm_submit_latency: %d jobs per row (hung: %d), 8 slurmd on one host (%d CPUs), seconds\n' \
  "$reps" "$hung_reps" "$(nproc)"
printf '%-28s %5s %9s %9s %9s %9s %9s %9s %9s %9s\n' config nodes "sched50" "sched99" "launch50" \
  "launch99" "total50" "total99" "launch/b" "total/b"
declare -A base_launch base_total
for config in "${configs[@]}"; do
  case $config in
    none) slurm_cluster_start "${conf[@]}" "${nodes[@]}" ;;
    true) slurm_cluster_start --prolog-slurmctld /bin/true "${conf[@]}" "${nodes[@]}" ;;
    hook,*)
      ibsdn_slurm_cluster_start "${conf[@]}"
      case $config in
        *stopped) proc_stop opensm ;;
        *hung) kill -STOP "$(proc_pid opensm)" ;;
      esac
      ;;
    *) slurm_cluster_start --prolog-slurmctld "$config" "${conf[@]}" "${nodes[@]}" ;;
  esac
  for size in 4 8; do
    n=$reps
    args=()
    row=$config
    case $config in
      *", pattern")
        if ((size == 4)); then args=(--sdn-pattern=ring); else args=(--sdn-pattern=3dnn); fi
        row="hook, ${args[0]#--sdn-pattern=}"
        ;;
      *"no pattern") ;;
      *stopped) args=(--sdn-pattern=ring) ;;
      *hung) args=(--sdn-pattern=ring); n=$hung_reps ;;
    esac
    data=$WORK/$size-$(tr -c 'A-Za-z0-9\n' _ <<<"$config").dat
    measure "$n" "$size" "$data" "${args[@]}"
    read -r s50 s99 < <(cut -d' ' -f1 "$data" | percentiles)
    read -r l50 l99 < <(cut -d' ' -f2 "$data" | percentiles)
    read -r t50 t99 < <(cut -d' ' -f3 "$data" | percentiles)
    if [[ $config == none ]]; then
      base_launch[$size]=$l50
      base_total[$size]=$t50
    fi
    printf '%-28s %5d %9s %9s %9s %9s %9s %9s %9s %9s\n' "$row" "$size" "$s50" "$s99" "$l50" "$l99" \
      "$t50" "$t99" "$(awk -v a="$l50" -v b="${base_launch[$size]}" 'BEGIN { printf "%.2f", a / b }')" \
      "$(awk -v a="$t50" -v b="${base_total[$size]}" 'BEGIN { printf "%.2f", a / b }')"
  done
  case $config in
    *stopped) controller_start ;;
    *hung)
      # The controller reads the job_start / job_end still queued on its socket once it runs
      # again; reconcile ends what it holds of jobs that Slurm no longer runs.
      kill -CONT "$(proc_pid opensm)"
      sleep 2
      "$hook" --config "$WORK/hook.conf" reconcile 2>"$WORK/reconcile.err" ||
        fail "reconcile after the hung controller: $(tail -n 3 "$WORK/reconcile.err")"
      expect_released "after the rows with the controller hung"
      printf 'after the rows: the controller holds no job, the switches no entry\n'
      ;;
  esac
  slurm_cluster_stop
done
