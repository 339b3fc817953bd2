#!/usr/bin/env bash
# Contention storms live (occ mode): loadgen run --mode occ against fakeprovider --mode occ
# --hop-delay 10ms,2ms, which holds each request one hop before the row decides it and answers
# one more hop later, as the simulator's network does. 100 clients, cap 2000ms, base 10ms (5ms
# for decorrelated jitter), as bench/occ/run.sh. Each strategy RUNS times (default 3) at each
# of SCALES (default "0.5"); every run is printed, with the simulation's figures beside it.
# The hops are scenario time, scaled like the backoffs: loadgen takes each answer's time from
# the scenario clock (--no-latency-compensation), not the send plus the unscaled wire time.
#   bench/occ/live.sh [BUILD_DIR]        SCALES="0.25 0.5" RUNS=5 bench/occ/live.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
loadgen=$build/bin/loadgen
provider=$build/bin/fakeprovider
scales=${SCALES:-0.5}
runs=${RUNS:-3}
clients=${CLIENTS:-100}
hop=${HOP:-10ms,2ms}
strategies=${STRATEGIES:-"none exponential full-jitter equal-jitter decorrelated-jitter"}
[ -x "$loadgen" ] && [ -x "$provider" ] || { echo "live.sh: build first (make build)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/stampede-bench-occ.XXXXXX)
fp_pid=
cleanup() {
  [ -n "$fp_pid" ] && kill "$fp_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# fakeprovider on ephemeral ports; sets row, admin, fp_pid.
start_provider() {
  "$provider" --mode occ --hop-delay "$hop" --time-scale "$1" --listen 127.0.0.1:0 \
    --admin-listen 127.0.0.1:0 >"$tmp/provider.out" 2>"$tmp/provider.err" &
  fp_pid=$!
  for _ in $(seq 1 500); do
    [ "$(wc -l <"$tmp/provider.out")" -ge 2 ] && break
    sleep 0.01
  done
  row=$(sed -n '1s/listening on //p' "$tmp/provider.out")/row
  admin=$(sed -n '2s/admin on //p' "$tmp/provider.out")
  [ -n "$admin" ] || { cat "$tmp/provider.err" >&2; exit 1; }
}

stop_provider() {
  kill -TERM "$fp_pid" 2>/dev/null || true
  wait "$fp_pid" 2>/dev/null || true
  fp_pid=
}

echo "uptime: $(uptime)"
echo "| scale | strategy | run | writes | drain (s) | simulated writes | simulated drain (s) |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for scale in $scales; do
  for strategy in $strategies; do
    base=10ms
    [ "$strategy" = decorrelated-jitter ] && base=5ms
    for run in $(seq 1 "$runs"); do
      start_provider "$scale"
      # A fresh provider per run: the row at version 0, the clock at t=0.
      "$loadgen" run --mode occ --url "$row" --provider-admin "$admin" --time-scale "$scale" \
        --clients "$clients" --strategy "$strategy" --base "$base" --cap 2s \
        --hop-delay "$hop" --no-latency-compensation --seed "$run" --quiet --no-report --out "$tmp/r.json" \
        >/dev/null 2>"$tmp/loadgen.err" || { cat "$tmp/loadgen.err" >&2; exit 1; }
      stop_provider
      python3 - "$tmp/r.json" "$scale" "$strategy" "$run" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s, sim = r["summary"], r["comparison"]["simulated"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {s['writes']:,.0f} | "
      f"{s['drain_s']:.2f} | {sim['writes']:,.0f} | {sim['drain_s']:.2f} |")
PY
    done
  done
done
echo "uptime: $(uptime)"
