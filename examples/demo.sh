#!/usr/bin/env bash
# The demo: the reference storm live against a real fakeprovider, once without jitter and
# once with full jitter, time-scaled so both replay in under a minute; then one HTML report
# comparing them.
set -euo pipefail
build=${1:-build}
scale=${SCALE:-0.1}
bin="$build/bin"
out=reports/out
mkdir -p "$out"

"$bin/fakeprovider" --scenario examples/storm.json --time-scale "$scale" \
  --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 >"$out/provider.log" 2>&1 &
provider=$!
trap 'kill "$provider" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  [ "$(wc -l <"$out/provider.log")" -ge 2 ] && break
  kill -0 "$provider" 2>/dev/null || { cat "$out/provider.log"; exit 3; }
  sleep 0.05
done
url=$(sed -n 's/^listening on //p' "$out/provider.log")
admin=$(sed -n 's/^admin on //p' "$out/provider.log")

for strategy in exponential full-jitter; do
  echo "== live storm, $strategy, 1000 clients, time scale $scale =="
  "$bin/loadgen" run --scenario examples/storm.json --strategy "$strategy" --url "$url" \
    --provider-admin "$admin" --time-scale "$scale" --out "$out/$strategy.json" --no-report ||
    true  # the exponential fleet fails the scenario's expectations: that is the point
  echo
done
"$bin/loadgen" report "$out/exponential.json" "$out/full-jitter.json" -o "$out/index.html" --quiet
echo "report: $(pwd)/$out/index.html"
