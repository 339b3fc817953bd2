#!/usr/bin/env bash
# The live engine's benchmarks. Figures and how to read them: bench/live/README.md.
#
#   bench/live/run.sh [BUILD_DIR] [PART...]      (default: build, all parts)
#
# Parts:
#   lateness     wake lateness and CPU of a full-jitter storm against fakeprovider at 1,000
#                and 10,000 clients (the storm's allowance scaled with the fleet)
#   rate         raw request rate: --strategy none with 1,000 clients against nginx serving a
#                static 200, and `wrk -t2 -c1000` (and `hey -c 1000`, when installed) against
#                the same nginx, round by round
#   storm        the acceptance storm (examples/storm.json at --time-scale 0.1): exponential,
#                then full jitter, each compared with its simulation
#   stream       the streamed storm (examples/llm_stream_storm.json at STREAM_SCALE, default
#                0.1): loadgen simulate, then loadgen run against fakeprovider, side by side
#   compression  the exponential storm at each of SCALES, to find the smallest --time-scale
#                at which the live run still matches the simulation exactly
#   fifty        50,000 clients (examples/waves-50k.json at FIFTY_SCALE) through one
#                `loadgen run` against `fakeprovider --processes 3`: the figures beside the
#                simulation's, per allowance window and send number, and every process's memory
#   cpu          CPU time per request of loadgen and of fakeprovider (user + system, which is
#                robust to other load where wall time is not): CPU_REQUESTS requests of
#                --strategy none against a provider that admits them all, then the exponential
#                storm at --time-scale 0.1
#
# Environment: SCALES (default "0.2 0.1 0.05"), RATE_REQUESTS (default 1000000: a round of
# seconds, not one, on a machine that does 200,000 a second), RATE_ROUNDS
# (default 5), FIFTY_SCALE (the fifty part's --time-scale, default 0.1: 18 s; at 1 a wave's
# retries are due over a wall second rather than 100 ms, and the part takes three minutes),
# CPU_REQUESTS (default 100000), PROVIDER_ARGS (extra fakeprovider flags, e.g.
# "--arrival-stamp read"),
# LATENCY_SCALE (time scale of the lateness storms, default 1), NICE (run every process of
# the benchmark, peers included, at this nice value, e.g. -10 on a machine busy with other
# work; default: unchanged).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
shift || true
parts=${*:-lateness rate storm compression}
loadgen=$build/bin/loadgen
provider=$build/bin/fakeprovider
scales=${SCALES:-0.2 0.1 0.05}
rate_requests=${RATE_REQUESTS:-1000000}
rate_rounds=${RATE_ROUNDS:-5}
cpu_requests=${CPU_REQUESTS:-100000}
read -r -a provider_args <<<"${PROVIDER_ARGS:-}"
latency_scale=${LATENCY_SCALE:-1}
run=()
[ -n "${NICE:-}" ] && run=(nice -n "$NICE")
storm=$root/examples/storm.json

needs() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }
  done
}
needs python3
[ -x "$loadgen" ] && [ -x "$provider" ] || { echo "run.sh: build first (make build)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/stampede-bench-live.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n 20000 2>/dev/null || true

# fakeprovider on ephemeral ports; sets url, admin, fp_pid.
start_provider() {
  local out=$tmp/provider.out
  "${run[@]}" "$provider" --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 "$@" \
    "${provider_args[@]}" >"$out" \
    2>"$tmp/provider.err" &
  fp_pid=$!
  pids+=("$fp_pid")
  for _ in $(seq 1 500); do
    [ "$(wc -l <"$out")" -ge 2 ] && break
    sleep 0.01
  done
  url=$(sed -n '1s/listening on //p' "$out")/v1/messages
  admin=$(sed -n '2s/admin on //p' "$out")
  [ -n "$admin" ] || { cat "$tmp/provider.err" >&2; exit 1; }
}

# A process's CPU so far, user and system, in clock ticks.
nginx_cpu_ticks() {
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# The provider's CPU seconds so far, user and system, all threads (from /proc: 10 ms ticks).
provider_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f %.2f\n", $12 / hz, $13 / hz }' \
    "/proc/$fp_pid/stat"
}

stop_provider() {
  provider_cpu >"$tmp/provider.cpu" 2>/dev/null || echo "0 0" >"$tmp/provider.cpu"
  kill -TERM "$fp_pid" 2>/dev/null || true
  wait "$fp_pid" 2>/dev/null || true
}

# Prints the figures of one results file.
show() {
  if [ ! -s "$1" ]; then
    echo "  no results; fakeprovider said:"
    sed 's/^/    /' "$tmp/provider.err"
    return
  fi
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s, live, c = r["summary"], r["live"], r["comparison"]
a = c["arrivals_per_second"]
print(f"  requests {s['requests']:.0f}  delivered {s['delivered']:.0f}  "
      f"peak t={s['peak_second']:.0f} with {s['peak_arrivals']:.0f}  drain {s['drain_s']:.1f} s")
print(f"  wake lateness p50 {s['lateness_p50_ms']:.3f} ms  p99 {s['lateness_p99_ms']:.3f} ms;  "
      f"send lateness p50 {live['send_lateness_p50_ms']:.3f} ms  p99 {live['send_lateness_p99_ms']:.3f} ms")
print(f"  CPU {live['cpu_user_s']:.2f} s user + {live['cpu_sys_s']:.2f} s sys over {live['wall_s']:.2f} s wall "
      f"({(live['cpu_user_s'] + live['cpu_sys_s']) / max(live['wall_s'], 1e-9):.2f} cores)")
print(f"  simulation: requests {c['simulated']['requests']:.0f}, peak t={c['simulated']['peak_second']:.0f} "
      f"with {c['simulated']['peak_arrivals']:.0f};  {a['seconds_differing']} of {a['seconds']} seconds differ "
      f"by {a['abs_difference']} requests;  matches: {c['matches']}")
for v in r["assertions"]:
    print(f"  {'PASS' if v['passed'] else 'FAIL'}  {v['assertion']} ({v['actual']:g})")
PY
}

# loadgen run against a fresh fakeprovider with the storm's provider section.
storm_run() {
  local scale=$1 out=$2
  shift 2
  start_provider --scenario "$storm" --time-scale "$scale" "$@"
  "${run[@]}" "$loadgen" run --scenario "$storm" --url "$url" --provider-admin "$admin" \
    --time-scale "$scale" --quiet --out "$out" "${run_args[@]}" || true
  stop_provider
}

part_lateness() {
  echo "== wake lateness and CPU: full-jitter storm against fakeprovider, --time-scale $latency_scale"
  for clients in 1000 10000; do
    local allowance=$((clients / 10))/s
    echo "-- $clients clients, allowance $allowance"
    run_args=(--strategy full-jitter --clients "$clients" --allowance "$allowance")
    storm_run "$latency_scale" "$tmp/lateness-$clients.json" --allowance "$allowance"
    show "$tmp/lateness-$clients.json"
  done
}

part_rate() {
  needs nginx wrk
  echo "== raw request rate: 1,000 clients against nginx serving a static 200, $rate_rounds round(s)"
  echo "   (loadgen --strategy none, then wrk -t2 -c1000 for as long as loadgen took, then wrk"
  echo "   sending loadgen's request headers too$(command -v hey >/dev/null && echo ', then hey -c 1000 -n the same count'))"
  mkdir -p "$tmp/nginx/logs"
  local port round
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  cat >"$tmp/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
master_process off;
error_log $tmp/nginx/logs/error.log;
pid $tmp/nginx/nginx.pid;
events { worker_connections 8192; use epoll; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  keepalive_requests 10000000;
  keepalive_timeout 300s;
  server { listen 127.0.0.1:$port backlog=16384; location / { return 200 "ok\n"; } }
}
EOF
  "${run[@]}" nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" &
  pids+=("$!")
  for _ in $(seq 1 500); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.01
  done
  local target=http://127.0.0.1:$port/v1 nginx_pid
  nginx_pid=$(cat "$tmp/nginx/nginx.pid")
  # nginx's one worker is the busier side: what it spends a request decides the rate, and it
  # spends more on loadgen's 139-byte, seven-header request than on wrk's 43 bytes and one.
  # So wrk runs twice: as it is, and sending the headers loadgen sends (values of the same
  # widths), the same work for nginx.
  local same_request=(-H "User-Agent: stampede-loadgen/0.1.0" -H "Accept: */*"
    -H "X-Client-Id: 517" -H "X-Attempt: 1" -H "X-Request-Id: 517042")
  for round in $(seq 1 "$rate_rounds"); do
    local n0 n1 n2 n3 seconds
    n0=$(nginx_cpu_ticks "$nginx_pid")
    "${run[@]}" "$loadgen" run --url "$target" --clients 1000 --workload queue \
      --items "$rate_requests" --strategy none --quiet --out "$tmp/rate.json" || true
    n1=$(nginx_cpu_ticks "$nginx_pid")
    # wrk runs by time, loadgen by count: wrk gets loadgen's wall time, whole seconds, at least 2.
    seconds=$(python3 -c 'import json, math, sys
print(max(2, math.ceil(json.load(open(sys.argv[1]))["live"]["wall_s"])))' "$tmp/rate.json")
    "${run[@]}" wrk -t2 -c1000 -d"${seconds}s" "$target" >"$tmp/wrk.txt"
    n2=$(nginx_cpu_ticks "$nginx_pid")
    "${run[@]}" wrk -t2 -c1000 -d"${seconds}s" "${same_request[@]}" "$target" >"$tmp/wrk-same.txt"
    n3=$(nginx_cpu_ticks "$nginx_pid")
    python3 - "$tmp/rate.json" "$round" "$tmp/wrk.txt" "$tmp/wrk-same.txt" "$seconds" \
      "$n0 $n1 $n2 $n3" "$(getconf CLK_TCK)" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
rnd, secs, hz = sys.argv[2], sys.argv[5], float(sys.argv[7])
ticks = [int(t) for t in sys.argv[6].split()]
def wrk(path):
    text = open(path).read()
    return (float(re.search(r"Requests/sec:\s*([\d.]+)", text).group(1)),
            int(re.search(r"(\d+) requests in", text).group(1)))
def nginx_us(i, requests):
    return (ticks[i + 1] - ticks[i]) / hz * 1e6 / requests
live, counts = r["live"], r["counts"]
rate = counts["requests"] / live["wall_s"]
(plain, plain_n), (same, same_n) = wrk(sys.argv[3]), wrk(sys.argv[4])
print(f"  round {rnd}: loadgen {rate:,.0f} req/s ({counts['requests']} requests, "
      f"{counts['delivered']} ok, {live['wall_s']:.2f} s, CPU "
      f"{live['cpu_user_s'] + live['cpu_sys_s']:.2f} s, nginx {nginx_us(0, counts['requests']):.2f} us a request)")
print(f"           wrk -d{secs}s {plain:,.0f} req/s (nginx {nginx_us(1, plain_n):.2f} us);  "
      f"{rate / plain:.2f}x wrk")
print(f"           wrk -d{secs}s, loadgen's headers: {same:,.0f} req/s (nginx "
      f"{nginx_us(2, same_n):.2f} us);  {rate / same:.2f}x wrk sending the same request")
PY
    if command -v hey >/dev/null; then
      "${run[@]}" hey -n "$rate_requests" -c 1000 "$target" >"$tmp/hey.txt"
      awk '/Requests\/sec/ {printf "           hey -c 1000: %s req/s\n", $2}' "$tmp/hey.txt"
    fi
  done
}

part_storm() {
  echo "== the acceptance storm: examples/storm.json at --time-scale 0.1"
  for strategy in exponential full-jitter; do
    echo "-- $strategy"
    run_args=(--strategy "$strategy")
    storm_run 0.1 "$tmp/storm-$strategy.json"
    show "$tmp/storm-$strategy.json"
  done
}

# The streamed storm simulated, then run live against fakeprovider: the counts side by side.
part_stream() {
  local scenario=$root/examples/llm_stream_storm.json scale=${STREAM_SCALE:-0.1}
  echo "== a streamed storm: examples/llm_stream_storm.json at --time-scale $scale, beside loadgen simulate"
  "$loadgen" simulate --scenario "$scenario" --quiet --no-report --out "$tmp/stream-sim.json" || true
  start_provider --scenario "$scenario" --time-scale "$scale"
  "${run[@]}" "$loadgen" run --scenario "$scenario" --url "$url" --provider-admin "$admin" \
    --time-scale "$scale" --quiet --out "$tmp/stream-live.json" || true
  stop_provider
  show "$tmp/stream-live.json"
  python3 - "$tmp/stream-sim.json" "$tmp/stream-live.json" <<'PY'
import json, sys
sim, live = (json.load(open(p)) for p in sys.argv[1:3])
def by_outcome(r):
    h = r["histograms"]["client_sends_by_outcome"]
    return {l: sum(b[i] for b in h["counts"]) for i, l in enumerate(h["labels"])}
def line(name, a, b):
    rel = (b - a) / a * 100 if a else 0.0
    print(f"  {name:>14}: simulate {a:>7.0f}  live {b:>7.0f}  ({rel:+.2f}%)")
line("requests", sim["counts"]["requests"], live["counts"]["requests"])
line("delivered", sim["counts"]["delivered"], live["counts"]["delivered"])
so, lo = by_outcome(sim), by_outcome(live)
for label in so:
    if so[label] or lo[label]:
        line(f"sends {label}", so[label], lo[label])
for key in ("completed", "broken", "tokens_received"):
    line(f"streams {key}", sim["streams"][key], live["streams"][key])
line("drain_s", sim["summary"]["drain_s"], live["summary"]["drain_s"])
PY
}

part_compression() {
  echo "== compression: the exponential storm at each --time-scale"
  for scale in $scales; do
    echo "-- --time-scale $scale"
    run_args=(--strategy exponential)
    storm_run "$scale" "$tmp/compression-$scale.json"
    show "$tmp/compression-$scale.json"
  done
}

# CPU per request of loadgen (its own figures, t=0 to the end) and of the provider (its whole
# life: start-up and the connections' set-up are a few milliseconds).
show_cpu() {
  python3 - "$1" "$tmp/provider.cpu" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
pu, ps = (float(x) for x in open(sys.argv[2]).read().split())
n = r["counts"]["requests"]
live = r["live"]
lu, ls = live["cpu_user_s"], live["cpu_sys_s"]
us = lambda s: s / max(n, 1) * 1e6
print(f"  {n:.0f} requests in {live['wall_s']:.2f} s wall")
print(f"  loadgen      {lu:.2f} s user + {ls:.2f} s sys = {us(lu + ls):.1f} us/request "
      f"({us(lu):.1f} user, {us(ls):.1f} sys)")
print(f"  fakeprovider {pu:.2f} s user + {ps:.2f} s sys = {us(pu + ps):.1f} us/request "
      f"({us(pu):.1f} user, {us(ps):.1f} sys)")
print(f"  together     {us(lu + ls + pu + ps):.1f} us/request")
PY
}

part_cpu() {
  echo "== CPU per request: --strategy none, 1,000 clients, $cpu_requests requests, all admitted"
  start_provider
  "${run[@]}" "$loadgen" run --url "$url" --provider-admin "$admin" --clients 1000 \
    --workload queue --items "$cpu_requests" --strategy none --quiet --no-report \
    --out "$tmp/cpu-none.json" || true
  stop_provider
  show_cpu "$tmp/cpu-none.json"
  echo "== CPU per request: the exponential storm at --time-scale 0.1"
  run_args=(--strategy exponential --no-report)
  storm_run 0.1 "$tmp/cpu-storm.json"
  show_cpu "$tmp/cpu-storm.json"
}

# The provider's processes' peak RSS in KiB (its own, then each worker's), read before it stops.
provider_memory() {
  local pid
  for pid in "$fp_pid" $(pgrep -P "$fp_pid" || true); do
    awk '/VmHWM/ {printf "%s ", $2}' "/proc/$pid/status"
  done
}

part_fifty() {
  local waves=$root/examples/waves-50k.json scale=${FIFTY_SCALE:-0.1}
  echo "== 50,000 clients: examples/waves-50k.json at --time-scale $scale, fakeprovider --processes 3"
  start_provider --scenario "$waves" --time-scale "$scale" --processes 3 --max-connections 19000
  "${run[@]}" "$loadgen" run --scenario "$waves" --url "$url" --provider-admin "$admin" \
    --time-scale "$scale" --quiet --no-report --out "$tmp/fifty.json" || true
  local memory
  memory=$(provider_memory)
  stop_provider
  show "$tmp/fifty.json"
  "$loadgen" simulate --scenario "$waves" --quiet --out "$tmp/fifty-sim.json"
  python3 - "$tmp/fifty.json" "$tmp/fifty-sim.json" "$memory" <<'PY'
import json, sys
live, sim = (json.load(open(f))["histograms"] for f in sys.argv[1:3])
def windows(h, label=None):
    out = []
    for s, b in enumerate(h["counts"]):
        if s % 60 == 0: out.append(0)
        out[-1] += sum(b) if label is None else b[label]
    return out
def sends(h):
    return [sum(c) for c in zip(*h["counts"])][:4]
o = "provider_arrivals_by_outcome"
print(f"  per minute: live {windows(live[o])}, simulated {windows(sim[o])}; admitted {windows(live[o], 0)}")
s = "provider_arrivals_by_send"
print(f"  by send: live {sends(live[s])}, simulated {sends(sim[s])}")
r = json.load(open(sys.argv[1]))
procs = ", ".join(f"{p['role']} {p.get('shard', '')} {p['max_rss_kib'] / 1024:.1f}".replace("  ", " ")
                  for p in r["live"]["processes"])
print(f"  loadgen peak RSS MiB: {procs}; start late s: {r['merged']['start_late_s']}")
kib = [int(k) for k in sys.argv[3].split()]
print("  fakeprovider peak RSS MiB: owner " + f"{kib[0] / 1024:.1f}" +
      "".join(f", worker {i} {k / 1024:.1f}" for i, k in enumerate(kib[1:])))
PY
}

echo "$(date -u '+%F %T') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)${NICE:+, nice $NICE}"
for part in $parts; do
  "part_$part"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
