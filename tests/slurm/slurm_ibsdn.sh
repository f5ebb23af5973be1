#!/usr/bin/env bash
# Slurm drives ibsdn, end to end with the real processes: an ibsim XGFT(2;4,4;1,4) whose HCAs are
# the Slurm nodes n0001..n0008 (and 8 more), opensm with libosmsdn.so, one ibsdn-switch-agent per
# switch, and the single-host Slurm cluster of slurm_lib.sh with spank_ibsdn.so in plugstack.conf
# and ibsdn-slurm-hook as PrologSlurmctld / EpilogSlurmctld. Proves:
#  1. sbatch -N4 --sdn-pattern=ring: the job script itself finds its job at the controller and the
#     switches holding exactly the entries the controller intends for it (ibsdnctl flows --job ID
#     [--from-switch], tests/slurm/own_flows.py) before its first line ran; after the job the
#     epilog has removed them;
#  2. a 3dnn job on 8 nodes, and two --oversubscribe jobs on overlapping nodes running together:
#     each finds its entries; afterwards the switches hold nothing;
#  3. a bad --sdn-pattern is refused by sbatch at submit time with the parser's message;
#     a job of another user (nobody) marks a phase and gives hints from inside with ibsdnctl and
#     the C API (libibsdn-hints), while a third uid's ibsdnctl is refused for that job;
#  4. the controller hung (opensm stopped with SIGSTOP): a job still starts, within the hook's
#     TimeoutMs, and the hook logs why (fail open);
#  5. an epilog that fails (the controller not found) leaves the job's entries on the switches;
#     `ibsdn-slurm-hook reconcile` ends the job and they are gone;
#  6. the controller stopped: a job starts at once (fail open); with Strict=yes it is requeued.
# With IBSDN_SLURM_AGENTS=0 the switches run no agent (stock switches): the same proof holds with
# the jobs' routes in the switches' LFTs (install_backend auto; `ibsdnctl flows --from-switch`
# then reads the LFT blocks through OpenSM).
# Usage: [IBSDN_SLURM_AGENTS=0] slurm_ibsdn.sh BUILD_DIR    (as root; exit 77: a required tool
# is missing)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=ibsdn_slurm_lib.sh
source "$here/ibsdn_slurm_lib.sh"
ibsdn_slurm_init slurm-ibsdn "${1:?usage: slurm_ibsdn.sh BUILD_DIR}"

# --- the fabric, the controller, Slurm with the plugin and the hook ----------------------------
ibsdn_slurm_fabric "audit_interval_ms: 1000" "socket_group: nogroup"
"$ctl" ping >/dev/null || fail "ibsdnctl ping"
# Users' jobs (nobody's, section 3) reach the socket: its group, and a way through $WORK.
chmod 711 "$WORK"
jobs=$WORK/jobs
mkdir -m 777 "$jobs"
# shellcheck disable=SC2119  # no options: the defaults
ibsdn_slurm_cluster_start
pass "opensm with the plugin, $( [[ ${IBSDN_SLURM_AGENTS:-1} == 0 ]] && echo "no agent (LFT backend)" || echo "8 agents"), Slurm with 8 nodes, the hook and the SPANK plugin"

submit() {  # sbatch ARG...: the job's output in $jobs/ID.out
  slurm_submit --chdir="$jobs" --output="$jobs/%j.out" "$@"
}
expect_completed() {  # ID WHAT
  slurm_wait_job "$1" 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL' 30 ||
    fail "$2: job $1 still $(slurm_job_field "$1" JobState) after 30 s"
  local state code
  state=$(slurm_job_field "$1" JobState)
  code=$(slurm_job_field "$1" ExitCode)
  [[ $state == COMPLETED && $code == 0:0 ]] ||
    fail "$2: job $1 ended $state ($code): $(cat "$jobs/$1.out" 2>/dev/null); hook: $(tail -n 5 "$WORK/hook.log" 2>/dev/null)"
}
# The job script's first line: its job at the controller, the switches holding exactly the
# entries the controller intends for it (tests/slurm/own_flows.py).
check_own_flows="python3 $here/own_flows.py $ctl \$SLURM_JOB_ID"
if [[ ${IBSDN_SLURM_AGENTS:-1} == 0 ]]; then
  # On stock switches the job also reads its LFT entries with ibroute (umad2sim, as an HCA).
  export IBSDN_OWN_FLOWS_IBROUTE="env LD_PRELOAD=$UMAD2SIM SIM_HOST=n0001 ibroute"
fi
entries_of() {  # ID: the count the job printed
  sed -n 's/^job [0-9]*: \([0-9]*\) entries on the switches.*$/\1/p' "$jobs/$1.out"
}

# --- 1. a ring job finds its flows installed; the epilog removes them -------------------------
ring=$(submit -N4 --sdn-pattern=ring --wrap "$check_own_flows")
expect_completed "$ring" "sbatch -N4 --sdn-pattern=ring"
[[ -n $(entries_of "$ring") ]] || fail "job $ring: $(cat "$jobs/$ring.out")"
grep -q "prolog: job $ring .*ready" "$WORK/hook.log" || fail "hook log has no ready for job $ring"
expect_released "job $ring"
pass "ring job $ring: $(cat "$jobs/$ring.out"); after it, no job and no entry remain"

# --- 2. 3dnn on 8 nodes; two overlapping jobs at the same time --------------------------------
nn=$(submit -N8 --sdn-pattern=3dnn --wrap "$check_own_flows")
expect_completed "$nn" "sbatch -N8 --sdn-pattern=3dnn"
(($(entries_of "$nn") > 0)) || fail "3dnn job $nn: $(cat "$jobs/$nn.out") (DmodK alone routes it?)"
# Each prints the LID offset the SPANK plugin exported (with LMC the two get their own LIDs).
show_offset='echo "lid_offset=${IBSDN_LID_OFFSET-unset} path_bits=${UCX_IB_LID_PATH_BITS-unset}"'
a=$(submit -N4 -w 'n[0001-0002,0005-0006]' --oversubscribe --sdn-pattern=ring --wrap "$check_own_flows; $show_offset; sleep 4")
b=$(submit -N4 -w 'n[0005-0006,0009-0010]' --oversubscribe --sdn-pattern=shift:k=1 --wrap "$check_own_flows; $show_offset; sleep 4")
slurm_wait_job "$a" RUNNING 15 || fail "job $a not running"
slurm_wait_job "$b" RUNNING 15 || fail "job $b not running"
both=$(controller_jobs)
[[ " $both " == *" $a "* && " $both " == *" $b "* ]] ||
  fail "overlapping jobs $a and $b: the controller has '$both'"
expect_completed "$a" "overlapping job a"
expect_completed "$b" "overlapping job b"
offsets=$(sed -n 's/^lid_offset=//p' "$jobs/$a.out" "$jobs/$b.out" | sort | tr '\n' ' ')
if ((${IBSDN_SLURM_LMC:-0} > 0)); then
  [[ $offsets == "0 path_bits=unset 1 path_bits=1 " ]] ||
    fail "overlapping jobs with LMC: the tasks saw '$offsets', not offsets 0 and 1 (path bits 1)"
else
  [[ $offsets == "0 path_bits=unset 0 path_bits=unset " ]] ||
    fail "overlapping jobs without LMC: the tasks saw '$offsets', not offset 0 twice"
fi
expect_released "jobs $nn $a $b"
pass "3dnn job $nn ($(entries_of "$nn") entries) and overlapping jobs $a, $b (at the controller at once: $(entries_of "$a") and $(entries_of "$b") entries) found them installed, with LID offsets ${offsets% }; all released"

# --- 3. a bad pattern is refused at submit time ------------------------------------------------
if out=$(sbatch --parsable -N2 --sdn-pattern=shift:k=0 --wrap true 2>&1); then
  fail "sbatch accepted --sdn-pattern=shift:k=0 (job $out)"
fi
[[ $out == *"must not be 0"* ]] || fail "sbatch's refusal does not carry the parser's message: $out"
pass "bad --sdn-pattern refused at submit: $(head -n 1 <<<"$out")"

# A job runs as nobody (the prolog sends SLURM_JOB_UID 65534) and marks a phase and hints from
# inside, with ibsdnctl (--job: $SLURM_JOB_ID) and the C API; uid 60002 is refused meanwhile.
marks=$(submit -N4 --uid=nobody --sdn-pattern=ring --wrap "set -e
  $ctl job phase --begin exchange --pattern all-to-all
  $ctl --json jobs | grep -q '\"phase\":\"exchange\"'
  $ctl job phase --end exchange
  $ctl job hint --elephant 0:1,2:3
  $hints_check hint 1 0
  echo marked
  sleep 4")
for ((i = 0; i < 100; i++)); do
  grep -q '^marked$' "$jobs/$marks.out" 2>/dev/null && break
  sleep 0.2
done
grep -q '^marked$' "$jobs/$marks.out" 2>/dev/null ||
  fail "job $marks (nobody) did not mark its phase and hints: $(cat "$jobs/$marks.out" 2>/dev/null)"
if out=$(setpriv --reuid=60002 --regid=65534 --clear-groups "$ctl" job phase --job "$marks" \
  --begin exchange --pattern ring 2>&1); then
  fail "uid 60002 marked a phase of nobody's job $marks"
fi
[[ $out == *"forbidden: phase for job $marks is for its owner nobody (uid 65534)"* ]] ||
  fail "uid 60002's refusal for job $marks: $out"
expect_completed "$marks" "nobody's job marking phases"
expect_released "job $marks"
pass "nobody's job $marks marked a phase and hints itself (ibsdnctl, libibsdn-hints); uid 60002 was refused"

# --- 4. controller hung: fail open within TimeoutMs -------------------------------------------
osm_pid=$(proc_pid opensm)
kill -STOP "$osm_pid"
t0=$(date +%s.%N)
hung=$(submit -N4 --sdn-pattern=ring --wrap 'date +%s.%N')
slurm_wait_job "$hung" 'RUNNING|COMPLETING|COMPLETED' 20 ||
  fail "job $hung did not start with the controller hung: $(slurm_job_field "$hung" JobState)"
expect_completed "$hung" "job with the controller hung"
# From sbatch to the job's first line: TimeoutMs (5 s) plus Slurm's scheduling tick (up to 1 s).
started=$(python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.1f}')" \
  "$(head -n 1 "$jobs/$hung.out")" "$t0")
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 8)" "$started" ||
  fail "job $hung started only after ${started}s with the controller hung (TimeoutMs is 5 s)"
grep -q "prolog: job $hung.*failing open" "$WORK/hook.log" ||
  fail "the hook did not log failing open for job $hung: $(tail -n 3 "$WORK/hook.log")"
for ((i = 0; i < 100; i++)); do  # its epilog gives up too
  grep -q "epilog: job $hung" "$WORK/hook.log" && break
  sleep 0.2
done
kill -CONT "$osm_pid"
# Once it runs again, the controller reads the job_start and job_end still queued on its socket;
# reconcile ends whatever of them it holds.
sleep 1
"$hook" --config "$WORK/hook.conf" reconcile || fail "reconcile failed: $(tail -n 3 "$WORK/hook.log")"
expect_released "job $hung after reconcile"
pass "controller hung: job $hung started after ${started}s (TimeoutMs 5 s), the hook failed open"

# --- 5. an epilog that fails leaves entries; reconcile removes them -----------------------------
cp "$WORK/hook.conf" "$WORK/hook.conf.good"
leak=$(submit -N4 --sdn-pattern=ring --wrap "$check_own_flows; sleep 3")
slurm_wait_job "$leak" RUNNING 15 || fail "job $leak not running"
# The epilog will not find the controller.
sed -i "s|^NoticeSocket=.*|NoticeSocket=$WORK/nowhere.sock|" "$WORK/hook.conf"
expect_completed "$leak" "job whose epilog fails"
for ((i = 0; i < 100; i++)); do
  grep -q "epilog: job $leak" "$WORK/hook.log" && break
  sleep 0.2
done
grep -q "epilog: job $leak.*failing open" "$WORK/hook.log" ||
  fail "the epilog of job $leak did not fail: $(tail -n 3 "$WORK/hook.log")"
left=$(switch_entries)
if [[ $(controller_jobs) != "$leak" ]] || ((left == 0)); then
  fail "after the failed epilog: controller jobs '$(controller_jobs)', $left entries"
fi
cp "$WORK/hook.conf.good" "$WORK/hook.conf"
# One KEY=VALUE per --set: the mode after it stays the mode.
"$hook" --config "$WORK/hook.conf" --set "LogFile=$WORK/hook.log" reconcile ||
  fail "reconcile failed: $(tail -n 3 "$WORK/hook.log")"
expect_released "job $leak after reconcile"
grep -q "reconcile: job $leak no longer runs in Slurm: ended" "$WORK/hook.log" ||
  fail "reconcile did not log the job it ended: $(tail -n 3 "$WORK/hook.log")"
pass "job $leak's failed epilog left its $left entries; reconcile ended it: no job, no entry"

# --- 6. controller stopped: fail open at once; Strict=yes requeues ------------------------------
proc_stop opensm
stopped=$(submit -N2 --sdn-pattern=ring --wrap 'echo ran')
expect_completed "$stopped" "job with the controller stopped"
grep -q "prolog: job $stopped.*failing open" "$WORK/hook.log" ||
  fail "the hook did not log failing open for job $stopped"
echo "Strict=yes" >>"$WORK/hook.conf"
strict=$(submit -N2 --sdn-pattern=ring --wrap 'echo ran')
for ((i = 0; i < 100; i++)); do
  restarts=$(slurm_job_field "$strict" Restarts)
  [[ ${restarts:-0} -ge 1 ]] && break
  sleep 0.2
done
((${restarts:-0} >= 1)) || fail "Strict=yes: job $strict was not requeued ($(slurm_job_field "$strict" JobState))"
grep -q "prolog: job $strict.*Strict=yes: exit 1" "$WORK/hook.log" ||
  fail "the hook did not log the strict failure for job $strict"
scancel "$strict"
pass "controller stopped: job $stopped ran on the default routes; with Strict=yes job $strict was requeued"
