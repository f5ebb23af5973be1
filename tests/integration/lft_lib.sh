# The LFT backend's proofs on an ibsim fabric without switch agents (lft_backend_ibsim.sh,
# lft_lmc_ibsim.sh): the fabric and opensm with the plugin, the switches' LFTs as ibroute prints
# them, paths as ibtracert and `ibsdnctl route` give them, and the comparisons of both with the
# controller's intent. Sourced after ibsim_lib.sh, ibsim_lib_init and ibsdn_programs; uses $WORK,
# $ctl, $xgft, and the arrays `switches` and `hosts` (names from the netlist).
# shellcheck shell=bash disable=SC2154

csv() { local IFS=,; echo "$*"; }

# Starts ibsim on $WORK/fabric.net and opensm with the plugin (ARG...: opensm's options), waits for
# the controller's first audit, and reads every LID from the fabric into `switch_lid[NAME]` and
# `host_lid[NAME]` (base LIDs). LMC: the LMC opensm was given (0 without -l). Skips (77) a fabric
# whose top LID ibroute cannot show.
lft_bed_up() {  # LMC ARG...
  local lids_per_host=$((1 << $1)) lid name h
  shift
  cat >"$WORK/ibsdn.yaml" <<CONF
notice_socket: $WORK/notice.sock
state_dir: $WORK/state
switch_key: 0x5eed
mad: {timeout_ms: 100, retries: 1}
job_start_timeout_ms: 10000
audit_interval_ms: 0
CONF
  chmod 600 "$WORK/ibsdn.yaml"

  ibsim_start "$WORK/fabric.net"
  osm_dir=$WORK/osm
  opensm_conf "$osm_dir" "event_plugin_name osmsdn" "event_plugin_options config=$WORK/ibsdn.yaml"
  mark=$(file_size "$osm_dir/opensm.log")
  opensm_start opensm "$osm_dir" "$@"
  opensm_wait_audit "$osm_dir" 60 "$mark"
  "$ctl" ping >/dev/null || fail "ibsdnctl ping"

  # Switch and host LIDs, as the fabric reports them (ibswitches; ibaddr on each host).
  declare -gA switch_lid=() host_lid=()
  while read -r _ name lid; do
    switch_lid[$name]=$lid
  done < <(sim_run "${hosts[0]}" ibswitches 2>/dev/null |
    sed -n 's/^Switch\t: \(0x[0-9a-f]*\) ports [0-9]* "\([^"]*\)".* lid \([0-9]*\) .*/\1 \2 \3/p')
  ((${#switch_lid[@]} == ${#switches[@]})) || fail "ibswitches named ${#switch_lid[@]} of ${#switches[@]} switches"
  for h in "${hosts[@]}"; do
    lid=$(sim_run "$h" ibaddr 2>/dev/null | sed -n 's/.*LID start \(0x[0-9a-f]*\).*/\1/p')
    [[ -n $lid ]] || fail "ibaddr on $h printed no LID"
    host_lid[$h]=$((lid))
  done
  # The top LID (a host's LMC aliases included: LIDs are given in 2^LMC-aligned steps).
  top=0
  for lid in "${switch_lid[@]}" "${host_lid[@]}"; do
    if ((lid + lids_per_host - 1 > top)); then top=$((lid + lids_per_host - 1)); fi
  done
  ((top % 64 != 0)) || skip "XGFT($xgft) has top LID $top: ibroute cannot show it (see dump_all)"
}

# Every switch's LFT as ibroute prints it (LID-routed SubnGet from the first host; -n: without
# resolving each LID's node, 3 SMPs a LID), one file each. ibroute (infiniband-diags 44) never
# reads the block that holds LinearFDBTop when the top is a multiple of 64 (its last block is
# ALIGN(top, 64) / 64, exclusive), so a fabric whose top LID is 64, 128, ... would hide that LID's
# entries from this proof: the fabrics used here have other tops (checked below).
dump_all() {  # DIR
  mkdir -p "$1"
  local name
  for name in "${!switch_lid[@]}"; do
    sim_run "${hosts[0]}" ibroute -n "${switch_lid[$name]}" >"$1/$name" 2>/dev/null ||
      fail "ibroute $name (LID ${switch_lid[$name]})"
  done
}
same_dumps() {  # DIR DIR WHAT
  diff -r "$1" "$2" >"$WORK/diff.txt" || fail "$3: $(head -6 "$WORK/diff.txt")"
}

# A seeded random permutation of a job's ranks (one per host) as a traffic matrix, 1 MiB a pair.
matrix() {  # FILE SEED RANKS
  python3 - "$@" <<'PY'
import random, sys
path, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
while True:
    p = list(range(n)); random.Random(seed).shuffle(p)
    if all(i != j for i, j in enumerate(p)): break
    seed += 1000
with open(path, "w") as f:
    for i, j in enumerate(p): f.write(f"{i} {j} 1048576\n")
PY
}

# A matrix for JOB on HOSTS whose DmodK routes collide (the dry run's LFT-alone load is above the
# bound): tries seeds until one does. Leaves the matrix in $WORK/JOB.tm, the dry answer in
# $WORK/JOB.dry.json.
colliding_matrix() {  # JOB HOSTS_CSV RANKS
  local seed
  for seed in $(seq 1 40); do
    matrix "$WORK/$1.tm" "$seed" "$3"
    "$ctl" --json job start --job "$1" --user root --nodes "$2" --matrix "$WORK/$1.tm" \
      --backend dry_run >"$WORK/$1.dry.json" || fail "dry run of job $1: $(cat "$WORK/$1.dry.json")"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["dry_run"]; sys.exit(0 if d["lft_only"]["max_link_load"] > d["bound"]["max_link_load"] else 1)' "$WORK/$1.dry.json" &&
      return 0
  done
  fail "no permutation in 40 seeds on which DmodK collides for job $1"
}

# The LFT entries the dumps of DIR differ in from $WORK/before, against an intent: a dry run's
# lft_blocks, or `ibsdnctl --json flows` answers. Fails unless they are equal.
check_changes() {  # DIR INTENT_KIND FILE...
  python3 - "$WORK/before" "$@" <<'PY' || fail "the switches' LFTs are not the controller's intent ($2)"
import json, os, re, sys
before, now, kind, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def table(path):
    out = {}
    for line in open(path):
        m = re.match(r"\s*0x([0-9a-f]+)\s+(\d+)\s", line)
        if m: out[int(m.group(1), 16)] = int(m.group(2))
    return out
intent = {}
for f in files:
    d = json.load(open(f))
    if kind == "dry":
        for b in d["dry_run"]["lft_blocks"]:
            for c in b["changes"]: intent[(b["switch"], c["lid"])] = c["port"]
    else:
        for sw in d["switches"]:
            for e in sw["entries"]:
                assert e["backend"] == "lft", e
                m = e["match"]["dlid"]
                intent[(sw["name"], m if isinstance(m, int) else m["value"])] = e["actions"]["output"]
changed = {}
for name in os.listdir(before):
    b, n = table(os.path.join(before, name)), table(os.path.join(now, name))
    for lid in set(b) | set(n):
        if b.get(lid) != n.get(lid): changed[(name, lid)] = n.get(lid)
extra = {k: v for k, v in changed.items() if intent.get(k) != v}
missing = {k: v for k, v in intent.items() if changed.get(k) != v}
# An intended entry may equal the default port (a flows answer lists every entry of the job);
# it is then on the switch without a change.
for k in list(missing):
    if table(os.path.join(now, k[0])).get(k[1]) == intent[k]: del missing[k]
assert not extra and not missing, {"changed, not intended": extra, "intended, not on the switch": missing}
print(len(changed), "entries changed in", len({(k[0], k[1] // 64) for k in changed}), "blocks")
PY
}

# Prints "SRC DST NODE:PORT NODE:PORT ..." per pair of a job's matrix, from ibtracert or route.
# With JOB and OFFSET: the job's packets, from and to its hosts' LIDs at that offset (LMC), and
# `ibsdnctl route --job JOB`.
trace_pairs() {  # SOURCE(ibtracert|route) JOB_HOSTS_CSV MATRIX [JOB OFFSET]
  local src_of=$1 line s d out job=${4:-} offset=${5:-0}
  IFS=, read -r -a jh <<<"$2"
  while read -r s d _; do
    if [[ $src_of == ibtracert ]]; then
      out=$(sim_run "${jh[s]}" ibtracert "$((host_lid[${jh[s]}] + offset))" \
        "$((host_lid[${jh[d]}] + offset))" 2>&1) ||
        fail "ibtracert ${jh[s]} -> ${jh[d]}: $out"
      # "From ca {..} portnum 1 lid ... "n0001 HCA-1"", then "[out] -> ... "next"" lines.
      line=$(python3 -c '
import re, sys
text = sys.stdin.read().splitlines()
names = [re.search(r"\"([^\" ]+)", l).group(1) for l in text if "\"" in l]
ports = [re.match(r"\[(\d+)\]", l).group(1) for l in text if re.match(r"\[\d+\]", l)]
print(" ".join(f"{n}:{p}" for n, p in zip(names, ports)))' <<<"$out")
    else
      line=$("$ctl" --json route "${jh[s]}" "${jh[d]}" ${job:+--job "$job"} | python3 -c '
import json, sys
print(" ".join("%s:%d" % (h["node"], h["out_port"]) for h in json.load(sys.stdin)["hops"]))')
    fi
    echo "${jh[s]} ${jh[d]} $line"
  done <"$3"
}