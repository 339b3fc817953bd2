#!/usr/bin/env bash
# Trace replay at ten million lines (issue 42, item 5): `loadgen simulate --workload trace`
# on a CSV and on an nginx log with $msec, beside the steady workload with as many items at
# the same rate and clients. Prints wall and CPU time (user + system) and peak RSS of each
# run, and each trace's ratio to steady in both (target: 1.5x the time, in bounded memory).
# simulate reads the trace on a second thread while the simulation plays it, so the wall
# time is what a user waits and the CPU time what both threads spent; each is the least of
# RUNS, as the machine may be shared. LINES=1000000 for a short one.
set -euo pipefail
build=${1:-build}
lines=${LINES:-10000000}
runs=${RUNS:-3}
rate=1000  # lines a second in both traces: 10,000 s of arrivals at ten million
bin="$build/bin/loadgen"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# One second's lines share the epoch second; the fraction counts through it: in order.
awk -v n="$lines" -v r="$rate" 'BEGIN {
  print "time,tenant,tokens,method,path"
  for (i = 0; i < n; i++)
    printf "%d.%03d,tenant-%d,%d,POST,/v1/chat/completions\n",
      1767225600 + int(i / r), int((i % r) * 1000 / r), i % 37, 100 + i % 900
}' >"$dir/trace.csv"
awk -v n="$lines" -v r="$rate" 'BEGIN {
  for (i = 0; i < n; i++)
    printf "10.0.%d.%d - - [01/Jan/2026:00:00:00 +0000] \"POST /v1/chat/completions HTTP/1.1\" 200 %d \"-\" \"curl/8.5.0\" %d.%03d\n",
      int(i / 256) % 256, i % 256, 100 + i % 900, 1767225600 + int(i / r), int((i % r) * 1000 / r)
}' >"$dir/trace.log"

common=(simulate --clients 1000 --seed 1 --quiet)
least() {  # the smaller of two numbers
  awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'
}
run() {  # name, then the workload's flags; prints "name cpu wall rss": the least of each
  local name=$1 cpu_best= wall_best= rss_best=
  shift
  for i in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$bin" "${common[@]}" --out "$dir/$name.json" "$@"
    read -r wall user sys rss <"$dir/time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    echo "$name run $i: $cpu s CPU, $wall s wall, $((rss / 1024)) MiB peak RSS" >&2
    cpu_best=$(least "$cpu" "$cpu_best")
    wall_best=$(least "$wall" "$wall_best")
    rss_best=$(awk -v a="$rss" -v b="$rss_best" 'BEGIN { print (b == "" || a > b) ? a : b }')
  done
  echo "$name $cpu_best $wall_best $rss_best"
}
steady=$(run steady --workload steady --rate "$rate/s" --duration "$((lines / rate))s")
csv=$(run csv --workload trace --trace "$dir/trace.csv")
log=$(run log --workload trace --trace "$dir/trace.log")

python3 - "$dir" "$steady" "$csv" "$log" <<'PY'
import json, sys
d = sys.argv[1]
rows = [a.split() for a in sys.argv[2:]]
cpu0, wall0 = float(rows[0][1]), float(rows[0][2])
for name, cpu, wall, rss in rows:
    items = json.load(open(f"{d}/{name}.json"))["summary"]["items"]
    print(f"{name:6} {int(items):>10} items  {float(wall):6.2f} s wall "
          f"({float(wall) / wall0:4.2f}x steady's)  {float(cpu):6.2f} s CPU "
          f"({float(cpu) / cpu0:4.2f}x)  {int(rss) / 1024:6.1f} MiB peak RSS (the most)")
PY
