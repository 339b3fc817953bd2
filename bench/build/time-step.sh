#!/usr/bin/env bash
# A compiler and linker launcher for profile.sh: runs the step and appends its CPU seconds
# (user + sys, children included) and its output file to $STAMPEDE_BUILD_LOG.
set -u
out=unknown
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[i]}" = -o ] && out=${args[i + 1]:-unknown}
done
TIMEFORMAT='%U %S %R'
{ time "$@" 2>&3; } 3>&2 2>"$STAMPEDE_BUILD_LOG.$$"
rc=$?
read -r user sys real <"$STAMPEDE_BUILD_LOG.$$"
rm -f "$STAMPEDE_BUILD_LOG.$$"
echo "$user $sys $real $out" >>"$STAMPEDE_BUILD_LOG"
exit $rc
