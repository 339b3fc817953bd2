#!/usr/bin/env python3
"""The table of bench/clients/README.md, from what bench/clients/run.sh left in OUT.

    table.py OUT STORM...      e.g. table.py build/bench-clients plain jitter

One row per library of each storm, from the provider's view: loadgen exec's results
(OUT/STORM/LIB.json) and the provider's arrival log (OUT/STORM/LIB.arrivals.csv).

- requests: every arrival at the provider.
- peak retries/s: the busiest second of retries (sends after a client's first), and when.
- drain: when the last client got through (loadgen exec's drain_s).
- given up: clients whose last answer was not a 2xx, in the provider's arrival log (by
  X-Client-Id), plus any it never saw; beside it loadgen exec's count from the processes'
  exits, dead-lettered + unfinished (stopped at --max-duration), which counts all K clients
  of a process that exits non-zero as given up when one of them did.
- waits = hint: of the retries that followed an answer carrying Retry-After, the share whose
  wait (from that answer to the client's next arrival) was within 100 ms of it. Where the
  provider reports it itself (its results' per-item figures), that figure; otherwise it is
  worked out from the arrival log and fakeprovider's rules for the hint, which only a
  deterministic hint allows: the whole seconds left of the outage for an outage answer, the
  whole seconds to the next fixed window (1 s) for an allowance answer. A jittered hint
  cannot be worked out, so without the provider's figure the column says so.
"""

import csv
import json
import math
import os
import sys

LIBS = ["curl", "requests", "tenacity", "openai", "anthropic", "dynamodb"]
TOLERANCE_NS = 100_000_000
NS = 1_000_000_000


def arrivals_by_client(path):
    clients = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            # The hint counts from when the provider decided (decided_t_ns: the time its limiter
            # used); the arrival itself is t_ns, the stamp. Older logs have only t_ns.
            t = int(row["t_ns"])
            decided = int(row.get("decided_t_ns") or t)
            clients.setdefault(row["client_id"], []).append((t, int(row["status"]), decided))
    for rows in clients.values():
        rows.sort()
    return clients


def outage_windows(results):
    """[(start_ns, end_ns)] of the scenario's outages, as loadgen exec recorded them."""
    windows = []
    for o in results["scenario"]["provider"].get("outages", []):  # "0s-5s:503"
        start, end = o.split(":")[0].split("-")
        windows.append((parse_duration_ns(start), parse_duration_ns(end)))
    return windows


def parse_duration_ns(text):
    units = [("ms", 1_000_000), ("us", 1000), ("ns", 1), ("s", NS), ("m", 60 * NS), ("h", 3600 * NS)]
    for unit, scale in units:
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * scale)
    raise ValueError(f"table.py: '{text}' is not a duration")


def hint_ns(t_ns, windows):
    """The Retry-After fakeprovider gave an answer at t (no jitter, whole seconds)."""
    for start, end in windows:
        if start <= t_ns < end:
            return max(1, math.ceil((end - t_ns) / NS)) * NS
    return max(1, math.ceil((NS - t_ns % NS) / NS)) * NS  # the next 1 s window


def given_up(clients, fleet):
    last_not_ok = sum(1 for rows in clients.values() if not 200 <= rows[-1][1] < 300)
    return last_not_ok + fleet - len(clients)


def waits_after_hints(clients, windows):
    """wait - hint (ns) of every retry that followed an answer with a Retry-After."""
    offsets = []
    for rows in clients.values():
        for (_, status, decided), (t_next, _, _) in zip(rows, rows[1:]):
            if status != 200 and status != 0:
                offsets.append((t_next - decided) - hint_ns(decided, windows))
    return offsets


def peak_retries(clients):
    """(retries, second) of the busiest second of retries."""
    per_second = {}
    for rows in clients.values():
        for t, _, _ in rows[1:]:
            per_second[t // NS] = per_second.get(t // NS, 0) + 1
    if not per_second:
        return 0, None
    second = max(per_second, key=lambda s: (per_second[s], -s))
    return per_second[second], second


def provider_results(results, base):
    """The provider's own per-item figures: embedded in loadgen exec's results, or as
    run.sh fetched them from GET /admin/results; None from a fakeprovider without them."""
    found = find_key(results, "provider_results")
    if found is None and os.path.exists(base + ".provider-results.json"):
        with open(base + ".provider-results.json") as f:
            found = find_key(json.load(f), "provider_results")
    return found


def find_key(doc, key):
    if isinstance(doc, dict):
        if key in doc:
            return doc[key]
        for v in doc.values():
            found = find_key(v, key)
            if found is not None:
                return found
    return None


def hint_column(clients, results, flags, provider):
    parts = []
    if provider is not None:
        w = provider["hint_waits"]
        parts.append(f"provider: {100 * w['at_hint_share']:.0f}% ({w['at_hint']} of "
                     f"{w['retries'] - w['without_hint']})")
    if "--retry-after-jitter" in flags:
        if provider is None:
            parts.append("n/a: jittered hint, no provider figure")
        return "; ".join(parts)
    offsets = waits_after_hints(clients, outage_windows(results))
    if not offsets:
        return "; ".join(parts + ["no retries"])
    at = sum(abs(o) <= TOLERANCE_NS for o in offsets)
    median_ms = sorted(offsets)[len(offsets) // 2] / 1e6
    log = f"{100 * at / len(offsets):.0f}% ({at} of {len(offsets)}; median {median_ms:+.0f} ms)"
    return "; ".join(parts + ([f"log: {log}"] if parts else [log]))


def row(out, storm, lib, versions):
    base = os.path.join(out, storm, lib)
    if not os.path.exists(base + ".json"):
        return None
    with open(base + ".json") as f:
        results = json.load(f)
    with open(base + ".provider-flags") as f:
        flags = f.read().split()
    clients = arrivals_by_client(base + ".arrivals.csv")
    s, c = results["summary"], results["counts"]
    peak, second = peak_retries(clients)
    provider = provider_results(results, base)
    hint = hint_column(clients, results, flags, provider)
    lockstep = f"{provider['lockstep']['share']:.2f}" if provider else "pending"
    stopped = results.get("exec", {}).get("stopped", "")
    return (f"| {versions.get(lib, lib)} | {s['requests']:,.0f} | "
            f"{s['peak_arrivals']:.0f} ({s['peak_ratio']:.1f}x) at t={s['peak_second']:.0f} s | "
            f"{peak} at t={second} s | {s['drain_s']:.1f} s | "
            f"{given_up(clients, c['items'])} | {c['dead_lettered']} + {c['unfinished']}"
            f"{' (stopped: ' + stopped + ')' if stopped else ''} | "
            f"{hint} | {lockstep} |")


def main():
    if len(sys.argv) < 3:
        print("usage: table.py OUT STORM...", file=sys.stderr)
        return 2
    out = sys.argv[1]
    with open(os.path.join(out, "versions.json")) as f:
        versions = json.load(f)
    for storm in sys.argv[2:]:
        rows = [r for r in (row(out, storm, lib, versions) for lib in LIBS) if r]
        if not rows:
            continue
        print(f"\n{storm}:\n")
        print("| library (version) | requests | peak arrivals/s after the outage | peak retries/s | "
              "drain | given up | exits: dead-lettered + unfinished | waits = hint (±100 ms) | lockstep |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
