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
idle=${IDLE:-5000}
slowloris=${SLOWLORIS:-50}
hold=${HOLD:-15}

# shellcheck source=bench/provider/common.sh
. "$root/bench/provider/common.sh"
bench_build "${1:-}"
bench_setup python3
start_provider
port=$data_port

echo "fakeprovider $("$provider" --version | cut -d' ' -f2) on port $port (defaults: --idle-timeout 600s, --header-timeout 10s)"
python3 "$root/bench/provider/abuse_client.py" "$port" "$idle" "$slowloris" "$hold"
stop_provider
grep '^fakeprovider: connections' "$tmp/provider.err" || echo "fakeprovider: no connection refused or cut"
