#!/usr/bin/env bash
# The simulator at a million clients: the reference storm scaled up a thousandfold
# (30 s outage, then 100,000/s in fixed windows), full jitter. Prints wall time and peak RSS
# of each run; targets: under 2 s and under 1 GiB.
set -euo pipefail
build=${1:-build}
runs=${RUNS:-3}
bin="$build/bin/loadgen"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for i in $(seq "$runs"); do
  /usr/bin/time -f "run $i: %e s wall, %U s user, %M KB peak RSS" \
    "$bin" simulate --scenario examples/storm.json --strategy full-jitter \
    --clients 1000000 --allowance 100000/s --seed "$i" --out "$out/r$i.json" --quiet || true
done
python3 - "$out/r1.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("requests %d, delivered %d, peak_ratio %.3f, drain_s %.1f"
      % (s["requests"], s["delivered"], s["peak_ratio"], s["drain_s"]))
PY
