#!/usr/bin/env bash
# fakeprovider against nginx limit_req under wrk, in one run, and fakeprovider's burst
# fidelity. Figures and how to read them: bench/provider/README.md.
#
#   bench/provider/run.sh [BUILD_DIR]        (default: build; needs wrk, nginx, g++, python3)
#
# Environment: DURATION (wrk run per point, default 10s), CONNECTIONS (default "50 400 1000"),
# BURSTS (default "1000 5000"), REPEAT (rounds per connection count and per burst, default 3;
# the summary lines are the medians), MODES (fakeprovider --arrival-stamp modes, default
# "kernel watch"), FLOORS (floor_server.cpp's ways to wait measured beside them, default
# "epoll uring"; empty for none).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
duration=${DURATION:-10s}
connections=${CONNECTIONS:-50 400 1000}
bursts=${BURSTS:-1000 5000}
repeat=${REPEAT:-3}
modes=${MODES:-kernel watch}
floors=${FLOORS-epoll uring}
# fakeprovider's allowance and the same rate in nginx's words: all but a few answers are 429.
allowance=100/min
nginx_rate=100r/m

# bench_setup, start_provider, stop_provider, free_port, cpu_ticks, wrk_point.
# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup wrk nginx g++ python3
extra_cleanup() {
  [ -f "$tmp/nginx/nginx.pid" ] && kill "$(cat "$tmp/nginx/nginx.pid")" 2>/dev/null || true
}

# nginx as a user who wants a rate-limited fake would configure it (nginx-limit-req.conf:
# limit_req with burst and nodelay, the 429 sent by a named location with Retry-After and
# fakeprovider's 182-byte body), its port and prefix ours, its rate fakeprovider's allowance;
# as root when root (nginx would otherwise switch to nobody, who cannot read $tmp).
start_nginx() {
  nginx_port=$(free_port)
  mkdir -p "$tmp/nginx/logs" "$tmp/nginx/html"
  printf '{"type":"message","status":"ok"}' >"$tmp/nginx/html/index.html"
  {
    [ "$(id -u)" = 0 ] && echo "user root;"
    sed -e "s|NGINX_PREFIX|$tmp/nginx|g" -e "s|127.0.0.1:8090|127.0.0.1:$nginx_port|" \
      -e "s|rate=100r/s|rate=$nginx_rate|" "$root/bench/provider/nginx-limit-req.conf"
  } >"$tmp/nginx/nginx.conf"
  if ! grep -q "127.0.0.1:$nginx_port" "$tmp/nginx/nginx.conf" ||
    ! grep -q "rate=$nginx_rate" "$tmp/nginx/nginx.conf"; then
    echo "run.sh: nginx-limit-req.conf no longer has the port or rate to replace" >&2
    exit 1
  fi
  nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf"
  for _ in $(seq 1 500); do
    curl -s -o /dev/null "http://127.0.0.1:$nginx_port/" 2>/dev/null && break
    sleep 0.01
  done
}

# The body of the first 429 from the server on PORT (asked on one keep-alive connection, at
# most 300 times): both servers must give the same answer for the comparison to mean anything.
first_429_body() {
  python3 - "$1" <<'PY'
import http.client, sys
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
for _ in range(300):
    conn.request("GET", "/")
    r = conn.getresponse()
    body = r.read()
    if r.status == 429:
        sys.stdout.buffer.write(body)
        sys.exit(0)
sys.exit("no 429 in 300 requests")
PY
}

echo "== throughput: wrk -t2 -cN -d$duration --latency, allowance $allowance (mostly 429), $repeat round(s) =="
declare -A port pid_of
for mode in $modes; do
  start_provider --allowance "$allowance" --arrival-stamp "$mode" --arrivals-out "$tmp/wrk-$mode.csv"
  port[$mode]=$data_port
  pid_of[$mode]=$fp_pid
done
# The floor (floor_server.cpp): fakeprovider's 429 bytes and nothing else, as fast as the
# kernel lets any server answer under this wrk on this machine.
servers=$modes
first_floor=
for way in $floors; do
  flags=()
  if [ "$way" = uring ]; then flags=(-DWITH_URING -luring); fi
  if ! g++ -O2 -std=c++20 -pthread -o "$tmp/floor-$way" "$root/bench/provider/floor_server.cpp" \
    "${flags[@]}" 2>"$tmp/floor-$way.err"; then
    echo "run.sh: floor $way not built (for uring: apt-get install liburing-dev), left out" >&2
    continue
  fi
  "$tmp/floor-$way" "$way" 2 >"$tmp/floor-$way.port" &
  pids+=("$!")
  pid_of[floor-$way]=$!
  for _ in $(seq 1 500); do [ -s "$tmp/floor-$way.port" ] && break; sleep 0.01; done
  port[floor-$way]=$(cat "$tmp/floor-$way.port")
  servers="$servers floor-$way"
  first_floor=${first_floor:-floor-$way}
done
start_nginx
for mode in $servers; do
  cmp -s <(first_429_body "${port[$mode]}") <(first_429_body "$nginx_port") ||
    [[ $mode == floor-* ]] ||
    { echo "run.sh: fakeprovider ($mode) and nginx answer 429 with different bodies" >&2; exit 1; }
done
nginx_workers=$(pgrep -P "$(cat "$tmp/nginx/nginx.pid")" | tr '\n' ' ')
printf '%-6s %-6s %-11s | %-36s | %-36s | %s\n' conns round server \
  "server req/s, p99 ms, CPU us/req" "nginx limit_req req/s, p99 ms, CPU us/req" "ratio"
summary=()
for c in $connections; do
  for mode in $servers; do : >"$tmp/points-$mode"; done
  for r in $(seq 1 "$repeat"); do
    # nginx second, the others around it in turn, so a drift in the machine's load favours
    # no one.
    # shellcheck disable=SC2086
    order=($servers)
    [ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${order[@]}" | tac))
    declare -A result=()
    result[${order[0]}]=$(wrk_point "http://127.0.0.1:${port[${order[0]}]}/" "$c" "${pid_of[${order[0]}]}")
    # shellcheck disable=SC2086
    ng=$(wrk_point "http://127.0.0.1:$nginx_port/" "$c" $nginx_workers)
    for mode in "${order[@]:1}"; do
      result[$mode]=$(wrk_point "http://127.0.0.1:${port[$mode]}/" "$c" "${pid_of[$mode]}")
    done
    read -r ng_rps ng_p99 ng_non2xx ng_total ng_cpu <<<"$ng"
    for mode in $servers; do
      read -r fp_rps fp_p99 fp_non2xx fp_total fp_cpu <<<"${result[$mode]}"
      echo "$fp_rps $fp_p99 $fp_cpu $ng_rps $ng_p99 $ng_cpu" >>"$tmp/points-$mode"
      printf '%-6s %-6s %-11s | %8s %8s %6s (429: %3s%%) | %8s %8s %6s (429: %3s%%) | %sx\n' \
        "$c" "$r" "$mode" "$fp_rps" "$fp_p99" "$fp_cpu" "$((100 * fp_non2xx / fp_total))" \
        "$ng_rps" "$ng_p99" "$ng_cpu" "$((100 * ng_non2xx / ng_total))" \
        "$(python3 -c "print(f'{$fp_rps / $ng_rps:.2f}')")"
    done
  done
  for mode in $servers; do
    # Beside nginx, and beside the first floor measured, if any.
    summary+=("$(python3 - "$c" "$mode" "$tmp/points-$mode" "$tmp/points-$first_floor" <<'PY'
import os, statistics, sys
def medians(path):
    rows = [list(map(float, line.split())) for line in open(path)]
    return [statistics.median(col) for col in zip(*rows)]
m = medians(sys.argv[3])
floor = sys.argv[4]
beside_floor = ""
if os.path.isfile(floor) and not sys.argv[2].startswith("floor-"):
    beside_floor = f", {m[0] / medians(floor)[0]:.2f}x the floor"
print(f"{sys.argv[1]:<6} median {sys.argv[2]:<11} | {m[0]:8.0f} {m[1]:8.2f} {m[2]:6.1f}"
      f"             | {m[3]:8.0f} {m[4]:8.2f} {m[5]:6.1f}             | {m[0] / m[3]:.2f}x"
      f"{beside_floor}")
PY
)")
  done
done
printf '%s\n' "${summary[@]}"
for mode in $modes; do
  kill -TERM "${pid_of[$mode]}"
  wait "${pid_of[$mode]}" || true
  echo "fakeprovider ($mode) recorded $(($(wc -l <"$tmp/wrk-$mode.csv") - 1)) arrivals in its log"
done

echo
echo "== burst fidelity: N requests at once on N warm keep-alive connections =="
g++ -O2 -std=c++20 -o "$tmp/burst_client" "$root/bench/provider/burst_client.cpp"
for n in $bursts; do
  for mode in $modes; do
    for _ in $(seq 1 "$repeat"); do
      start_provider --allowance 100/s --arrival-stamp "$mode" \
        --arrivals-out "$tmp/burst-arrivals.csv"
      "$tmp/burst_client" "$data_port" "$admin_port" "$n" >"$tmp/sends.csv"
      stop_provider
      echo -n "$mode: "
      python3 "$root/bench/provider/stamp_error.py" "$tmp/sends.csv" "$tmp/burst-arrivals.csv" \
        "$n"
    done
  done
done
