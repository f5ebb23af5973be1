#!/usr/bin/env bash
# Nothing leaks under churn: many Slurm jobs through ibsdn (tests/slurm/ibsdn_slurm_lib.sh: ibsim
# XGFT(2;4,4;1,4), opensm with the plugin, 8 agents, 8 slurmd, the SPANK plugin and the hook) while
#  - a share of the epilogs fails (the hook is pointed at a socket where no controller listens,
#    chosen per job id from the seed: the job's entries stay behind),
#  - the controller is restarted during the churn, stopped with TERM, the second time killed with
#    KILL (only once: a killed ibsim client keeps its slot of ibsim's 10); jobs starting meanwhile
#    fail open, jobs ending meanwhile leave their entries,
#  - `ibsdn-slurm-hook reconcile` runs every --reconcile-every seconds, as its systemd timer would.
# Jobs: sizes 1-8 nodes, patterns ring, 3dnn, shift:k=1, random4 or none, 0-1 s long, half of
# them --oversubscribe, at most --queue of them queued or running at a time.
# Afterwards one job runs on and a last reconcile is made: the controller must hold exactly that
# job, the switches exactly its entries (what the controller intends for it, read back from
# every switch, audit without differences); once it ends, nothing. Prints what happened (jobs,
# prologs ready / failed open, epilogs failed, restarts, reconcile ends, what was left before the
# last reconcile) and fails if anything leaked.
#
# Usage: slurm_churn.sh BUILD_DIR [--jobs N] [--seed S] [--epilog-fail-percent P] [--restarts K]
#                                 [--queue Q] [--reconcile-every S]
#   defaults: 60 jobs, seed 1, 15 % failed epilogs, 2 restarts, queue 12, reconcile every 20 s
#   (CI); the figures in bench/README.md come from --jobs 500 --restarts 6.
# As root; exit 77 when a required tool is missing.
set -euo pipefail

usage="usage: slurm_churn.sh BUILD_DIR [--jobs N] [--seed S] [--epilog-fail-percent P] [--restarts K] [--queue Q] [--reconcile-every S]"
build=${1:?$usage}
shift
jobs_total=60
seed=1
fail_percent=15
restarts=2
queue=12
reconcile_every=20
while (($# > 0)); do
  case $1 in
    --jobs) jobs_total=${2:?$usage}; shift 2 ;;
    --seed) seed=${2:?$usage}; shift 2 ;;
    --epilog-fail-percent) fail_percent=${2:?$usage}; shift 2 ;;
    --restarts) restarts=${2:?$usage}; shift 2 ;;
    --queue) queue=${2:?$usage}; shift 2 ;;
    --reconcile-every) reconcile_every=${2:?$usage}; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
for v in "$jobs_total" "$seed" "$fail_percent" "$restarts" "$queue" "$reconcile_every"; do
  [[ $v =~ ^[0-9]+$ ]] || { echo "slurm_churn.sh: '$v' is not a number; $usage" >&2; exit 2; }
done
((jobs_total >= 1 && fail_percent <= 100 && queue >= 1 && reconcile_every >= 1)) ||
  { echo "slurm_churn.sh: --jobs, --queue and --reconcile-every want at least 1, --epilog-fail-percent at most 100" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=ibsdn_slurm_lib.sh
source "$here/ibsdn_slurm_lib.sh"
ibsdn_slurm_init slurm-churn "$build"
ibsdn_slurm_fabric "audit_interval_ms: 5000"

# The hook as slurmctld runs it, failing the epilogs of the chosen jobs: those whose id hashes
# (Knuth's multiplicative hash with the seed) below the percentage. Only jobs with a pattern
# (SPANK_SDN_PATTERN, from spank_ibsdn.so) are counted: the others' epilogs send nothing anyway.
cat >"$WORK/hook.sh" <<EOF
#!/bin/bash
if [[ \${SLURM_SCRIPT_CONTEXT:-} == epilog_slurmctld ]] &&
  (( ((\${SLURM_JOB_ID:-0} + $seed) * 2654435761 % 4294967296) % 100 < $fail_percent )); then
  [[ -z \${SPANK_SDN_PATTERN:-} ]] || echo "\$SLURM_JOB_ID" >>"$WORK/epilog-failed"
  exec $hook --config $WORK/hook.conf --set NoticeSocket=$WORK/nowhere.sock
fi
exec $hook --config $WORK/hook.conf
EOF
jobs=$WORK/jobs
mkdir -m 777 "$jobs"
# shellcheck disable=SC2119  # no options: the defaults
ibsdn_slurm_cluster_start

# The reconcile timer.
cat >"$WORK/reconciler.sh" <<EOF
#!/bin/bash
while :; do
  sleep $reconcile_every
  $hook --config $WORK/hook.conf reconcile || true
done
EOF
chmod 755 "$WORK/reconciler.sh"
proc_start reconciler "$WORK/reconciler.sh"

queued() { squeue -h -t PENDING,CONFIGURING,RUNNING,COMPLETING | wc -l; }

RANDOM=$seed
sizes=(1 2 2 3 4 4 6 8)
patterns=(ring 3dnn shift:k=1 random4 none)
durations=(0 0.2 0.5 1)
restart_every=$((jobs_total / (restarts + 1)))
restarted=0
started=$SECONDS
for ((i = 1; i <= jobs_total; i++)); do
  while (($(queued) >= queue)); do sleep 0.1; done
  if ((restarts > 0 && i % restart_every == 0 && restarted < restarts)); then
    signal=TERM
    ((restarted == 1)) && signal=KILL
    proc_stop opensm "$signal"
    controller_start
    restarted=$((restarted + 1))
  fi
  args=(-N "${sizes[RANDOM % ${#sizes[@]}]}")
  pattern=${patterns[RANDOM % ${#patterns[@]}]}
  [[ $pattern == none ]] || args+=("--sdn-pattern=$pattern")
  ((RANDOM % 2 == 0)) && args+=(--oversubscribe)
  slurm_submit "${args[@]}" --chdir="$jobs" --output="$jobs/%j.out" \
    --wrap "sleep ${durations[RANDOM % ${#durations[@]}]}" >>"$WORK/submitted"
done
for ((i = 0; i < 1200 && $(queued) > 0; i++)); do sleep 0.1; done
(($(queued) == 0)) || fail "jobs still queued 120 s after the last submission: $(squeue -h | head -n 5)"
churn_seconds=$((SECONDS - started))
proc_stop reconciler

# What the churn left: jobs the controller holds, entries on the switches.
left_jobs=$(wc -w <<<"$(controller_jobs)")
left_entries=$(switch_entries)
ended_by_timer=$(grep -cE 'reconcile: job [0-9]+ no longer runs in Slurm: ended' "$WORK/hook.log" || true)

# One job runs on; the last reconcile must leave exactly it.
last=$(slurm_submit -N8 --sdn-pattern=3dnn --chdir="$jobs" --output="$jobs/%j.out" --wrap 'sleep 60')
for ((i = 0; i < 300; i++)); do
  grep -qE "prolog: job $last .*ready" "$WORK/hook.log" && break
  sleep 0.1
done
grep -qE "prolog: job $last .*ready" "$WORK/hook.log" || fail "job $last: no ready in the hook log"
"$hook" --config "$WORK/hook.conf" reconcile 2>"$WORK/reconcile.err" ||
  fail "the last reconcile: $(tail -n 3 "$WORK/reconcile.err")"
[[ $(controller_jobs) == "$last" ]] ||
  fail "after the last reconcile the controller holds jobs '$(controller_jobs)', not just job $last"
python3 "$here/own_flows.py" "$ctl" "$last" >"$WORK/own.out" ||
  fail "job $last after the last reconcile: $(cat "$WORK/own.out")"
intended=$(sed -n 's/^job [0-9]*: \([0-9]*\) entries on the switches$/\1/p' "$WORK/own.out")
held=$(switch_entries)
((intended > 0)) || fail "job $last (3dnn on 8 nodes) has no entries: DmodK alone routes it?"
((held == intended)) ||
  fail "after the last reconcile the switches hold $held entries, job $last $intended of them"
"$ctl" audit >"$WORK/audit.out" || fail "audit after the last reconcile: $(cat "$WORK/audit.out")"
scancel "$last"
expect_released "job $last, cancelled"

count() { grep -cE "$1" "$WORK/hook.log" || true; }
submitted=$(wc -l <"$WORK/submitted")
printf 'slurm_churn: %d jobs in %d s (seed %d, queue %d), %d controller restarts (TERM/KILL), reconcile every %d s\n' \
  "$submitted" "$churn_seconds" "$seed" "$queue" "$restarted" "$reconcile_every"
printf '  prologs: %d ready, %d failed open; epilogs: %d ended, %d of jobs the controller did not know, %d failed (%d failures injected)\n' \
  "$(count 'prolog: job [0-9]+ .*ready')" "$(count 'prolog: .*failing open')" \
  "$(count 'epilog: job [0-9]+.*: ended')" "$(count 'epilog: job [0-9]+.*has no routes for it')" \
  "$(count 'epilog: .*failing open')" "$(sort -u "$WORK/epilog-failed" 2>/dev/null | wc -l)"
printf '  reconcile ended %d jobs Slurm no longer ran: %d on the timer, %d in the last reconcile\n' \
  "$(count 'reconcile: job [0-9]+ no longer runs in Slurm: ended')" "$ended_by_timer" \
  "$(($(count 'reconcile: job [0-9]+ no longer runs in Slurm: ended') - ended_by_timer))"
printf '  before the last reconcile: %d controller jobs, %d switch entries left by the churn\n' \
  "$left_jobs" "$left_entries"
printf '  after it: the controller held only job %d, the switches exactly its %d entries (audit clean); after it ended, nothing\n' \
  "$last" "$intended"
pass "churn of $submitted jobs with failed epilogs and $restarted controller restarts: nothing leaked"
