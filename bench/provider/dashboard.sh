#!/usr/bin/env bash
# What a live dashboard costs the data plane: wrk at CONNECTIONS against one fakeprovider,
# rounds alternating between no stream open and DASHBOARDS readers of GET /admin/live (each
# a curl reading the stream, as a browser's EventSource does). Figures: bench/provider/README.md.
#
#   bench/provider/dashboard.sh [BUILD_DIR]     (default: build; needs wrk, curl, python3)
#
# Environment: DURATION (wrk run per point, default 10s), CONNECTIONS (default 400),
# DASHBOARDS (default "1 10"), REPEAT (rounds, default 3; the summary is the medians).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
duration=${DURATION:-10s}
connections=${CONNECTIONS:-400}
dashboards=${DASHBOARDS:-1 10}
repeat=${REPEAT:-3}

# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup wrk curl python3

# run.sh's allowance: all but a few answers are 429, the storm's answer.
start_provider --allowance 100/min
url=http://127.0.0.1:$data_port/

# Opens n streams; sets readers to their PIDs.
open_dashboards() {
  readers=()
  local i
  for i in $(seq 1 "$1"); do
    curl -sN "http://127.0.0.1:$admin_port/admin/live" >/dev/null &
    readers+=("$!")
    pids+=("$!")
  done
  sleep 2  # every stream has had its first event
}

close_dashboards() {
  local pid
  for pid in "${readers[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 2  # the provider finds them gone at its next event
}

echo "== wrk -t2 -c$connections -d$duration, allowance 100/min; $repeat round(s): req/s, p99 ms, server CPU us/request =="
declare -A rps
for round in $(seq 1 "$repeat"); do
  read -r r p99 _ _ cpu <<<"$(wrk_point "$url" "$connections" "$fp_pid")"
  echo "round $round, no dashboard: $r req/s, p99 $p99 ms, $cpu us/request"
  rps[0]+="$r "
  for n in $dashboards; do
    open_dashboards "$n"
    read -r r p99 _ _ cpu <<<"$(wrk_point "$url" "$connections" "$fp_pid")"
    echo "round $round, $n dashboard(s): $r req/s, p99 $p99 ms, $cpu us/request"
    rps[$n]+="$r "
    close_dashboards
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
base=$(median <<<"${rps[0]}")
echo "== medians =="
echo "no dashboard: $base req/s"
for n in $dashboards; do
  m=$(median <<<"${rps[$n]}")
  python3 -c "import sys; b, m = float(sys.argv[1]), float(sys.argv[2]); print(f'$n dashboard(s): {m:.0f} req/s, {m / b:.3f}x')" "$base" "$m"
done
