#!/usr/bin/env bash
# STREAMS concurrent open LLM streams at RATE tokens a second (issue 41): fakeprovider
# --dialect anthropic beside a minimal Node.js peer (node_streams.js: a setTimeout and a
# setInterval a stream, the usual "mock LLM server"), each serving POST /v1/messages with the
# same events. loadgen run --stream holds STREAMS - SAMPLE streams; stream_pacing.py opens the
# other SAMPLE at the same time and times every token it reads. Per server and round:
#   memory per open stream: VmRSS sampled every 0.5 s while at least 98% of the streams are
#     open (the plateau), its median less the idle RSS, over the connections open (ss);
#   CPU per token event: the server's utime + stime over the run (/proc/PID/stat) over the
#     tokens the two clients read;
#   pacing error: how late each sampled token came, client side, against its stream's first
#     token + k / RATE and against its head + FIRST + k / RATE (p50, p99, max, ms); and
#     fakeprovider's own, every token's write against its due time (its line at stop).
# Loopback only; every load bounded: STREAMS streams of TOKENS tokens, loadgen's --max-duration
# and the sampler's timeout. Figures: bench/provider/README.md.
#
#   bench/provider/streams.sh [BUILD_DIR]     (default: build; needs node, python3, ss)
#
# Environment: STREAMS (default 5000), SAMPLE (default 200), RATE (tokens/s, default 20),
# TOKENS (per stream, default 200: 10 s streams), FIRST (ms to the first token, default 200),
# REPEAT (rounds per server, default 2), SERVERS (default "fakeprovider node"), RAMP (seconds over
# which loadgen's streams start, at an even rate: 0, the default, starts them all at once, so
# every stream's tokens fall due in the same instant; real streams start apart), PIN (1: the
# server on CPU 0 with one data-plane thread, loadgen and the sampler on the other CPUs, so the
# server's pacing is measured without the clients taking its core).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
streams=${STREAMS:-5000}
sample=${SAMPLE:-200}
rate=${RATE:-20}
tokens=${TOKENS:-200}
first=${FIRST:-200}
repeat=${REPEAT:-2}
servers=${SERVERS:-fakeprovider node}
ramp=${RAMP:-0}
pin=${PIN:-0}
server_args=() client_cpus=()
if [ "$pin" = 1 ]; then
  server_args=(--threads 1)
  client_cpus=(taskset -c "1-$(($(nproc) - 1))")
fi
stream_s=$(((first + tokens * 1000 / rate) / 1000 + 1 + ramp))
fleet=(--clients $((streams - sample)))
if [ "$ramp" -gt 0 ]; then
  fleet+=(--workload steady --rate "$(((streams - sample) / ramp))/s" --duration "${ramp}s")
fi

# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup node python3 ss /usr/bin/time
loadgen=$build/bin/loadgen
[ -x "$loadgen" ] || { echo "streams.sh: no $loadgen; build first (make build)" >&2; exit 2; }
echo '{"provider": {"dialect": "anthropic"}}' >"$tmp/scenario.json"

pin_server() {
  if [ "$pin" = 1 ]; then taskset -a -p -c 0 "$srv_pid" >/dev/null; fi
}

# Starts the server named $1; sets srv_pid and port.
start_server() {
  if [ "$1" = fakeprovider ]; then
    start_provider --dialect anthropic --first-token "${first}ms" --token-rate "$rate/s" \
      --output-tokens "$tokens" --max-connections $((streams + 1000)) "${server_args[@]}"
    srv_pid=$fp_pid port=$data_port
    pin_server
    return
  fi
  : >"$tmp/node.out"
  node "$root/bench/provider/node_streams.js" "$first" "$rate" "$tokens" >"$tmp/node.out" &
  srv_pid=$!
  pids+=("$srv_pid")
  for _ in $(seq 1 500); do
    grep -q listening "$tmp/node.out" && break
    sleep 0.01
  done
  port=$(sed -n '1s/.*://p' "$tmp/node.out")
  pin_server
  [ -n "$port" ] || { echo "streams.sh: node did not start" >&2; exit 1; }
}

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# One round against the running server: prints its line of figures.
round() {
  local idle before after lg_pid sp_pid
  sleep 1
  idle=$(rss_kb "$srv_pid")
  before=$(cpu_ticks "$srv_pid")
  : >"$tmp/samples"
  "${client_cpus[@]}" /usr/bin/time -f "%U %S" -o "$tmp/loadgen.cpu" "$loadgen" run --url "http://127.0.0.1:$port" --scenario "$tmp/scenario.json" --stream \
    "${fleet[@]}" --max-tokens "$tokens" --strategy none --max-attempts 1 \
    --timeout $((stream_s * 5))s --max-duration $((stream_s * 6))s --expect-none \
    --no-report -q --out "$tmp/loadgen.json" 2>"$tmp/loadgen.err" &
  lg_pid=$!
  "${client_cpus[@]}" /usr/bin/time -f "%U %S" -o "$tmp/pacing.cpu" python3 "$root/bench/provider/stream_pacing.py" "$port" "$sample" "$tokens" "$rate" "$first" \
    $((stream_s * 6)) >"$tmp/pacing.json" &
  sp_pid=$!
  while kill -0 "$lg_pid" 2>/dev/null || kill -0 "$sp_pid" 2>/dev/null; do
    echo "$(rss_kb "$srv_pid") $(ss -Htn state established "( sport = :$port )" | wc -l)" \
      >>"$tmp/samples"
    sleep 0.5
  done
  wait "$lg_pid" || { cat "$tmp/loadgen.err" >&2; true; }
  wait "$sp_pid"
  after=$(cpu_ticks "$srv_pid")
  python3 - "$tmp" "$idle" "$((after - before))" "$(getconf CLK_TCK)" "$streams" <<'PY'
import json, statistics, sys
tmp, idle, ticks, hz, streams = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
samples = [tuple(map(int, l.split())) for l in open(f"{tmp}/samples") if len(l.split()) == 2]
plateau = [(rss, conns) for rss, conns in samples if conns >= 0.98 * streams]
fleet = json.load(open(f"{tmp}/loadgen.json")).get("streams", {})
pacing = json.loads(open(f"{tmp}/pacing.json").read())
tokens = fleet.get("tokens_received", 0) + pacing["tokens"]
line = (f"open {max((c for _, c in samples), default=0)} (plateau {len(plateau)} samples), "
        f"completed {fleet.get('completed', 0)}+{pacing['complete']}, "
        f"broken {fleet.get('broken', 0)}, tokens {tokens}; ")
if plateau:
    rss = statistics.median(r for r, _ in plateau)
    line += (f"RSS idle {idle / 1024:.1f} MiB, plateau {rss / 1024:.1f} MiB: "
             f"{(rss - idle) * 1024 / statistics.median(c for _, c in plateau):,.0f} B a stream; ")
else:
    line += "no plateau (fewer than 98% of the streams open at once); "
cpu = lambda name: sum(map(float, open(f"{tmp}/{name}.cpu").read().split()[-2:]))
line += (f"CPU {ticks / hz:.2f} s: {ticks / hz * 1e6 / max(tokens, 1):.2f} us a token "
         f"(loadgen {cpu('loadgen'):.2f} s, sampler {cpu('pacing'):.2f} s); ")
first, head = pacing["late_vs_first_token_ms"], pacing["late_vs_head_ms"]
line += (f"late vs first token p50/p99/max {first['p50']}/{first['p99']}/{first['max']} ms, "
         f"vs head {head['p50']}/{head['p99']}/{head['max']} ms; "
         f"TTFT p99 {pacing['ttft_ms']['p99']} ms (fleet {fleet.get('first_token_p99_ms')})")
print(line)
PY
}

echo "$streams streams of $tokens tokens at $rate/s, first token ${first}ms, $sample sampled," \
  "loadgen's started over ${ramp}s;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
# A fresh server each round: its idle RSS is the one before any stream.
for server in $servers; do
  for r in $(seq 1 "$repeat"); do
    start_server "$server"
    echo "$server round $r: $(round)"
    kill "$srv_pid"
    wait "$srv_pid" 2>/dev/null || true
    # fakeprovider's own measure, at its writes: what the clients' figures add is theirs.
    if [ "$server" = fakeprovider ]; then
      sed -n 's/^fakeprovider: \(.*written late.*\)/  server side: \1/p' "$tmp/provider.err"
    fi
  done
done
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
