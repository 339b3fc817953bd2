#!/usr/bin/env bash
# Runs each fuzzer for a bounded time on its committed seed corpus: fuzz/run.sh BUILD SECONDS
# TARGET... New inputs go to BUILD/fuzz-corpus/<target> (the committed corpus is only read);
# a crash is kept as BUILD/fuzz-crashes/<target>-crash-* and fails the run.
set -euo pipefail
build=$1 seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
failed=()
for target in "$@"; do
  work="$build/fuzz-corpus/$target"
  crashes="$build/fuzz-crashes"
  mkdir -p "$work" "$crashes"
  echo "fuzz: $target for ${seconds}s"
  # -rss_limit_mb: a parser that allocates with the input's numbers is a finding, not a pause.
  if ! "$build/bin/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$crashes/$target-" \
      "$work" "$here/corpus/$target" 2>"$build/fuzz-$target.log"; then
    tail -n 40 "$build/fuzz-$target.log"
    failed+=("$target")
  else
    grep -E '^stat::number_of_executed_units|^Done' "$build/fuzz-$target.log" || true
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $build/fuzz-crashes)"
  exit 1
fi
echo "fuzz: all ${#@} targets ran ${seconds}s each without a finding"
