#!/bin/sh
# Report generation time and size for the storm of examples/storm.json at 1,000 and
# 1,000,000 clients (allowance a tenth of the fleet per second, as in the seeds' 1000 vs 100/s),
# for one run and for the exponential vs full-jitter comparison.
#
# usage: bench/report/run.sh [BUILD_DIR]        (default: build; run from the repository root)
# Each report is written REPEAT times (default 5); the table shows the median and the fastest
# wall time of `loadgen report`, process start and reading the results files included.
set -eu
BUILD=${1:-build}
REPEAT=${REPEAT:-5}
LOADGEN=$BUILD/bin/loadgen
OUT=$(mktemp -d /tmp/stampede-bench-report.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

if ! "$LOADGEN" report --help >/dev/null 2>&1; then
  echo "bench/report: $LOADGEN has no report subcommand" >&2
  exit 2
fi

now_ms() { date +%s%N | awk '{ printf "%.3f", $1 / 1e6 }'; }

# Milliseconds of every try, sorted; prints "median fastest".
time_report() {
  out=$1; shift
  tries=""
  i=0
  while [ "$i" -lt "$REPEAT" ]; do
    start=$(now_ms)
    "$LOADGEN" report "$@" -o "$out" >/dev/null
    end=$(now_ms)
    tries="$tries $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
    i=$((i + 1))
  done
  echo "$tries" | tr ' ' '\n' | grep . | sort -n |
    awk '{ v[NR] = $1 } END { printf "%s %s", v[int((NR + 1) / 2)], v[1] }'
}

size() { wc -c <"$1" | tr -d ' '; }

printf '| clients | report | results JSON | HTML | median | fastest |\n'
printf '|---:|---|---:|---:|---:|---:|\n'
for clients in 1000 1000000; do
  for strategy in exponential full-jitter; do
    sim_start=$(now_ms)
    "$LOADGEN" simulate --scenario examples/storm.json --clients "$clients" \
      --allowance "$((clients / 10))/s" --strategy "$strategy" --quiet \
      --out "$OUT/$clients-$strategy.json" || [ $? -eq 1 ]
    sim_end=$(now_ms)
    echo "simulated $clients clients, $strategy, in $(awk -v a="$sim_start" -v b="$sim_end" \
      'BEGIN { printf "%.2f", (b - a) / 1000 }') s" >&2
  done
  for strategy in exponential full-jitter; do
    set -- $(time_report "$OUT/$clients-$strategy.html" "$OUT/$clients-$strategy.json")
    printf '| %s | %s | %s B | %s B | %s ms | %s ms |\n' "$clients" "$strategy" \
      "$(size "$OUT/$clients-$strategy.json")" "$(size "$OUT/$clients-$strategy.html")" "$1" "$2"
  done
  set -- $(time_report "$OUT/$clients-both.html" "$OUT/$clients-exponential.json" \
    "$OUT/$clients-full-jitter.json")
  printf '| %s | comparison of both | %s B | %s B | %s ms | %s ms |\n' "$clients" \
    "$(($(size "$OUT/$clients-exponential.json") + $(size "$OUT/$clients-full-jitter.json")))" \
    "$(size "$OUT/$clients-both.html")" "$1" "$2"
done
