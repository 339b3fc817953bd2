# The helpers the scripts here share; sourced once they set root (and duration, for wrk_point).

# The script's BUILD_DIR argument (default build, relative to the tree): sets build and provider.
bench_build() {
  build=${1:-build}
  case $build in /*) ;; *) build=$root/$build ;; esac
  provider=$build/bin/fakeprovider
}

# Checks the tools and the provider binary, then makes $tmp and a trap that, on exit, kills
# every PID in $pids, runs the script's extra_cleanup if it has one, and removes $tmp.
bench_setup() {
  local name tool
  name=$(basename "$0")
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$name: needs $tool" >&2; exit 2; }
  done
  [ -x "$provider" ] || { echo "$name: no $provider; build first (make build)" >&2; exit 2; }
  tmp=$(mktemp -d "/tmp/stampede-bench-${name%.sh}.XXXXXX")
  pids=()
  trap bench_cleanup EXIT
  ulimit -n 20000 2>/dev/null || true
}

bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  if declare -F extra_cleanup >/dev/null; then extra_cleanup; fi
  rm -rf "$tmp"
}

# Starts fakeprovider with the given flags on ephemeral ports; sets data_port, admin_port, fp_pid.
# Waits up to 30 s for its two lines: on a loaded machine a start after a big --arrivals-out
# write took over the 5 s this used to allow.
start_provider() {
  local out=$tmp/provider.out
  "$provider" --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 "$@" >"$out" 2>"$tmp/provider.err" &
  fp_pid=$!
  pids+=("$fp_pid")
  for _ in $(seq 1 3000); do
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

# CPU time (clock ticks) of processes, their threads included.
cpu_ticks() {
  local total=0 pid
  for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done
  echo "$total"
}

# "req/s p99_ms non2xx total cpu_us_per_request" from one wrk run against URL; the CPU is the
# server's (the PIDs after the connection count), which a busy machine disturbs less than req/s.
wrk_point() {
  local url=$1 c=$2
  shift 2
  local before after
  before=$(cpu_ticks "$@")
  wrk -t2 -c"$c" -d"$duration" --latency "$url" >"$tmp/wrk.out"
  after=$(cpu_ticks "$@")
  python3 - "$tmp/wrk.out" "$((after - before))" "$(getconf CLK_TCK)" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
ticks, hz = int(sys.argv[2]), int(sys.argv[3])
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
v, unit = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", text).groups()
p99 = float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
total = int(re.search(r"(\d+) requests in", text).group(1))
print(f"{rps:.0f} {p99:.2f} {m.group(1) if m else 0} {total} {ticks / hz * 1e6 / total:.1f}")
PY
}
