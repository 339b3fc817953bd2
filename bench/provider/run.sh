#!/usr/bin/env bash
# fakeprovider against nginx limit_req under wrk, in one run, and fakeprovider's burst
# fidelity. Figures and how to read them: bench/provider/README.md.
#
#   bench/provider/run.sh [BUILD_DIR]        (default: build; needs wrk, nginx, g++, python3)
#
# Environment: DURATION (wrk run per point, default 10s), CONNECTIONS (default "50 400 1000"),
# BURSTS (default "1000 5000"), REPEAT (rounds per connection count and per burst, default 3;
# the summary lines are the medians).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
provider=$build/bin/fakeprovider
duration=${DURATION:-10s}
connections=${CONNECTIONS:-50 400 1000}
bursts=${BURSTS:-1000 5000}
repeat=${REPEAT:-3}

for tool in wrk nginx g++ python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }
done
[ -x "$provider" ] || { echo "run.sh: no $provider; build first (make build)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/stampede-bench-provider.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$tmp/nginx/nginx.pid" ] && kill "$(cat "$tmp/nginx/nginx.pid")" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n 20000 2>/dev/null || true

# Starts fakeprovider with the given flags on ephemeral ports; sets data_port, admin_port, fp_pid.
start_provider() {
  local out=$tmp/provider.out
  "$provider" --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 "$@" >"$out" 2>"$tmp/provider.err" &
  fp_pid=$!
  pids+=("$fp_pid")
  for _ in $(seq 1 500); do
    [ "$(wc -l <"$out")" -ge 2 ] && break
    sleep 0.01
  done
  data_port=$(sed -n '1s/.*://p' "$out")
  admin_port=$(sed -n '2s/.*://p' "$out")
  [ -n "$data_port" ] && [ -n "$admin_port" ] || { cat "$tmp/provider.err" >&2; exit 1; }
}

stop_provider() {
  kill -TERM "$fp_pid"
  wait "$fp_pid" || true
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# nginx with the same allowance, answered 429 by limit_req, as root with a temporary prefix.
start_nginx() {
  nginx_port=$(free_port)
  mkdir -p "$tmp/nginx/logs" "$tmp/nginx/html"
  printf '{"type":"message","status":"ok"}' >"$tmp/nginx/html/ok.json"
  local user_line=""
  [ "$(id -u)" = 0 ] && user_line="user root;"
  cat >"$tmp/nginx/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 600s;
  limit_req_zone \$binary_remote_addr zone=api:1m rate=100r/m;
  limit_req_status 429;
  server {
    listen 127.0.0.1:$nginx_port backlog=4096;
    root $tmp/nginx/html;
    default_type application/json;
    location / {
      limit_req zone=api;
      try_files /ok.json =404;
    }
  }
}
CONF
  nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf"
  for _ in $(seq 1 500); do
    curl -s -o /dev/null "http://127.0.0.1:$nginx_port/" 2>/dev/null && break
    sleep 0.01
  done
}

# "req/s p99_ms non2xx" from one wrk run.
wrk_point() {
  wrk -t2 -c"$2" -d"$duration" --latency "$1" | python3 -c '
import re, sys
text = sys.stdin.read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
v, unit = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", text).groups()
p99 = float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
total = re.search(r"(\d+) requests in", text).group(1)
print(f"{rps:.0f} {p99:.2f} {m.group(1) if m else 0} {total}")'
}

echo "== throughput: wrk -t2 -cN -d$duration --latency, allowance 100/min (mostly 429), $repeat round(s) =="
start_provider --allowance 100/min --arrivals-out "$tmp/wrk-arrivals.csv"
start_nginx
printf '%-6s %-5s | %-30s | %-30s | %s\n' conns round "fakeprovider req/s, p99 ms" \
  "nginx limit_req req/s, p99 ms" "ratio"
summary=()
for c in $connections; do
  : >"$tmp/ratios"
  for r in $(seq 1 "$repeat"); do
    # Alternate who goes first, so a drift in the machine's load favours neither.
    if [ $((r % 2)) = 1 ]; then
      fp=$(wrk_point "http://127.0.0.1:$data_port/" "$c")
      ng=$(wrk_point "http://127.0.0.1:$nginx_port/" "$c")
    else
      ng=$(wrk_point "http://127.0.0.1:$nginx_port/" "$c")
      fp=$(wrk_point "http://127.0.0.1:$data_port/" "$c")
    fi
    read -r fp_rps fp_p99 fp_non2xx fp_total <<<"$fp"
    read -r ng_rps ng_p99 ng_non2xx ng_total <<<"$ng"
    ratio=$(python3 -c "print(f'{$fp_rps/$ng_rps:.2f}')")
    echo "$fp_rps $fp_p99 $ng_rps $ng_p99" >>"$tmp/ratios"
    printf '%-6s %-5s | %8s  %8s  (429: %3s%%) | %8s  %8s  (429: %3s%%) | %sx\n' "$c" "$r" \
      "$fp_rps" "$fp_p99" "$((100 * fp_non2xx / fp_total))" \
      "$ng_rps" "$ng_p99" "$((100 * ng_non2xx / ng_total))" "$ratio"
  done
  summary+=("$(python3 -c '
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[2])]
med = [statistics.median(col) for col in zip(*rows)]
print(f"{sys.argv[1]:<6} median | {med[0]:8.0f}  {med[1]:8.2f}             | "
      f"{med[2]:8.0f}  {med[3]:8.2f}             | {med[0] / med[2]:.2f}x")' "$c" "$tmp/ratios")")
done
printf '%s\n' "${summary[@]}"
stop_provider
recorded=$(($(wc -l <"$tmp/wrk-arrivals.csv") - 1))
echo "fakeprovider recorded $recorded arrivals in its log ($(tail -1 "$tmp/provider.err"))"

echo
echo "== burst fidelity: N requests at once on N warm keep-alive connections =="
g++ -O2 -std=c++20 -o "$tmp/burst_client" "$root/bench/provider/burst_client.cpp"
for n in $bursts; do
  for _ in $(seq 1 "$repeat"); do
    start_provider --allowance 100/s --arrivals-out "$tmp/burst-arrivals.csv"
    "$tmp/burst_client" "$data_port" "$admin_port" "$n" >"$tmp/sends.csv"
    stop_provider
    python3 "$root/bench/provider/stamp_error.py" "$tmp/sends.csv" "$tmp/burst-arrivals.csv" "$n"
  done
done
