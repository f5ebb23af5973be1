#!/usr/bin/env bash
# The manual pages and the bash completion that the package installs, against the programs:
#  1. every page (as built for installation, and gzipped) renders without a warning, through
#     groff (-man -ww) and through man-db (man --warnings -l), as an administrator reads it;
#  2. every command and option that `ibsdnctl [COMMAND...] --help` lists is in ibsdnctl(8), and
#     every option the page names is one ibsdnctl has; the same for ibsdn-switch-agent(8); every
#     option and configuration key of `ibsdn-slurm-hook --help` is in ibsdn-slurm-hook(8);
#  3. the bash completion offers, after each command, exactly the options and subcommands its
#     --help lists (plus the global options).
#
# Usage: man_pages.sh BUILD_DIR    (exit 77: groff or man-db not installed)
set -euo pipefail

build=${1:?usage: man_pages.sh BUILD_DIR}
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ctl=$build/cli/ibsdnctl
agent=$build/mad/agent/ibsdn-switch-agent
pages=$build/packaging/man
completion=$src/packaging/bash-completion/ibsdnctl

fail() {
  echo "FAIL: $*" >&2
  failed=1
}
failed=0
for tool in groff man gzip; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/install-deps.sh)"; exit 77; }
done
for f in "$ctl" "$agent" "$pages/ibsdnctl.8"; do
  [[ -e $f ]] || { echo "FAIL: $f not built" >&2; exit 1; }
done

# --- 1. rendering -------------------------------------------------------------------------------
shopt -s nullglob
rendered=0
for page in "$pages"/*.[1-8] "$pages"/*.[1-8].gz; do
  if [[ $page == *.gz ]]; then
    warnings=$(gzip -dc "$page" | groff -man -ww -z 2>&1 || true)
  else
    warnings=$(groff -man -ww -z "$page" 2>&1 || true)
  fi
  [[ -z $warnings ]] || fail "groff warns about ${page#"$build"/}: $warnings"
  # man-db as an administrator runs it (its own preprocessors, the terminal device, 80 columns).
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null || true)
  [[ -z $warnings ]] || fail "man -l warns about ${page#"$build"/}: $warnings"
  ((++rendered))
done
((rendered >= 4)) || fail "only $rendered pages found in $pages"
echo "ok: $rendered manual pages render without warnings"

# --- 2. options and commands against --help -----------------------------------------------------
# help_options TEXT: the long options of a --help text's "Options:" section, one per line.
help_options() {
  sed -n '/^Options:/,/^[A-Z]/p' <<<"$1" | sed -nE 's/^  (-[a-zA-Z],)?(--[a-z][a-z-]*).*/\2/p'
}
# help_subcommands TEXT: the names of its "Subcommands:" section.
help_subcommands() {
  sed -n '/^Subcommands:/,/^[A-Z]/p' <<<"$1" | sed -nE 's/^  ([a-z][a-z-]*) .*/\1/p'
}
# roff PAGE TEXT: whether the page's source holds TEXT as roff writes it (every '-' as '\-').
in_page() {
  grep -qF -- "${2//-/\\-}" "$1"
}
# page_options PAGE: the long options a page names, one per line.
page_options() {
  grep -oE -- '\\-\\-[a-z](\\-|[a-z])*' "$1" | sed 's/\\-/-/g' | sort -u
}

# completions WORD...: what the completion function offers for the last word of the line WORD...
completions() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ibsdnctl
           printf "%s\n" "${COMPREPLY[@]}"' _ "$completion" "$@"
}

declare -A ctl_options=()  # every option of every command
commands=("")
checked=0
while ((${#commands[@]} > 0)); do
  path=${commands[0]}
  commands=("${commands[@]:1}")
  # shellcheck disable=SC2086  # the command path is words
  help=$("$ctl" $path --help)
  mapfile -t opts < <(help_options "$help")
  mapfile -t subs < <(help_subcommands "$help")
  ((${#opts[@]} > 0)) || fail "ibsdnctl $path --help lists no option: has its format changed?"
  for o in "${opts[@]}"; do
    ctl_options[$o]=1
    in_page "$pages/ibsdnctl.8" "$o" || fail "ibsdnctl.8 does not name '$o' (ibsdnctl $path)"
    ((++checked))
  done
  for s in "${subs[@]}"; do
    in_page "$pages/ibsdnctl.8" ".B ${path:+$path }$s" ||
      in_page "$pages/ibsdnctl.8" ".BI \"${path:+$path }$s" ||
      in_page "$pages/ibsdnctl.8" ".BI ${path:+$path }$s " ||
      fail "ibsdnctl.8 has no paragraph for the command '${path:+$path }$s'"
    commands+=("${path:+$path }$s")
  done

  # 3. What the completion offers after this command path, for "--" and for "".
  # shellcheck disable=SC2086  # the command path is words
  offered_opts=$(completions ibsdnctl $path --)
  # shellcheck disable=SC2086
  offered_subs=$(completions ibsdnctl $path "")
  global=$(help_options "$("$ctl" --help)")
  # shellcheck disable=SC2086
  expected_opts=$(printf '%s\n' "${opts[@]}" $global --version | sort -u)
  [[ $(sort -u <<<"$offered_opts") == "$expected_opts" ]] ||
    fail "completion after 'ibsdnctl $path --': $(sort -u <<<"$offered_opts" | paste -sd' ')," \
      "but --help lists: $(paste -sd' ' <<<"$expected_opts")"
  expected_subs=$(printf '%s\n' "${subs[@]}" | sed '/^$/d' | sort -u)
  [[ $(sed '/^$/d' <<<"$offered_subs" | sort -u) == "$expected_subs" ]] ||
    fail "completion after 'ibsdnctl $path': $(paste -sd' ' <<<"$offered_subs"), but --help" \
      "lists: $(paste -sd' ' <<<"$expected_subs")"
done
((checked >= 25)) || fail "only $checked ibsdnctl options found"
while read -r o; do
  [[ -n ${ctl_options[$o]:-} ]] || fail "ibsdnctl.8 names '$o', which no ibsdnctl command has"
done < <(page_options "$pages/ibsdnctl.8")
echo "ok: ibsdnctl.8 and the bash completion name the $checked options of every command, and no other"

agent_help=$("$agent" --help)
mapfile -t opts < <(help_options "$agent_help")
((${#opts[@]} >= 10)) || fail "ibsdn-switch-agent --help lists only ${#opts[@]} options"
for o in "${opts[@]}"; do
  in_page "$pages/ibsdn-switch-agent.8" "$o" || fail "ibsdn-switch-agent.8 does not name '$o'"
done
while read -r o; do
  grep -qxF -- "$o" <<<"$(printf '%s\n' "${opts[@]}")" ||
    fail "ibsdn-switch-agent.8 names '$o', which ibsdn-switch-agent does not have"
done < <(page_options "$pages/ibsdn-switch-agent.8")
echo "ok: ibsdn-switch-agent.8 names its ${#opts[@]} options, and no other"

# The Slurm hook is built only with libslurm-dev.
hook=$build/scheduler_hook/ibsdn-slurm-hook
if [[ -x $hook ]]; then
  hook_help=$("$hook" --help)
  mapfile -t opts < <(help_options "$hook_help")
  ((${#opts[@]} >= 4)) || fail "ibsdn-slurm-hook --help lists only ${#opts[@]} options"
  for o in "${opts[@]}"; do
    in_page "$pages/ibsdn-slurm-hook.8" "$o" || fail "ibsdn-slurm-hook.8 does not name '$o'"
  done
  # The configuration keys, as --help lists them for --set: "(keys: NoticeSocket, ...)".
  mapfile -t keys < <(sed -nE 's/.*\(keys: ([^)]*)\).*/\1/p' <<<"$hook_help" | tr ',' '\n' |
    sed 's/^ *//; /^$/d')
  ((${#keys[@]} >= 5)) || fail "ibsdn-slurm-hook --help lists only ${#keys[@]} configuration keys"
  for k in "${keys[@]}"; do
    grep -qxF ".B $k" "$pages/ibsdn-slurm-hook.8" ||
      fail "ibsdn-slurm-hook.8 has no paragraph for the configuration key $k"
  done
  for mode in prolog epilog reconcile; do
    grep -qxF ".B $mode" "$pages/ibsdn-slurm-hook.8" || fail "ibsdn-slurm-hook.8: no paragraph for $mode"
  done
  echo "ok: ibsdn-slurm-hook.8 names its ${#opts[@]} options and ${#keys[@]} configuration keys"
else
  echo "NOTE: $hook not built (libslurm-dev missing?): its page was only rendered"
fi

((failed == 0)) || exit 1
echo "PASS"
