#!/usr/bin/env python3
"""The claims of issue 41 about the real SDKs, from one run of bench/sdk/run.sh for one SDK.

    check.py SDK DIR OUTPUT_TOKENS PER_PROCESS

DIR holds records/ID.json (each client's, from sdk_client.js), stats.json and
provider-results.json (the provider's GET /admin/stats and /admin/results after the fleet),
arrivals.csv (its arrival log) and exec.json (loadgen exec's
results). Prints one PASS or FAIL line a claim, with its figures; exits 1 when one failed.
"""
import csv
import glob
import json
import os
import statistics
import sys


def load(sdk, d):
    records = [json.load(open(p)) for p in glob.glob(os.path.join(d, "records", "*.json"))]
    stats = json.load(open(os.path.join(d, "stats.json")))
    exec_results = json.load(open(os.path.join(d, "exec.json")))
    stats["hint_waits"] = json.load(open(os.path.join(d, "provider-results.json")))[
        "provider_results"].get("hint_waits")
    with open(os.path.join(d, "arrivals.csv"), newline="") as f:
        arrivals = list(csv.DictReader(f))
    return records, stats, exec_results, arrivals


def by_client(arrivals):
    """Each client's arrivals in the order the provider decided them."""
    out = {}
    for row in arrivals:
        out.setdefault(row["client_id"], []).append(row)
    return out


def claims(sdk, records, stats, exec_results, arrivals, output_tokens, per_process):
    """(name, passed, figures) a claim."""
    completed = [r for r in records if r["outcome"] == "completed"]
    failed = [r for r in records if r["outcome"] != "completed"]
    clients = exec_results["counts"]["items"]
    served = stats["reasons"]["served"]
    broken = stats["streams_broken"]
    out = []

    out.append(("every client wrote its record", len(records) == clients,
                f"{len(records)} records of {clients} clients"))

    # The provider answers min(max_tokens, --output-tokens) tokens: its count for the request.
    wrong = [r for r in completed
             if not (r["output_tokens"] == min(r["max_tokens"], output_tokens) == r["deltas"])]
    usage_sum = sum(r["output_tokens"] or 0 for r in completed)
    delta_sum = sum(r["deltas"] for r in completed)
    out.append(("the SDK's final usage equals the provider's count, stream by stream",
                bool(completed) and not wrong,
                f"{len(completed)} completed streams: usage output tokens {usage_sum}, "
                f"text deltas the SDK yielded {delta_sum}, the provider's "
                f"min(max_tokens, {output_tokens}) {sum(min(r['max_tokens'], output_tokens) for r in completed)}; "
                f"{len(wrong)} differ" + (f" (first: {wrong[0]})" if wrong else "")))

    # A process exits 0 only when all its clients' streams completed: with one client a process,
    # exec's outcomes are the streams'.
    if per_process == 1:
        counts = exec_results["counts"]
        out.append(("loadgen exec's delivered and dead-lettered = the SDK's completed and failed",
                    counts["delivered"] == len(completed) and counts["dead_lettered"] == len(failed),
                    f"delivered {counts['delivered']}, dead-lettered {counts['dead_lettered']}"))
    out.append(("streams the SDK read = streams the provider served", len(records) == served,
                f"provider served {served} (streams_broken {broken}); SDK completed {len(completed)}, "
                f"ended in an error {len(failed)}"))
    out.append(("streams the SDK saw fail = the provider's streams_broken",
                len(failed) == broken and broken > 0,
                f"{len(failed)} vs {broken}"))

    if sdk == "anthropic":
        overloaded = [r for r in failed if r["error"].get("api_error")
                      and r["error"].get("type") == "overloaded_error"]
        classes = sorted({r["error"]["class"] for r in failed})
        out.append(("a mid-stream overloaded_error surfaces as an APIError (overloaded_error)",
                    len(overloaded) == len(failed) == broken and broken > 0,
                    f"{len(overloaded)} of {len(failed)} errors; classes {classes}, statuses "
                    f"{sorted({str(r['error'].get('status')) for r in failed})}"))
    else:
        classes = sorted({f"{r['error']['class']}: {r['error']['message']}" for r in failed})
        out.append(("a stream cut mid-way surfaces as an error (not a silent short answer)",
                    len(failed) == broken and broken > 0, f"{len(failed)} errors: {classes}"))

    noisy = [line for r in records for line in r.get("logged", [])]
    out.append(("the SDK parsed every byte without a warning", not noisy,
                f"{len(noisy)} lines logged" + (f", first: {noisy[0][:200]}" if noisy else "")))

    # The SDK's own retries, as the provider numbered them (X-Stainless-Retry-Count).
    rows = by_client(arrivals)
    retries = sum(1 for a in arrivals if a["attempt"] not in ("", "1"))
    unnumbered = [a for a in arrivals if a["attempt"] == ""]
    gapped = [c for c, rs in rows.items() if [int(a["attempt"]) for a in rs if a["attempt"]] != list(range(1, len(rs) + 1))]
    refused_then = [c for c, rs in rows.items() if any(a["status"] != "200" for a in rs[:-1]) and rs[-1]["status"] == "200"]
    refusals = sum(1 for a in arrivals if a["status"] != "200")
    out.append(("the SDK's retries of refusals reach the provider numbered 1, 2, ... per client",
                retries > 0 and not unnumbered and not gapped,
                f"{len(arrivals)} arrivals, {refusals} refused, {retries} retries "
                f"(max send {max((int(a['attempt']) for a in arrivals if a['attempt']), default=0)}); "
                f"{len(refused_then)} clients refused then streamed; unnumbered {len(unnumbered)}, "
                f"clients numbered out of order {len(gapped)}"))

    # Each broken stream's client: its first 200 is its last arrival.
    broken_clients = [str(r["client"]) for r in failed]
    after = 0
    for c in broken_clients:
        rs = rows.get(c, [])
        first_ok = next((i for i, a in enumerate(rs) if a["status"] == "200"), len(rs))
        after += max(0, len(rs) - first_ok - 1)
    out.append(("the SDK does not retry a stream broken after its 200 (the provider sees no resend)",
                bool(broken_clients) and after == 0,
                f"{len(broken_clients)} broken streams, {after} arrivals after them"))

    # How long the SDK waited before each retry (the provider's clock between a client's
    # consecutive arrivals), for the README: Retry-After read, or the SDK's own backoff.
    gaps = [(int(rs[i + 1]["t_ns"]) - int(rs[i]["t_ns"])) / 1e6
            for rs in rows.values() for i in range(len(rs) - 1)]
    if gaps:
        out.append(("the SDK's wait before a retry, ms (a figure, not a claim)", None,
                    f"min {min(gaps):.0f}, median {statistics.median(gaps):.0f}, max {max(gaps):.0f} "
                    f"over {len(gaps)} retries"))
    waits = stats.get("hint_waits")
    if waits:
        out.append(("the SDK's waits against the Retry-After, as the provider judged them "
                    "(a figure)", None,
                    f"of {waits['retries']} retries: {waits['at_hint']} at the hint "
                    f"(within {waits['tolerance_ms']} ms), {waits['early']} early, "
                    f"{waits['late']} late, {waits['without_hint']} without one"))
    return out


def main():
    sdk, d, output_tokens, per_process = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    ok = True
    for name, passed, figures in claims(sdk, *load(sdk, d), output_tokens, per_process):
        print(f"  {'info' if passed is None else 'PASS' if passed else 'FAIL'}  {sdk}: {name}: {figures}")
        ok = ok and passed is not False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
