#!/usr/bin/env bash
# What real client libraries do to a recovering provider: the storm of
# shared/reference/real-clients.md (200 clients released together, allowance 20/s, a 5 s outage
# answered 503 with Retry-After) run with `loadgen exec` for each library, with its defaults and
# retries raised to 8: curl --retry, requests + urllib3 Retry and tenacity (the Debian packages,
# through examples/exec/), and the Node SDKs openai, @anthropic-ai/sdk and
# @aws-sdk/client-dynamodb (from npm, pinned by bench/clients/package-lock.json, installed under
# the build tree). Then the same storm with the provider's Retry-After jittered, where
# fakeprovider has --retry-after-jitter. A fresh fakeprovider per run, on ephemeral loopback
# ports, keeps the arrival log; bench/clients/table.py builds the README's table from the results.
#
#   bench/clients/run.sh [BUILD_DIR]
#   LIBS="curl openai" STORMS=plain CLIENTS=50 bench/clients/run.sh build
#
# Everything lands in BUILD_DIR/bench-clients/ (OUT=... to change): node/ (the SDKs),
# STORM/LIB.json (loadgen exec's results), STORM/LIB.arrivals.csv (the provider's arrival log),
# STORM/LIB.summary.txt, STORM/LIB.logs/ (each process's output), STORM/LIB.provider-results.json
# (GET /admin/results, from a fakeprovider that has it), versions.json, table.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/clients
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
loadgen=$build/bin/loadgen
provider=$build/bin/fakeprovider
out=${OUT:-$build/bench-clients}
clients=${CLIENTS:-200}
allowance=${ALLOWANCE:-20/s}
outage=${OUTAGE:-0s-5s:503}
per_process=${PER_PROCESS:-20}  # clients per node / requests process
jitter=${JITTER:-0.5}
max_duration=${MAX_DURATION:-150s}
libs=${LIBS:-"curl requests tenacity openai anthropic dynamodb"}
storms=${STORMS:-"plain jitter"}
python=/usr/bin/python3  # the Debian interpreter, with python3-requests and python3-tenacity

for tool in node npm curl "$python" dpkg-query; do
  command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }
done
[ -x "$loadgen" ] && [ -x "$provider" ] || { echo "run.sh: build first (make build)" >&2; exit 2; }

fp_pid=
cleanup() { [ -n "$fp_pid" ] && kill "$fp_pid" 2>/dev/null || true; }
trap cleanup EXIT
mkdir -p "$out"

# The SDKs, exactly as the committed lock file pins them; npm ci again only when it changed.
install_sdks() {
  local dir=$out/node
  mkdir -p "$dir"
  if ! cmp -s "$here/package-lock.json" "$dir/package-lock.json" || [ ! -d "$dir/node_modules" ]; then
    cp "$here/package.json" "$here/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
  export NODE_PATH=$dir/node_modules
}

# What the provider can do decides what the bench can ask of it: the flags other work adds.
provider_has() { "$provider" --help 2>&1 | grep -q -- "$1"; }

# The provider flags of one run, one a line: the storm, the library's dialect where the
# provider has dialects, and for the jitter storm the jittered hint (in milliseconds too for the
# Stainless SDKs, which read retry-after-ms first).
provider_flags() {
  local storm=$1 lib=$2 dialect=generic
  printf '%s\n' --allowance "$allowance" --outage "$outage"
  case $lib in
    openai | anthropic) dialect=$lib ;;
    dynamodb) dialect=aws ;;
  esac
  provider_has '--dialect' && printf '%s\n' --dialect "$dialect"
  if [ "$storm" = jitter ]; then
    printf '%s\n' --retry-after-jitter "$jitter"
    case $lib in openai | anthropic) provider_has '--retry-after-ms' && printf '%s\n' --retry-after-ms on ;; esac
  fi
  return 0
}

# start_provider and stop_provider.
# shellcheck source=bench/fakeprovider.sh
source "$root/bench/fakeprovider.sh"

# The fleet of one library: the URL its client is given, loadgen exec's fleet flags, and CMD.
# Sets url, fleet (an array).
fleet_of() {
  local lib=$1 bodies=$2
  url=$base/v1/messages
  case $lib in
    curl)  # held before exec: curl starts in milliseconds
      fleet=(-- curl -sf --retry 8 -H 'X-Client-Id: {client}' -o "$bodies/body.{client}" '{url}') ;;
    requests)
      fleet=(--per-process "$per_process" --wait-ready -- "$python" "$root/examples/exec/requests_fleet.py") ;;
    tenacity)  # one client a process, as the example is written
      fleet=(--wait-ready -- "$python" "$root/examples/exec/tenacity_fleet.py") ;;
    openai)  # the SDK appends /chat/completions to its base URL
      url=$base/v1
      fleet=(--per-process "$per_process" --wait-ready -- node "$here/node_fleet.js" openai) ;;
    anthropic)  # appends /v1/messages
      url=$base
      fleet=(--per-process "$per_process" --wait-ready -- node "$here/node_fleet.js" anthropic) ;;
    dynamodb)  # posts to / with X-Amz-Target
      url=$base
      fleet=(--per-process "$per_process" --wait-ready -- node "$here/node_fleet.js" dynamodb) ;;
    *) echo "run.sh: unknown library '$lib' in LIBS" >&2; exit 2 ;;
  esac
}

run_one() {
  local storm=$1 lib=$2 dir=$out/$1
  mkdir -p "$dir"
  rm -rf "$dir/$lib.logs" "$dir/$lib.bodies" "$dir/$lib".*
  mkdir -p "$dir/$lib.bodies"
  provider_flags "$storm" "$lib" >"$dir/$lib.provider-flags"
  local flags=()
  mapfile -t flags <"$dir/$lib.provider-flags"
  start_provider "$dir/$lib.provider.log" "$dir/$lib.arrivals.csv" "${flags[@]}"
  fleet_of "$lib" "$dir/$lib.bodies"
  local rc=0
  "$loadgen" exec --clients "$clients" --allowance "$allowance" --outage "$outage" \
    --url "$url" --provider-admin "$admin" --max-duration "$max_duration" \
    --out "$dir/$lib.json" --dead-letter "$dir/$lib.dead-letter.jsonl" --no-report \
    --logs "$dir/$lib.logs" "${fleet[@]}" >"$dir/$lib.summary.txt" 2>&1 || rc=$?
  # The provider's per-item figures, where it has them (table.py reads them if loadgen exec's
  # results do not carry them already).
  curl -sf "$admin/admin/results" -o "$dir/$lib.provider-results.json" ||
    rm -f "$dir/$lib.provider-results.json"
  stop_provider
  # 1: clients gave up or were stopped, which is a figure here, not a failure of the bench.
  if [ "$rc" -gt 1 ]; then
    echo "run.sh: $storm/$lib: loadgen exec exited $rc:" >&2
    cat "$dir/$lib.summary.txt" >&2
    exit 1
  fi
  echo "$storm/$lib: $(grep -m1 '^delivered' "$dir/$lib.summary.txt" || echo '?') ($(uptime | sed 's/.*load/load/'))"
}

versions() {
  "$python" - "$out/versions.json" "$NODE_PATH" <<'PY'
import json, subprocess, sys
def dpkg(name):
    return subprocess.run(["dpkg-query", "-W", "-f=${Version}", name],
                          capture_output=True, text=True).stdout.strip() or "?"
def npm(name):
    with open(f"{sys.argv[2]}/{name}/package.json") as f:
        return json.load(f)["version"]
node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
v = {
    "curl": f"curl {dpkg('curl')}",
    "requests": f"requests {dpkg('python3-requests')} + urllib3 {dpkg('python3-urllib3')}",
    "tenacity": f"tenacity {dpkg('python3-tenacity')}",
    "openai": f"openai {npm('openai')} (node {node})",
    "anthropic": f"@anthropic-ai/sdk {npm('@anthropic-ai/sdk')} (node {node})",
    "dynamodb": f"@aws-sdk/client-dynamodb {npm('@aws-sdk/client-dynamodb')} (node {node})",
}
json.dump(v, open(sys.argv[1], "w"), indent=1)
PY
}

install_sdks
versions
echo "commit $(git -C "$root" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(uptime | sed 's/.*load/load/')"
for storm in $storms; do
  case $storm in
    plain) ;;
    jitter)
      if ! provider_has '--retry-after-jitter'; then
        echo "jitter: skipped, this fakeprovider has no --retry-after-jitter"
        continue
      fi ;;
    *) echo "run.sh: unknown storm '$storm' in STORMS (plain, jitter)" >&2; exit 2 ;;
  esac
  for lib in $libs; do run_one "$storm" "$lib"; done
done
# shellcheck disable=SC2086 # one argument a storm
"$python" "$here/table.py" "$out" $storms | tee "$out/table.md"
