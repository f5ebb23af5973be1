#!/usr/bin/env bash
# The Debian package as an administrator gets it, checked without touching this machine's system:
#  1. cpack builds ibsdn_<version>_<arch>.deb from BUILD_DIR. Its control data: Depends names
#     opensm of the plugin's upstream version and, for every library an installed ELF file
#     needs, the package that holds that library on this machine; conffiles; `apt-get
#     --simulate install ./ibsdn_*.deb` resolves it against this system.
#  2. Its contents (with the Slurm hook's when the build has it): each file in its place, root's,
#     nothing of the tests, benchmarks or fuzzers, no RPATH / RUNPATH and no build-tree path in
#     an ELF file, and libosmsdn.so exporting only osm_event_plugin.
#  3. `dpkg --root` installs it into a scratch root with a dpkg database of its own: dpkg
#     unpacks, configures (the maintainer scripts do nothing under DPKG_ROOT) and records the
#     conffiles; the real root and its database stay as they were. Not `dpkg-deb -x`: that
#     only extracts, and would prove nothing of the conffiles, the scripts or the purge (5).
#  4. The installed tree at work, on an ibsim XGFT(2;2,2;1,2). In a private mount namespace the
#     scratch root's /usr and /etc lie (read-only) over the real ones, and /run and /var/lib take
#     writes in a tmpfs. So the stock /usr/sbin/opensm, configured with nothing but
#     `event_plugin_name osmsdn` and `routing_engine sdn`, finds
#     /usr/lib/<multiarch>/libosmsdn.so by its own dlopen("libosmsdn.so"), and the plugin reads
#     its default configuration, the installed /etc/opensm/ibsdn.yaml; one agent per switch starts
#     as the installed unit and /etc/default/ibsdn-switch-agent say, with the key the controller
#     generated; the installed ibsdnctl answers on its default socket, starts a job, audits the
#     agents and ends the job. systemd-analyze verifies the agent's unit and the opensm@ drop-in
#     example there; man finds the pages. Where no mount namespace can be made (not root, no
#     overlayfs) the same runs from the scratch root's paths: LD_LIBRARY_PATH to its library
#     directory (opensm's dlopen() of the bare name then finds the installed file), and the
#     installed configuration with its socket and state directory moved into $WORK.
#  5. `dpkg --purge` removes every file it installed, conffiles included.
#
# Usage: package_install.sh BUILD_DIR    (exit 77: a required tool is missing)
set -euo pipefail

build=$(cd "${1:?usage: package_install.sh BUILD_DIR}" && pwd)

# A private mount namespace for step 4, entered before anything starts (its mounts vanish with
# the last process in it). The namespace is entered by re-running this script inside it.
if [[ -z ${IBSDN_PACKAGE_NS:-} ]]; then
  export IBSDN_PACKAGE_NS=none
  if (($(id -u) == 0)) && grep -qw overlay /proc/filesystems &&
    unshare --mount --propagation private true 2>/dev/null; then
    IBSDN_PACKAGE_NS=private exec unshare --mount --propagation private bash "$0" "$@"
  fi
fi

# shellcheck source-path=SCRIPTDIR source=../integration/ibsim_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../integration/ibsim_lib.sh"
ibsim_lib_init package-install cpack dpkg dpkg-deb dpkg-query dpkg-architecture dpkg-shlibdeps \
  apt-get readelf nm
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=usr/lib/$multiarch
ns=$IBSDN_PACKAGE_NS
unset LD_LIBRARY_PATH IBSDN_SOCKET
# The Slurm integration is built (and packaged) only with libslurm-dev.
with_hook=0
[[ -x $build/scheduler_hook/ibsdn-slurm-hook ]] && with_hook=1
expected_conffiles=(/etc/opensm/ibsdn.yaml /etc/default/ibsdn-switch-agent)
((with_hook)) && expected_conffiles+=(/etc/ibsdn/slurm-hook.conf)

# --- 1. build the package, its control data ---------------------------------------------------
[[ -f $build/CPackConfig.cmake ]] ||
  fail "$build/CPackConfig.cmake missing: configure with -DCMAKE_INSTALL_PREFIX=/usr"
cpack --config "$build/CPackConfig.cmake" -B "$WORK/out" >"$WORK/cpack.log" 2>&1 ||
  { tail -n 20 "$WORK/cpack.log" >&2; fail "cpack failed"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
deb=$WORK/out/ibsdn_${version}_$arch.deb
[[ -n $version && -f $deb ]] || fail "no $deb: $(ls "$WORK/out")"
pass "cpack built $(basename "$deb")"

field() { dpkg-deb --field "$deb" "$1"; }
[[ $(field Package) == ibsdn && $(field Version) == "$version" && $(field Architecture) == "$arch" ]] ||
  fail "control: Package $(field Package), Version $(field Version), Architecture $(field Architecture)"
depends=$(field Depends)
# One dependency per line, "name (op version)".
depends_list=${depends//, /$'\n'}

# The plugin runs only in the opensm of its headers' version.
osm_version=$(sed -nE 's/^#define OSM_VERSION "OpenSM ([0-9.]+)"$/\1/p' \
  /usr/include/infiniband/opensm/osm_version.h)
[[ -n $osm_version ]] || fail "no OSM_VERSION in /usr/include/infiniband/opensm/osm_version.h"
grep -qxF "opensm (>= $osm_version)" <<<"$depends_list" ||
  fail "Depends lacks 'opensm (>= $osm_version)': $depends"
grep -qE "^opensm \(<< ${osm_version%.*}\.$((${osm_version##*.} + 1))~\)$" <<<"$depends_list" ||
  fail "Depends does not stop below the next opensm: $depends"

dpkg-deb --extract "$deb" "$WORK/extracted"
# The package holding a library (soname) on this machine, from the loader's cache.
library_package() {
  local path candidate
  path=$(ldconfig -p | awk -v so="$1" '$1 == so && $0 ~ /x86-64|x32|64bit|'"$multiarch"'/ {print $NF; exit}')
  [[ -n $path ]] || path=$(ldconfig -p | awk -v so="$1" '$1 == so {print $NF; exit}')
  [[ -n $path ]] || return 1
  # dpkg knows a file by the path its package shipped: /lib/... or /usr/lib/... (merged /usr).
  for candidate in "$path" "/usr$path" "${path#/usr}" "$(readlink -f "$path")"; do
    dpkg-query --search "$candidate" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return 0
  done
  return 1
}
mapfile -t elves < <(find "$WORK/extracted" -type f -exec sh -c \
  'head -c 4 "$1" | grep -q "ELF" && echo "$1"' _ {} \;)
((${#elves[@]} >= 5)) || fail "only ${#elves[@]} ELF files in the package"
declare -A needed_packages=()
for elf in "${elves[@]}"; do
  while read -r soname; do
    pkg=$(library_package "$soname") || fail "${elf#"$WORK"/extracted} needs $soname, which no package here holds"
    needed_packages[$pkg]=1
  done < <(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
for pkg in "${!needed_packages[@]}"; do
  grep -qxF "$pkg" <<<"$(awk '{print $1}' <<<"$depends_list")" ||
    fail "Depends lacks $pkg, whose library an installed file needs: $depends"
done
pass "Depends: $depends"

conffiles=$(dpkg-deb --info "$deb" conffiles 2>&1 || true)
[[ $conffiles == "$(printf '%s\n' "${expected_conffiles[@]}")" ]] ||
  fail "conffiles: $conffiles, expected: ${expected_conffiles[*]}"
grep -v '^ *#' <<<"$(dpkg-deb --info "$deb" postinst || true)" | grep -w ldconfig >/dev/null &&
  fail "postinst calls ldconfig (the triggers file does)"
grep -qx "activate-noawait ldconfig" <<<"$(dpkg-deb --info "$deb" triggers || true)" ||
  fail "no ldconfig trigger"
pass "conffiles: $(paste -sd' ' <<<"$conffiles")"
((with_hook)) || echo "NOTE: $build/scheduler_hook/ibsdn-slurm-hook not built: a package without the Slurm integration"

apt-get install --simulate -o Debug::NoLocking=1 "$deb" >"$WORK/apt.out" 2>&1 ||
  { cat "$WORK/apt.out" >&2; fail "apt-get --simulate install ./$(basename "$deb") failed"; }
grep -qE "^Inst ibsdn \($version " "$WORK/apt.out" ||
  { cat "$WORK/apt.out" >&2; fail "apt-get would not install ibsdn $version"; }
pass "apt-get --simulate install ./$(basename "$deb") resolves every dependency here"

# --- 2. contents ----------------------------------------------------------------------------------
dpkg-deb --contents "$deb" >"$WORK/contents"
expected=(
  "./$libdir/libosmsdn.so" ./usr/bin/ibsdnctl ./usr/bin/ibsdn-sim
  ./usr/sbin/ibsdn-switch-agent ./usr/sbin/ibsdn-madtool
  ./etc/opensm/ibsdn.yaml ./etc/default/ibsdn-switch-agent
  "./lib/systemd/system/ibsdn-switch-agent@.service"
  "./usr/share/doc/ibsdn/examples/opensm@.service.d/ibsdn.conf"
  ./usr/share/bash-completion/completions/ibsdnctl
  ./usr/share/man/man8/ibsdnctl.8.gz ./usr/share/man/man8/ibsdn-switch-agent.8.gz
  ./usr/share/man/man5/ibsdn.yaml.5.gz
  ./usr/share/doc/ibsdn/README.md ./usr/share/doc/ibsdn/operations.md
  ./usr/include/ibsdn/hints.h "./$libdir/pkgconfig/ibsdn-hints.pc" ./usr/share/doc/ibsdn/hints-api.md
)
if ((with_hook)); then
  expected+=(
    ./usr/sbin/ibsdn-slurm-hook "./usr/lib/$multiarch/slurm-wlm/spank_ibsdn.so"
    ./etc/ibsdn/slurm-hook.conf ./usr/share/man/man8/ibsdn-slurm-hook.8.gz
    ./lib/systemd/system/ibsdn-slurm-reconcile.service
    ./lib/systemd/system/ibsdn-slurm-reconcile.timer ./usr/share/doc/ibsdn/slurm.md
  )
fi
for path in "${expected[@]}"; do
  grep -qxF -- "$path" <<<"$(awk '{print $NF}' "$WORK/contents")" || fail "the package lacks $path"
done
awk '$2 != "root/root"' "$WORK/contents" | grep . && fail "files not owned by root/root"
awk '{print $NF}' "$WORK/contents" | grep -E 'test|bench|fuzz|osmsdn-(lft|route)-check|\.a$' &&
  fail "test, benchmark or fuzzing files in the package"
for elf in "${elves[@]}"; do
  name=${elf#"$WORK"/extracted}
  readelf -d "$elf" | grep -E 'RPATH|RUNPATH' && fail "$name has an RPATH / RUNPATH"
  grep -qaF "$build" "$elf" && fail "$name holds the build directory's path $build"
done
exports=$(nm -D --defined-only "$WORK/extracted/$libdir/libosmsdn.so" | awk '{print $3}')
[[ $exports == osm_event_plugin ]] || fail "libosmsdn.so exports more than osm_event_plugin: $exports"
# The hints C API: the runtime name and the link-time name, exporting the header's functions only.
grep -qE " \./$libdir/libibsdn-hints\.so\.0 -> " "$WORK/contents" || fail "the package lacks libibsdn-hints.so.0"
grep -qE " \./$libdir/libibsdn-hints\.so -> " "$WORK/contents" || fail "the package lacks libibsdn-hints.so"
exports=$(nm -D --defined-only "$WORK/extracted/$libdir/libibsdn-hints.so.0" | awk '$3 !~ /^ibsdn_/ {print $3}')
[[ $exports == IBSDN_HINTS_0 ]] || fail "libibsdn-hints.so exports more than ibsdn_*: $exports"
pass "${#expected[@]} files in their places; ${#elves[@]} ELF files without RPATH or build paths"

# --- 3. install into a scratch root ------------------------------------------------------------
root=$WORK/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# The scratch database knows no other package, hence --force-depends (apt checked them above);
# the scripts run outside a chroot (the root has no shell) and see DPKG_ROOT.
scratch_dpkg() {
  dpkg --root="$root" --log="$WORK/dpkg.log" --force-script-chrootless --force-depends \
    --force-not-root "$@"
}
real_status=$(md5sum /var/lib/dpkg/status)
scratch_dpkg --install "$deb" >"$WORK/dpkg.out" 2>&1 || { cat "$WORK/dpkg.out" >&2; fail "dpkg --install"; }
[[ $(md5sum /var/lib/dpkg/status) == "$real_status" ]] || fail "the real dpkg database changed"
status=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status} ${Version}' ibsdn)
[[ $status == "install ok installed $version" ]] || fail "scratch root: ibsdn is '$status'"
registered=$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Conffiles}\n' ibsdn |
  awk 'NF {print $1, $2}')
for conffile in "${expected_conffiles[@]}"; do
  [[ -f $root$conffile ]] || fail "$conffile not installed"
  grep -qxF "$conffile $(md5sum <"$root$conffile" | cut -d' ' -f1)" <<<"$registered" ||
    fail "$conffile is not a registered conffile: $registered"
done
pass "dpkg --root installed ibsdn $version into the scratch root, conffiles registered"

# --- 4. the installed tree at work ---------------------------------------------------------------
# Where opensm, the agents and ibsdnctl find what the package installed.
if [[ $ns == private ]]; then
  mount -t overlay ibsdn-usr -o "lowerdir=$root/usr:/usr" /usr
  mount -t overlay ibsdn-etc -o "lowerdir=$root/etc:/etc" /etc
  mkdir -p "$WORK/rw"
  mount -t tmpfs ibsdn-rw "$WORK/rw"
  for dir in /run /var/lib; do
    up=$WORK/rw/${dir//\//_}
    mkdir -p "$up/upper" "$up/work"
    mount -t overlay ibsdn-rw -o "lowerdir=$dir,upperdir=$up/upper,workdir=$up/work" "$dir"
  done
  # On a failure: detached at once, even while the processes that the cleanup stops use them.
  ibsim_lib_at_exit "for m in /usr /etc /run /var/lib $WORK/rw; do umount -l \$m 2>/dev/null || true; done"
  prefix=""
  config=/etc/opensm/ibsdn.yaml
  state_dir=/var/lib/ibsdn
  ctl=(/usr/bin/ibsdnctl)
  plugin_file=/$libdir/libosmsdn.so
  pass "mount namespace: the scratch root's /usr and /etc over the real ones"
else
  prefix=$root
  # The installed configuration, its two paths moved out of the real /run and /var/lib.
  config=$WORK/ibsdn.yaml
  state_dir=$WORK/state
  sed -e "s|^notice_socket: .*|notice_socket: $WORK/run/notice.sock|" \
    -e "s|^state_dir: .*|state_dir: $state_dir|" "$root/etc/opensm/ibsdn.yaml" >"$config"
  grep -q "^state_dir: $state_dir$" "$config" || fail "the installed ibsdn.yaml sets no state_dir"
  ctl=("$root/usr/bin/ibsdnctl" --socket "$WORK/run/notice.sock")
  OPENSM_PLUGIN_DIR=$root/$libdir
  plugin_file=$root/$libdir/libosmsdn.so
  echo "NOTE: no mount namespace (needs root and overlayfs): the installed files run from $root" \
    "with LD_LIBRARY_PATH=$OPENSM_PLUGIN_DIR"
fi

"$prefix/usr/bin/ibsdn-sim" topo --xgft "2;2,2;1,2" --netlist "$WORK/fabric.net"
mapfile -t switches < <(sed -n 's/^Switch\t\([0-9]*\)\t"\([^"]*\)".*/\2/p' "$WORK/fabric.net")
mapfile -t hosts < <(sed -n 's/^Hca\t[0-9]*\t"\([^"]*\)".*/\1/p' "$WORK/fabric.net")
((${#switches[@]} == 4 && ${#hosts[@]} == 4)) || fail "netlist: ${#switches[@]} switches, ${#hosts[@]} hosts"
ibsim_start "$WORK/fabric.net"

# opensm as an administrator configures it: the plugin's name, and the default configuration.
osm_lines=("event_plugin_name osmsdn" "routing_engine sdn")
[[ $ns == private ]] || osm_lines+=("event_plugin_options config=$config")
opensm_conf "$WORK/osm" "${osm_lines[@]}"
opensm_start opensm "$WORK/osm"
log=$WORK/osm/opensm.log
wait_for_file_text "$log" "osmsdn: (warning: )?audit after SUBNET UP" 60 ||
  fail "opensm did not come up with the plugin (see $log)"
grep -q "osmsdn: routing engine 'sdn' registered" "$log" || fail "the plugin did not register 'sdn'"
if [[ $ns == private ]]; then
  grep -qF "osmsdn: controller started (config=$config (default))" "$log" ||
    fail "the controller did not start on the default configuration: $(grep -m1 'osmsdn: ' "$log")"
else
  grep -qF "osmsdn: controller started (config=$config)" "$log" ||
    fail "the controller did not start on the installed configuration: $(grep -m1 'osmsdn: ' "$log")"
fi
grep -q "sdn tables configured on all switches" "$log" || fail "the sdn engine did not route"
maps=/proc/$(proc_pid opensm)/maps
grep -qE " $plugin_file$" "$maps" || fail "opensm did not map $plugin_file: $(grep osmsdn "$maps" | head -n1)"
cmp -s "$plugin_file" "$root/$libdir/libosmsdn.so" || fail "$plugin_file is not the installed file"
pass "opensm loaded $plugin_file and the controller started on $config"

# The agents, as ibsdn-switch-agent@.service and /etc/default/ibsdn-switch-agent start them, with
# the key the controller generated at its first start. opensm starts again once they are
# attached: the controller reads that key back, and finds every switch SDN-capable.
proc_stop opensm
[[ -f $state_dir/switch.key ]] || fail "the controller generated no $state_dir/switch.key"
unit=$root/lib/systemd/system/ibsdn-switch-agent@.service
grep -qxF "Environment=LD_PRELOAD=$UMAD2SIM" "$unit" || fail "the unit's LD_PRELOAD is not $UMAD2SIM"
grep -qxF 'Environment=SIM_HOST=%I' "$unit" || fail "the unit does not attach to the switch %I"
# shellcheck disable=SC2016  # a literal $IBSDN_AGENT_OPTS
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\) \$IBSDN_AGENT_OPTS$/\1/p' "$unit")
[[ $exec_start == /usr/sbin/ibsdn-switch-agent ]] || fail "the unit's ExecStart: $exec_start"
# shellcheck source=/dev/null  # the installed file
agent_opts=$(set -a && source "$root/etc/default/ibsdn-switch-agent" && echo "$IBSDN_AGENT_OPTS")
agent_opts=${agent_opts//\/var\/lib\/ibsdn/$state_dir}
for name in "${switches[@]}"; do
  # shellcheck disable=SC2086  # the options are words, as systemd splits $IBSDN_AGENT_OPTS
  sim_start "agent-$name" "$name" "$prefix$exec_start" $agent_opts --log "$WORK/agent-$name.log"
done
for name in "${switches[@]}"; do
  wait_for_file_text "$WORK/agent-$name.log" "attached" 10 ||
    fail "agent at $name did not attach: $(tail -n 3 "$WORK/agent-$name.log" "$WORK/agent-$name.err")"
done
mark=$(file_size "$log")
opensm_start opensm "$WORK/osm"
wait_for_file_text "$log" "osmsdn: (warning: )?audit after SUBNET UP" 60 "$mark" ||
  fail "opensm did not come up again (see $log)"
tail -c +"$((mark + 1))" "$log" | grep -q "osmsdn: audit after SUBNET UP: ${#switches[@]} switches, 0 differences (0 FlowMods to repair), 0 unreachable" ||
  fail "the controller did not reach the ${#switches[@]} agents: $(grep 'audit after SUBNET UP' "$log" | tail -n1)"
pass "${#switches[@]} installed agents attached with the controller's key ($agent_opts); opensm restarted and reached them"

pong=$("${ctl[@]}" ping) || fail "ibsdnctl ping"
[[ $pong == "pong: ibsdn $version, notice protocol "* ]] || fail "ibsdnctl ping: $pong"
nodes=$(printf '%s,' "${hosts[@]}")
ready=$("${ctl[@]}" job start --job 7 --user root --nodes "${nodes%,}" --pattern random-perm) ||
  fail "ibsdnctl job start: $ready"
grep -q "^job 7 ready" <<<"$ready" || fail "job start: $ready"
audit=$("${ctl[@]}" audit) || fail "ibsdnctl audit: $audit"
grep -qx "audit: ${#switches[@]} switches checked, consistent" <<<"$audit" || fail "audit: $audit"
"${ctl[@]}" flows --from-switch --job 7 >"$WORK/flows.out" || fail "ibsdnctl flows --from-switch"
"${ctl[@]}" job end --job 7 >"$WORK/job-end.out" || fail "ibsdnctl job end"
pass "the installed ibsdnctl: $pong; job 7 ready, audit of ${#switches[@]} agents clean, job ended"

# The installed Slurm hook as slurmctld runs it (no arguments, no PATH), on its installed defaults:
# its NoticeSocket must be the controller's.
if ((with_hook)); then
  hook_args=()
  [[ $ns == private ]] || hook_args=(--set "NoticeSocket=$WORK/run/notice.sock" --set "StateDir=$WORK/hook")
  hook_env=(SLURM_JOB_ID=8 "SLURM_JOB_NODELIST=n[0001-0004]" SLURM_JOB_USER=root SLURM_JOB_UID=0
    SPANK_SDN_PATTERN=ring)
  env -i "${hook_env[@]}" SLURM_SCRIPT_CONTEXT=prolog_slurmctld \
    "$prefix/usr/sbin/ibsdn-slurm-hook" --strict "${hook_args[@]}" >"$WORK/hook.out" 2>&1 ||
    fail "the installed ibsdn-slurm-hook as PrologSlurmctld: $(cat "$WORK/hook.out")"
  grep -qE "^ *8 +root +4 +ring " <<<"$("${ctl[@]}" jobs)" || fail "job 8 not started: $("${ctl[@]}" jobs)"
  env -i "${hook_env[@]}" SLURM_SCRIPT_CONTEXT=epilog_slurmctld \
    "$prefix/usr/sbin/ibsdn-slurm-hook" --strict "${hook_args[@]}" >>"$WORK/hook.out" 2>&1 ||
    fail "the installed ibsdn-slurm-hook as EpilogSlurmctld: $(cat "$WORK/hook.out")"
  grep -qE "^ *8 " <<<"$("${ctl[@]}" jobs)" && fail "job 8 not ended: $("${ctl[@]}" jobs)"
  pass "the installed ibsdn-slurm-hook started and ended job 8 (n[0001-0004], ring)" \
    "${hook_args[*]:-on its installed defaults}"
fi

if [[ $ns == private ]]; then
  pages=(ibsdnctl ibsdn-switch-agent ibsdn.yaml)
  ((with_hook)) && pages+=(ibsdn-slurm-hook)
  man -w "${pages[@]}" >"$WORK/man.out" || fail "man does not find the pages"
  bash -c 'source /usr/share/bash-completion/completions/ibsdnctl && complete -p ibsdnctl' \
    >/dev/null || fail "the installed completion does not register for ibsdnctl"
  if command -v systemd-analyze >/dev/null; then
    units=$WORK/units
    mkdir -p "$units/opensm@0x0002c90300000001.service.d"
    cp "$unit" "$units/ibsdn-switch-agent@l1s001.service"
    # The drop-in example on Debian's own opensm@.service, as an administrator installs it.
    cp /lib/systemd/system/opensm@.service "$units/opensm@0x0002c90300000001.service"
    cp "/usr/share/doc/ibsdn/examples/opensm@.service.d/ibsdn.conf" \
      "$units/opensm@0x0002c90300000001.service.d/"
    verify=(ibsdn-switch-agent@l1s001.service opensm@0x0002c90300000001.service)
    if ((with_hook)); then
      cp "$root/lib/systemd/system/ibsdn-slurm-reconcile.service" \
        "$root/lib/systemd/system/ibsdn-slurm-reconcile.timer" "$units/"
      verify+=(ibsdn-slurm-reconcile.service ibsdn-slurm-reconcile.timer)
    fi
    for u in "${verify[@]}"; do
      # verify exits 0 on unknown keys; any output is a finding.
      out=$(SYSTEMD_UNIT_PATH=$units: systemd-analyze verify "$units/$u" 2>&1) ||
        fail "systemd-analyze verify $u: $out"
      [[ -z $out ]] || fail "systemd-analyze verify $u: $out"
    done
    pass "systemd-analyze verify: ${verify[*]} (with the drop-in) are clean"
  else
    echo "NOTE: systemd-analyze not installed: the units were not verified"
  fi
  pass "man finds the installed pages; the installed completion registers"
fi

# --- 5. purge ------------------------------------------------------------------------------------
for name in "${switches[@]}"; do proc_stop "agent-$name"; done
proc_stop opensm
ibsim_stop
if [[ $ns == private ]]; then
  # Lazily: umount itself runs from the overlaid /usr.
  umount -l /usr /etc || fail "cannot unmount the overlays before the purge"
  umount -l /run /var/lib "$WORK/rw" || fail "cannot unmount the tmpfs of /run and /var/lib"
fi
scratch_dpkg --purge ibsdn >>"$WORK/dpkg.out" 2>&1 || { cat "$WORK/dpkg.out" >&2; fail "dpkg --purge"; }
left=$(find "$root" -not -type d -not -path "$root/var/lib/dpkg/*")
[[ -z $left ]] || fail "dpkg --purge left: $left"
pass "dpkg --purge removed every file, conffiles included"
echo "PASS"
