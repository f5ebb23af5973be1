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
#
# slurmctld allocates a batch job at its next 1 s background tick, so "sched" is uniform over
# 0..1 s whatever one configures: submit times are spread evenly over one second (job i waits
# i/N s after the cluster is idle again) so that the p50 does not depend on the phase.
#
# Usage: slurm_submit_latency.sh [--quick] [--reps N] [--prolog PATH] [--conf LINE]...
#   --reps N       jobs per row (default 20; --quick 5)
#   --prolog PATH  an extra row with this PrologSlurmctld (absolute path to an executable)
#   --conf LINE    a slurm.conf line for every cluster, repeatable; e.g.
#                  "SchedulerParameters=batch_sched_delay=3" for Slurm's default delay
# Exit 77 if Slurm or munge is missing or not root.
set -euo pipefail

reps=20
prolog=""
conf=()
while (($# > 0)); do
  case $1 in
    --quick) reps=5; shift ;;
    --reps) reps=${2:?--reps needs a number}; shift 2 ;;
    --prolog) prolog=${2:?--prolog needs a path}; shift 2 ;;
    --conf) conf+=(--conf "${2?--conf needs a line}"); shift 2 ;;
    *) echo "usage: slurm_submit_latency.sh [--quick] [--reps N] [--prolog PATH] [--conf LINE]..." >&2; exit 2 ;;
  esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "--reps wants a positive number, not '$reps'" >&2; exit 2; }

# shellcheck source-path=SCRIPTDIR source=../tests/slurm/slurm_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/slurm/slurm_lib.sh"
slurm_lib_init slurm-submit-latency
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

# Runs REPS jobs of SIZE nodes one after the other on an idle cluster; appends "SCHED LAUNCH TOTAL"
# lines to FILE.
measure() {  # SIZE FILE
  local size=$1 file=$2 i id t0 first alloc
  for ((i = 0; i < reps; i++)); do
    sleep "$(awk -v i="$i" -v n="$reps" 'BEGIN { printf "%.3f", i / n }')"
    t0=$(date +%s.%N)
    id=$(slurm_submit -N "$size" --chdir="$WORK/jobs" --output="$WORK/jobs/%j.out" --wrap 'date +%s.%N')
    slurm_wait_job "$id" 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL' 30 ||
      fail "job $id ($size nodes) did not end within 30 s: $(slurm_job_field "$id" JobState)"
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
printf 'slurm_submit_latency: %d jobs per row, 8 slurmd on one host (%d CPUs), seconds\n' "$reps" "$(nproc)"
printf '%-28s %5s %9s %9s %9s %9s %9s %9s %9s %9s\n' config nodes "sched50" "sched99" "launch50" \
  "launch99" "total50" "total99" "launch/b" "total/b"
declare -A base_launch base_total
for config in "${configs[@]}"; do
  case $config in
    none) slurm_cluster_start "${conf[@]}" ;;
    true) slurm_cluster_start --prolog-slurmctld /bin/true "${conf[@]}" ;;
    *) slurm_cluster_start --prolog-slurmctld "$config" "${conf[@]}" ;;
  esac
  for size in 4 8; do
    data=$WORK/$size-$(tr -c 'A-Za-z0-9\n' _ <<<"$config").dat
    measure "$size" "$data"
    read -r s50 s99 < <(cut -d' ' -f1 "$data" | percentiles)
    read -r l50 l99 < <(cut -d' ' -f2 "$data" | percentiles)
    read -r t50 t99 < <(cut -d' ' -f3 "$data" | percentiles)
    if [[ $config == none ]]; then
      base_launch[$size]=$l50
      base_total[$size]=$t50
    fi
    printf '%-28s %5d %9s %9s %9s %9s %9s %9s %9s %9s\n' "$config" "$size" "$s50" "$s99" "$l50" "$l99" \
      "$t50" "$t99" "$(awk -v a="$l50" -v b="${base_launch[$size]}" 'BEGIN { printf "%.2f", a / b }')" \
      "$(awk -v a="$t50" -v b="${base_total[$size]}" 'BEGIN { printf "%.2f", a / b }')"
  done
  slurm_cluster_stop
done
