#!/usr/bin/env bash
# Decisions per second of one fakeprovider with its quota in process and in Redis (--store), in
# one run. Figures and how to read them: bench/provider/README.md.
#
#   bench/provider/store.sh [BUILD_DIR]      (default: build; needs wrk, redis-server, redis-cli)
#
# Environment: DURATION (wrk run per point, default 10s), CONNECTIONS (default "50 400"),
# REPEAT (rounds per connection count, default 3, the two providers in alternating order; the
# summary lines are the medians), ALLOWANCE (default 1000/s: mostly 429, every request a
# decision either way).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
duration=${DURATION:-10s}
connections=${CONNECTIONS:-50 400}
repeat=${REPEAT:-3}
allowance=${ALLOWANCE:-1000/s}

# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup wrk redis-server redis-cli python3

redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
  >"$tmp/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
for _ in $(seq 1 500); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.01
done

declare -A port admin pid_of
start_provider --allowance "$allowance"
port[local]=$data_port admin[local]=$admin_port pid_of[local]=$fp_pid
start_provider --allowance "$allowance" --store "redis://127.0.0.1:$redis_port/bench"
port[redis]=$data_port admin[redis]=$admin_port pid_of[redis]=$fp_pid

echo "== decisions/s: wrk -t2 -cN -d$duration, --allowance $allowance, $repeat round(s) =="
echo "   (CPU us/req: the provider's, and for the store Redis's too)"
printf '%-6s %-6s | %-30s | %-30s | %s\n' conns round "in process req/s, p99 ms, CPU" \
  "Redis store req/s, p99 ms, CPU" "ratio"
summary=()
for c in $connections; do
  : >"$tmp/points"
  for r in $(seq 1 "$repeat"); do
    order=(local redis)
    [ $((r % 2)) = 0 ] && order=(redis local)
    declare -A result=()
    for which in "${order[@]}"; do
      # shellcheck disable=SC2046
      result[$which]=$(wrk_point "http://127.0.0.1:${port[$which]}/" "$c" "${pid_of[$which]}" \
        $([ "$which" = redis ] && echo "$redis_pid"))
    done
    read -r l_rps l_p99 _ _ l_cpu <<<"${result[local]}"
    read -r s_rps s_p99 _ _ s_cpu <<<"${result[redis]}"
    echo "$l_rps $l_p99 $l_cpu $s_rps $s_p99 $s_cpu" >>"$tmp/points"
    printf '%-6s %-6s | %8s %8s %8s   | %8s %8s %8s   | %sx\n' "$c" "$r" "$l_rps" "$l_p99" \
      "$l_cpu" "$s_rps" "$s_p99" "$s_cpu" "$(python3 -c "print(f'{$s_rps / $l_rps:.2f}')")"
  done
  summary+=("$(python3 - "$c" "$tmp/points" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[2])]
m = [statistics.median(col) for col in zip(*rows)]
print(f"{sys.argv[1]:<6} median | {m[0]:8.0f} {m[1]:8.2f} {m[2]:8.1f}   | {m[3]:8.0f} {m[4]:8.2f}"
      f" {m[5]:8.1f}   | {m[3] / m[0]:.2f}x")
PY
)")
done
printf '%s\n' "${summary[@]}"
for which in local redis; do
  echo "$which: $(curl -s "http://127.0.0.1:${admin[$which]}/admin/stats" |
    python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["requests"], "requests:", {k: v for k, v in s["totals"].items() if v})')"
done
