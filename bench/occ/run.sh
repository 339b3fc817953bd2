#!/usr/bin/env bash
# Contention storms in the simulator (occ mode): the AWS Architecture Blog's "Exponential
# Backoff And Jitter" (2015) model. N clients at t=0 each read one row and write it back
# conditionally, a 412 retried after the backoff; hops 10ms +- 2ms; cap 2000ms; base 10ms,
# 5ms for decorrelated jitter. Prints the means over TRIALS trials (default 100) of the
# conditional writes and the drain time, as a Markdown table.
#   bench/occ/run.sh [BUILD_DIR]        CLIENTS="10 100" TRIALS=20 bench/occ/run.sh
set -euo pipefail
build=${1:-build}
trials=${TRIALS:-100}
clients_list=${CLIENTS:-"10 100 1000"}
bin="$build/bin/loadgen"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
strategies="none exponential full-jitter equal-jitter decorrelated-jitter"

for clients in $clients_list; do
  for strategy in $strategies; do
    base=10ms
    [ "$strategy" = decorrelated-jitter ] && base=5ms
    /usr/bin/time -f "%U" -o "$out/$clients-$strategy.cpu" \
      "$bin" simulate --mode occ --clients "$clients" --strategy "$strategy" --base "$base" \
      --cap 2s --hop-delay 10ms,2ms --seed 1 --trials "$trials" --quiet --no-report \
      --out "$out/$clients-$strategy.json"
  done
done

python3 - "$out" "$trials" "$clients_list" "$strategies" <<'PY'
import json, sys
out, trials, clients_list, strategies = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
print(f"means of {trials} trials (seeds 1..{trials}); writes = conditional writes attempted, "
      "drain = when the last client's write succeeded\n")
print("| clients | strategy | writes | writes per client | drain (ms) | CPU (s) |")
print("|---:|---|---:|---:|---:|---:|")
for c in clients_list:
    for s in strategies:
        doc = json.load(open(f"{out}/{c}-{s}.json"))
        summary = doc["summary"]
        assert doc.get("trials", 1) == int(trials)
        assert summary["delivered"] == int(c), (c, s, summary["delivered"])
        cpu = float(open(f"{out}/{c}-{s}.cpu").read().split()[-1])
        print(f"| {c} | {s} | {summary['writes']:,.1f} | {summary['writes'] / int(c):,.2f} | "
              f"{summary['drain_s'] * 1000:,.0f} | {cpu:.1f} |")
PY
