#!/usr/bin/env bash
# fakeprovider under abuse: IDLE silent connections and SLOWLORIS ones (a header byte a
# second) while one well-behaved keep-alive client measures its latency, before and during.
# Prints the connections held at the end (idle ones kept until --idle-timeout, slowloris cut
# after --header-timeout) and both p99s, then the provider's own refusal lines.
#
#   bench/provider/abuse.sh [BUILD_DIR]     (default: build; needs python3)
#
# Environment: IDLE (default 5000), SLOWLORIS (default 50), HOLD (seconds of abuse, default
# 15: longer than the default --header-timeout of 10s).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
provider=$build/bin/fakeprovider
idle=${IDLE:-5000}
slowloris=${SLOWLORIS:-50}
hold=${HOLD:-15}

command -v python3 >/dev/null || { echo "abuse.sh: needs python3" >&2; exit 2; }
[ -x "$provider" ] || { echo "abuse.sh: no $provider; build first (make build)" >&2; exit 2; }

tmp=$(mktemp -d /tmp/stampede-bench-abuse.XXXXXX)
fp_pid=
cleanup() {
  [ -n "$fp_pid" ] && kill "$fp_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
ulimit -n 20000 2>/dev/null || true

"$provider" --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 >"$tmp/out" 2>"$tmp/err" &
fp_pid=$!
for _ in $(seq 1 500); do
  [ "$(wc -l <"$tmp/out")" -ge 2 ] && break
  sleep 0.01
done
port=$(sed -n '1s/.*://p' "$tmp/out")
[ -n "$port" ] || { cat "$tmp/err" >&2; exit 1; }

echo "fakeprovider $("$provider" --version | cut -d' ' -f2) on port $port (defaults: --idle-timeout 600s, --header-timeout 10s)"
python3 "$root/bench/provider/abuse_client.py" "$port" "$idle" "$slowloris" "$hold"
kill -TERM "$fp_pid"
wait "$fp_pid" || true
fp_pid=
grep '^fakeprovider: connections' "$tmp/err" || echo "fakeprovider: no connection refused or cut"
