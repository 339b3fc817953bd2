#!/usr/bin/env bash
# What an open GET /admin/live costs the data plane at many tenants (issue 38): fakeprovider
# with TENANTS tenants (each one request), then a steady small load (one keep-alive request
# every 5 ms, stall_probe.py) for DURATION seconds, with no stream open and with one, in
# rounds. The figure is the requests' worst latency: a live event made under the recorders'
# locks stalls the data plane once a second. Figures: bench/provider/README.md.
#
#   bench/provider/live_tenants.sh [BUILD_DIR]     (default: build; needs curl, python3)
#
# Environment: TENANTS (default 300000), DURATION (seconds per point, default 20), REPEAT
# (rounds, default 2).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
tenants=${TENANTS:-300000}
duration=${DURATION:-20}
repeat=${REPEAT:-2}

# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup curl python3

start_provider
probe="python3 $root/bench/provider/stall_probe.py"
$probe fill "$data_port" "$tenants"
echo "tenants: $(curl -s "http://127.0.0.1:$admin_port/admin/stats" | python3 -c \
  'import json,sys; print(len(json.load(sys.stdin)["tenants"]))')"
for round in $(seq 1 "$repeat"); do
  echo "round $round, no stream:   $($probe probe "$data_port" "$duration")"
  curl -sN "http://127.0.0.1:$admin_port/admin/live" >/dev/null &
  reader=$!
  pids+=("$reader")
  sleep 2  # its first event made
  echo "round $round, /admin/live: $($probe probe "$data_port" "$duration")"
  kill "$reader"
  wait "$reader" 2>/dev/null || true
done
