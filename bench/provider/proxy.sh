#!/usr/bin/env bash
# Proxy mode beside nginx proxy_pass, both in front of one upstream (nginx answering 200), in
# one run. Figures and how to read them: bench/provider/README.md, "Proxy mode".
#
#   bench/provider/proxy.sh [BUILD_DIR]        (default: build; needs wrk, nginx, python3)
#
# 1. Throughput: wrk -t2 -cCONNECTIONS --latency against fakeprovider --upstream (no
#    allowance: every request is forwarded) and nginx-proxy-pass.conf, in turn each round.
# 2. Added latency at a light, paced load: wrk with paced.lua (RATE_CONNECTIONS connections,
#    each a request every PACE_MS: about 1,000 req/s) against the upstream itself and through
#    each proxy; a proxy's added latency is its p50 and p99 less the upstream's own.
# Environment: DURATION (per wrk run, default 10s), CONNECTIONS (default 400), REPEAT (rounds,
# default 3; the summary lines are the medians), RATE_CONNECTIONS (default 10), PACE_MS
# (default 10).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
duration=${DURATION:-10s}
connections=${CONNECTIONS:-400}
repeat=${REPEAT:-3}
rate_connections=${RATE_CONNECTIONS:-10}
export PACE_MS=${PACE_MS:-10}

# bench_setup, start_provider, stop_provider, free_port, cpu_ticks, wrk_point.
# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup wrk nginx python3
extra_cleanup() {
  local pidfile
  for pidfile in "$tmp"/*/nginx.pid; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
}

# start_nginx NAME CONF PORT_IN_CONF [SED_EXPR]: nginx from bench/provider/CONF in $tmp/NAME
# on a free port (echoed), as root when root.
start_nginx() {
  local name=$1 conf=$2 placeholder=$3 extra=${4:-} port dir
  port=$(free_port)
  dir=$tmp/$name
  mkdir -p "$dir/logs"
  {
    [ "$(id -u)" = 0 ] && echo "user root;"
    sed -e "s|NGINX_PREFIX|$dir|g" -e "s|127.0.0.1:$placeholder|127.0.0.1:$port|" \
      ${extra:+-e "$extra"} "$root/bench/provider/$conf"
  } >"$dir/nginx.conf"
  nginx -p "$dir" -c "$dir/nginx.conf"
  for _ in $(seq 1 500); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
    sleep 0.01
  done
  echo "$port"
}

# nginx's master and its workers.
nginx_pids() {
  local master
  master=$(cat "$tmp/$1/nginx.pid")
  echo "$master" $(pgrep -P "$master")
}

# "p50_ms p99_ms req/s" of a paced wrk run against URL.
paced_point() {
  wrk -t2 -c"$rate_connections" -d"$duration" --latency -s "$root/bench/provider/paced.lua" \
    "$1" >"$tmp/paced.out"
  python3 - "$tmp/paced.out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def ms(q):
    v, unit = re.search(r"\s" + q + r"%\s+([\d.]+)(us|ms|s)", text).groups()
    return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
print(f"{ms('50'):.3f} {ms('99'):.3f} {rps:.0f}")
PY
}

upstream_port=$(start_nginx upstream nginx-upstream.conf 8093)
nginx_port=$(start_nginx proxy nginx-proxy-pass.conf 8092 "s|UPSTREAM_PORT|$upstream_port|")
start_provider --upstream "http://127.0.0.1:$upstream_port"
upstream_url=http://127.0.0.1:$upstream_port/v1/messages
ours_url=http://127.0.0.1:$data_port/v1/messages
theirs_url=http://127.0.0.1:$nginx_port/v1/messages
# The same answer both ways, or the comparison means nothing.
[ "$(curl -s "$ours_url")" = "$(curl -s "$theirs_url")" ] || {
  echo "proxy.sh: the two proxies pass on different bodies" >&2
  exit 1
}

echo "== nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== throughput: wrk -t2 -c$connections -d$duration, $repeat round(s); cpu: the proxy's own, us/request =="
echo "== added latency: wrk -c$rate_connections, a request every $PACE_MS ms per connection =="
: >"$tmp/rows"
for round in $(seq 1 "$repeat"); do
  read -r f_rps f_p99 f_non2xx _ f_cpu <<<"$(wrk_point "$ours_url" "$connections" "$fp_pid")"
  # shellcheck disable=SC2046  # one PID per word
  read -r n_rps n_p99 n_non2xx _ n_cpu <<<"$(wrk_point "$theirs_url" "$connections" $(nginx_pids proxy))"
  read -r u_p50 u_p99 u_rps <<<"$(paced_point "$upstream_url")"
  read -r fl_p50 fl_p99 fl_rps <<<"$(paced_point "$ours_url")"
  read -r nl_p50 nl_p99 _ <<<"$(paced_point "$theirs_url")"
  echo "round $round: fakeprovider $f_rps req/s (p99 $f_p99 ms, non-2xx $f_non2xx, cpu $f_cpu)," \
    "nginx $n_rps req/s (p99 $n_p99 ms, non-2xx $n_non2xx, cpu $n_cpu);" \
    "paced at $fl_rps req/s: upstream p50/p99 $u_p50/$u_p99 ms, through fakeprovider" \
    "$fl_p50/$fl_p99 ms, through nginx $nl_p50/$nl_p99 ms"
  echo "$f_rps $n_rps $u_p50 $u_p99 $fl_p50 $fl_p99 $nl_p50 $nl_p99" >>"$tmp/rows"
done
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
med = lambda i: statistics.median(r[i] for r in rows)
ratio = statistics.median(r[0] / r[1] for r in rows)
print(f"median: fakeprovider {med(0):.0f} req/s, nginx proxy_pass {med(1):.0f} req/s: {ratio:.2f}x")
added = lambda p, u: statistics.median((r[p] - r[u]) * 1000 for r in rows)
print(f"median added latency, us: fakeprovider p50 {added(4, 2):.0f}, p99 {added(5, 3):.0f};"
      f" nginx p50 {added(6, 2):.0f}, p99 {added(7, 3):.0f}")
PY
