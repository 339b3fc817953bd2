#!/usr/bin/env bash
# fakeprovider --processes N: what serving the data plane from N processes costs against one
# (wrk at CONNECTIONS, rounds alternating between the process counts), and the connections N
# processes hold (HOLD clients from loopback addresses 127.0.0.2 on, each sending once after
# all are connected). Figures: bench/provider/README.md.
#
#   bench/provider/processes.sh [BUILD_DIR]     (default: build; needs wrk, python3)
#
# Environment: DURATION (wrk run per point, default 5s), CONNECTIONS (default "400 1000"),
# PROCESSES (default "1 3"), REPEAT (rounds, default 3; the summary is the medians), HOLD
# (connections held, default 50000; 0: skip), HOLD_PROCESSES (default 3).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
duration=${DURATION:-5s}
connections=${CONNECTIONS:-400 1000}
processes=${PROCESSES:-1 3}
repeat=${REPEAT:-3}
hold=${HOLD:-50000}
hold_processes=${HOLD_PROCESSES:-3}
# At most this many connections per holding process (its open-file limit) and per source
# address (the local port range).
per_holder=16700

# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup wrk python3

# The provider and its workers: their CPU and their peak memory.
provider_pids() {
  echo "$fp_pid" $(pgrep -P "$fp_pid" || true)
}

peak_rss_kib() {
  local pid
  for pid in $(provider_pids); do awk '/VmHWM/ {printf "%s ", $2}' "/proc/$pid/status"; done
}

echo "== wrk -t2 -cC -d$duration, allowance 100/min (mostly 429); $repeat round(s): req/s, p99 ms, CPU us/request of the provider's processes =="
declare -A rps cpu
for round in $(seq 1 "$repeat"); do
  for n in $processes; do
    start_provider --allowance 100/min --processes "$n" --max-connections 19000
    for c in $connections; do
      # shellcheck disable=SC2046
      read -r r p99 _ _ us <<<"$(wrk_point "http://127.0.0.1:$data_port/" "$c" $(provider_pids))"
      echo "round $round, $n process(es), $c connections: $r req/s, p99 $p99 ms, $us us/request"
      rps[$n,$c]+="$r "
      cpu[$n,$c]+="$us "
    done
    stop_provider
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
first=${processes%% *}
echo "== medians =="
for c in $connections; do
  base=$(echo "${rps[$first,$c]}" | median)
  for n in $processes; do
    m=$(echo "${rps[$n,$c]}" | median)
    echo "$c connections, $n process(es): $m req/s ($(python3 -c "print(f'{$m / $base:.2f}')")x $first), $(echo "${cpu[$n,$c]}" | median) us/request"
  done
done

[ "$hold" -gt 0 ] || exit 0
echo "== $hold connections held by --processes $hold_processes, then one request each (allowance 1000/min) =="
start_provider --allowance 1000/min --processes "$hold_processes" --max-connections 19000
holders=$(((hold + per_holder - 1) / per_holder))
for i in $(seq 1 "$holders"); do
  count=$((i < holders ? per_holder : hold - per_holder * (holders - 1)))
  python3 "$root/bench/provider/hold_connections.py" "$data_port" "$count" "127.0.0.$((i + 1))" \
    >"$tmp/hold-$i.json" &
  pids+=("$!")
done
for i in $(seq 1 "$holders"); do wait "${pids[-$i]}"; done
cat "$tmp"/hold-*.json
echo "provider's stats: $(curl -s "http://127.0.0.1:$admin_port/admin/stats" |
  python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["requests"], "requests", {k: v for k, v in d["totals"].items() if v})')"
echo "peak RSS, KiB (owner, then each worker): $(peak_rss_kib)"
stop_provider
