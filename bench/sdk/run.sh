#!/usr/bin/env bash
# The real SDKs against fakeprovider's streams (issue 41), opt-in, not in `make test`: for
# openai and @anthropic-ai/sdk (pinned by bench/sdk/package-lock.json, installed into
# bench/sdk/node_modules), a `loadgen exec` fleet streams one answer a client through the SDK's
# stream helper (sdk_client.js) from a fakeprovider in the SDK's dialect that paces its tokens,
# breaks a share of its streams mid-way and refuses part of the fleet's first sends (an
# allowance below the fleet), so the SDK retries. check.py then holds each claim against the
# provider's record and prints PASS or FAIL with its figures.
#
# MODE=limits (issue 44): the same fleet against the LLM token limits instead of broken
# streams: each client's max_tokens twenty times larger (80 to 380), reserved against an output
# token allowance below the fleet's sum (OUTPUT_TOKEN_ALLOWANCE), with retry-after-ms beside
# Retry-After as the real APIs send it (RETRY_AFTER_MS=off for Retry-After alone), and
# --max-concurrent with MAX_CONCURRENT=N; half the fleet names one model and half another.
# sdk_client.js records every response the SDK's fetch got, and check.py holds each 429's
# headers, the SDK's wait after it, and the provider's counts against the fleet's.
#
#   bench/sdk/run.sh [BUILD_DIR]
#   SDKS=anthropic CLIENTS=20 bench/sdk/run.sh build
#   MODE=limits bench/sdk/run.sh build
#
# Everything lands in BUILD_DIR/bench-sdk/SDK/ (MODE=limits: bench-sdk-limits/; OUT=... to change): records/ (each client's),
# exec.json and summary.txt (loadgen exec's), stats.json, provider-results.json, arrivals.csv
# and provider.log (the provider's), logs/ (each process's output). Exits 1 when a claim failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/sdk
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
loadgen=$build/bin/loadgen
provider=$build/bin/fakeprovider
out=${OUT:-$build/bench-sdk}
sdks=${SDKS:-"openai anthropic"}
clients=${CLIENTS:-20}
per_process=${PER_PROCESS:-1}  # clients a node process: 1, so exec counts each stream's outcome
allowance=${ALLOWANCE:-8/s}  # below the fleet: its first sends are partly refused, and retried
[ "${MODE:-}" = limits ] && allowance=${ALLOWANCE:-20/s}  # above the first sends: the output-token limit refuses
output_tokens=${OUTPUT_TOKENS:-12}
mode=${MODE:-streams}
pacing=(--first-token "${FIRST_TOKEN:-150ms}" --token-rate "${TOKEN_RATE:-40/s}")
limits=()
check_args=(streams)
case $mode in
  streams) stream_errors=${STREAM_ERRORS:-0.25} ;;
  limits)
    stream_errors=${STREAM_ERRORS:-0}
    output_allowance=${OUTPUT_TOKEN_ALLOWANCE:-1000/min}  # each model's: the fleet asks about 2,060 a model
    retry_after_ms=${RETRY_AFTER_MS:-on}
    limits=(--output-token-allowance "$output_allowance" --retry-after-ms "$retry_after_ms")
    # Checked before the token limits, it refuses first when it binds: off unless asked.
    [ -n "${MAX_CONCURRENT:-}" ] && limits+=(--max-concurrent "$MAX_CONCURRENT")
    check_args=(limits "$output_allowance" "$retry_after_ms")
    export SDK_MAX_TOKENS_SCALE=${MAX_TOKENS_SCALE:-20}
    out=${OUT:-$build/bench-sdk-limits}  # beside the streams mode's, not over it
    ;;
  *) echo "run.sh: unknown MODE '$mode' (streams, limits)" >&2; exit 2 ;;
esac

for tool in node npm curl python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }
done
[ -x "$loadgen" ] && [ -x "$provider" ] || { echo "run.sh: build first (make build)" >&2; exit 2; }

fp_pid=
cleanup() { [ -n "$fp_pid" ] && kill "$fp_pid" 2>/dev/null || true; }
trap cleanup EXIT

# The SDKs exactly as the lock file pins them; npm ci again only when it changed (the stamp is
# the lock file the last npm ci installed).
stamp=$here/node_modules/.installed-from-lock.json
if ! cmp -s "$here/package-lock.json" "$stamp"; then
  (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  cp "$here/package-lock.json" "$stamp"
fi

# start_provider and stop_provider.
# shellcheck source=bench/fakeprovider.sh
source "$root/bench/fakeprovider.sh"

run_sdk() {
  local sdk=$1 dir=$out/$1 url tenant=()
  rm -rf "$dir"
  mkdir -p "$dir/records"
  # The openai SDK sends its key as Authorization: the fleet is one tenant either way.
  [ "$sdk" = openai ] && tenant=(--tenant-header Authorization)
  # MODE=limits: half the fleet names one model and half another, each listed in the
  # provider's provider.models with the same limits, so the provider counts them apart.
  local models= scenario=()
  case $sdk in
    openai) models=gpt-4o-mini,gpt-4o ;;
    anthropic) models=claude-sonnet-4-5,claude-haiku-4-5 ;;
  esac
  if [ "$mode" = limits ]; then
    local entry="{\"allowance\": \"$allowance\", \"output_token_allowance\": \"$output_allowance\"}"
    echo "{\"provider\": {\"models\": {\"${models%,*}\": $entry, \"${models#*,}\": $entry}}}" >"$dir/models.json"
    scenario=(--scenario "$dir/models.json")
  else
    models=
  fi
  start_provider "$dir/provider.log" "$dir/arrivals.csv" "${scenario[@]}" --dialect "$sdk" "${tenant[@]}" --allowance "$allowance" "${pacing[@]}" \
    --output-tokens "$output_tokens" --stream-errors "$stream_errors" --seed 41 "${limits[@]}"
  case $sdk in
    openai) url=$base/v1 ;;  # the SDK appends /chat/completions
    anthropic) url=$base ;;  # appends /v1/messages
  esac
  local rc=0
  SDK_MODELS=$models SDK_RECORDS=$dir/records "$loadgen" exec --clients "$clients" --per-process "$per_process" --wait-ready \
    --allowance "$allowance" --url "$url" --provider-admin "$admin" --max-duration "${MAX_DURATION:-300s}" \
    --out "$dir/exec.json" --no-report --logs "$dir/logs" \
    -- node "$here/sdk_client.js" "$sdk" >"$dir/summary.txt" 2>&1 || rc=$?
  curl -sf "$admin/admin/stats" -o "$dir/stats.json"
  curl -sf "$admin/admin/results" -o "$dir/provider-results.json"
  stop_provider
  # 1: clients whose stream broke are dead-lettered, which is a figure here, not a failure.
  if [ "$rc" -gt 1 ]; then
    echo "run.sh: $sdk: loadgen exec exited $rc:" >&2
    cat "$dir/summary.txt" >&2
    exit 1
  fi
  echo "$sdk $(node -p "require('$here/node_modules/$([ "$sdk" = anthropic ] && echo @anthropic-ai/sdk || echo openai)/package.json').version"):" \
    "$(grep -m1 '^delivered' "$dir/summary.txt" || echo '?')"
  python3 "$here/check.py" "$sdk" "$dir" "$output_tokens" "$per_process" "${check_args[@]}"
}

echo "commit $(git -C "$root" rev-parse --short HEAD), $(date -u '+%Y-%m-%d %H:%M UTC'), node $(node --version)," \
  "MODE=$mode, $clients clients, allowance $allowance, --output-tokens $output_tokens, --stream-errors $stream_errors," \
  "${pacing[*]}${limits:+ ${limits[*]}}${SDK_MAX_TOKENS_SCALE:+, max_tokens x$SDK_MAX_TOKENS_SCALE}"
failed=0
for sdk in $sdks; do
  case $sdk in openai | anthropic) ;; *) echo "run.sh: unknown SDK '$sdk' in SDKS (openai, anthropic)" >&2; exit 2 ;; esac
  run_sdk "$sdk" || failed=1
done
[ "$failed" = 0 ] && echo "all claims hold" || echo "a claim failed"
exit "$failed"
