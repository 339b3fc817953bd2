#!/usr/bin/env python3
"""The claims of issue 41 about the real SDKs, from one run of bench/sdk/run.sh for one SDK.

    check.py SDK DIR OUTPUT_TOKENS PER_PROCESS [streams | limits OUTPUT_TOKEN_ALLOWANCE RETRY_AFTER_MS]

MODE streams (default): issue 41's claims about streams the provider broke. MODE limits:
issue 44's about the 429s of the LLM token limits (limits_claims): their headers as the SDK
reads them, the SDK's waits after them, the provider's counts against the fleet's.
DIR holds records/ID.json (each client's, from sdk_client.js), stats.json and
provider-results.json (the provider's GET /admin/stats and /admin/results after the fleet),
arrivals.csv (its arrival log) and exec.json (loadgen exec's
results). Prints one PASS or FAIL line a claim, with its figures; exits 1 when one failed.
"""
import csv
import glob
import json
import math
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


def numbered_claim(arrivals):
    """The SDK's own retries, as the provider numbered them (X-Stainless-Retry-Count)."""
    rows = by_client(arrivals)
    retries = sum(1 for a in arrivals if a["attempt"] not in ("", "1"))
    unnumbered = [a for a in arrivals if a["attempt"] == ""]
    gapped = [c for c, rs in rows.items() if [int(a["attempt"]) for a in rs if a["attempt"]] != list(range(1, len(rs) + 1))]
    refused_then = [c for c, rs in rows.items() if any(a["status"] != "200" for a in rs[:-1]) and rs[-1]["status"] == "200"]
    refusals = sum(1 for a in arrivals if a["status"] != "200")
    return ("the SDK's retries of refusals reach the provider numbered 1, 2, ... per client",
            retries > 0 and not unnumbered and not gapped,
            f"{len(arrivals)} arrivals, {refusals} refused, {retries} retries "
            f"(max send {max((int(a['attempt']) for a in arrivals if a['attempt']), default=0)}); "
            f"{len(refused_then)} clients refused then streamed; unnumbered {len(unnumbered)}, "
            f"clients numbered out of order {len(gapped)}")


def common_claims(records, exec_results, output_tokens, per_process):
    """The claims both modes make: records, usage, exec's outcomes."""
    completed = [r for r in records if r["outcome"] == "completed"]
    failed = [r for r in records if r["outcome"] != "completed"]
    clients = exec_results["counts"]["items"]
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
    noisy = [line for r in records for line in r.get("logged", [])]
    out.append(("the SDK parsed every byte without a warning", not noisy,
                f"{len(noisy)} lines logged" + (f", first: {noisy[0][:200]}" if noisy else "")))
    return out


def claims(sdk, records, stats, exec_results, arrivals, output_tokens, per_process):
    """(name, passed, figures) a claim."""
    completed = [r for r in records if r["outcome"] == "completed"]
    failed = [r for r in records if r["outcome"] != "completed"]
    served = stats["reasons"]["served"]
    broken = stats["streams_broken"]
    out = common_claims(records, exec_results, output_tokens, per_process)
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

    out.append(numbered_claim(arrivals))
    rows = by_client(arrivals)

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


EARLY_MS = 2  # Node's timers fire at the ms they were set for, give or take its rounding
LATE_MS = 50  # beyond the process's longest event-loop delay, which check.py adds

# What each limit's 429 says in the body: anthropic names it in error.reason; openai's error
# object has only type (requests or tokens), so its message says which.
OPENAI_MESSAGES = {
    "Rate limit reached for requests;": "request_rate_exceeded",
    "Rate limit reached for tokens;": "token_rate_exceeded",
    "Rate limit reached for input tokens;": "input_token_rate_exceeded",
    "Rate limit reached for output tokens": "output_token_rate_exceeded",
    "Rate limit reached for concurrent requests;": "concurrency_exceeded",
}


def refusal_reason(sdk, body):
    try:
        error = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        return None
    if sdk == "anthropic":
        return error.get("reason")
    return next((r for prefix, r in OPENAI_MESSAGES.items() if error.get("message", "").startswith(prefix)), None)


def sdk_hint_ms(sdk, headers):
    """The wait the SDK's retryRequest takes from a response's headers, as its code reads them
    (node_modules/openai/client.js, @anthropic-ai/sdk/client.js): retry-after-ms by parseFloat
    when it is a number other than 0, else retry-after by parseFloat as seconds (or a date);
    None when neither gives one and the SDK falls back to its own backoff. anthropic also
    takes its backoff for a wait not in (0, 2^31 - 1] ms; openai 6.49.0 takes any number."""
    def parse_float(v):
        try:
            return float(v.strip().split()[0]) if v and v.strip() else None
        except ValueError:
            return None
    ms = parse_float(headers.get("retry-after-ms"))
    hint = ms if ms else None  # JS: a 0 falls through to Retry-After
    if hint is None and headers.get("retry-after"):
        seconds = parse_float(headers["retry-after"])
        hint = seconds * 1000 if seconds is not None else None  # a date: not sent by fakeprovider
    if sdk == "anthropic" and hint is not None and not 0 < hint <= 2 ** 31 - 1:
        return None
    return hint


def hints_of(sdk, headers):
    return sdk_hint_ms(sdk, headers) or 0


def per_minute(rate):
    n, unit = rate.split("/")
    return float(n) * {"s": 60, "min": 1, "h": 1 / 60}[unit]


def limits_claims(sdk, records, stats, exec_results, arrivals, output_tokens, per_process,
                  output_allowance, retry_after_ms):
    """Issue 44's claims: each 429 the SDK's fetch got, its wait after it, and the counts."""
    out = common_claims(records, exec_results, output_tokens, per_process)
    sends = [(r, i, s) for r in records for i, s in enumerate(r["sends"])]
    refusals = [(r, i, s) for r, i, s in sends if s.get("status") == 429]
    reasons = {}
    for r, i, s in refusals:
        s["reason"] = refusal_reason(sdk, s.get("body", ""))
        reasons[s["reason"]] = reasons.get(s["reason"], 0) + 1
    out.append(("the SDKs saw 429s from the output-token limit, not only the request allowance",
                reasons.get("output_token_rate_exceeded", 0) > 0,
                f"{len(refusals)} 429s of {len(sends)} responses, by the reason in their body: "
                f"{dict(sorted(reasons.items(), key=str))}"))

    # Every 429's hint, in the form the SDK reads.
    def well_formed(s):
        h = s["headers"]
        ra = h.get("retry-after", "")
        if not ra.isdigit() or int(ra) < 1:
            return False
        if retry_after_ms == "on":
            ms = h.get("retry-after-ms", "")
            if not ms.isdigit() or int(ms) < 1 or int(ra) != -(-int(ms) // 1000):
                return False
        return h.get("x-should-retry", "true") == "true" and sdk_hint_ms(sdk, h) is not None
    bad = [s for _, _, s in refusals if not well_formed(s)]
    hints = [sdk_hint_ms(sdk, s["headers"]) for _, _, s in refusals]
    out.append((f"every 429 carries Retry-After (whole seconds >= 1)"
                + (", retry-after-ms (ms >= 1, Retry-After its ceiling in seconds)" if retry_after_ms == "on" else "")
                + ", no x-should-retry: false, and a hint the SDK's retryRequest takes",
                bool(refusals) and not bad,
                f"{len(refusals) - len(bad)} of {len(refusals)}; the SDK's hints "
                f"{min(hints, default=0):.0f}-{max(hints, default=0):.0f} ms"
                + (f"; first bad: {bad[0]['headers']}" if bad else "")))
    long_hints = [h for h in hints if h is not None and h >= 60000]
    out.append(("hints under 60 s (a figure: neither SDK here bounds a hint at 60 s; anthropic "
                "takes (0, 2^31 - 1] ms, openai any number)",
                None, f"{len(hints) - len(long_hints)} of {len(hints)}"))

    # The body names the limit that refused, and the headers agree with it.
    rate_per_ms = per_minute(output_allowance) / 60000
    remaining_header = {"anthropic": "anthropic-ratelimit-output-tokens-remaining",
                        "openai": "x-ratelimit-remaining-tokens"}[sdk]
    requests_header = {"anthropic": "anthropic-ratelimit-requests-remaining",
                       "openai": "x-ratelimit-remaining-requests"}[sdk]
    disagree = []
    for r, _, s in refusals:
        h, reason = s["headers"], s["reason"]
        if reason == "output_token_rate_exceeded":
            left = int(h.get(remaining_header, "-1"))
            # The hint is the time the bucket takes to refill to max_tokens: the header's
            # remaining is whole tokens, so within one token's refill, rounded up to the
            # hint's unit (a ms with retry-after-ms, else a second).
            need = (r["max_tokens"] - left) / rate_per_ms
            unit = 1 if retry_after_ms == "on" else 1000
            lo, hi = (math.ceil(t / unit) * unit for t in (need - 1 / rate_per_ms - 1, need + 1))
            ok = 0 <= left < r["max_tokens"] and lo <= hints_of(sdk, h) <= hi
        elif reason == "request_rate_exceeded":
            ok = h.get(requests_header) == "0" and hints_of(sdk, h) <= 1000
        elif reason == "concurrency_exceeded":
            ok = True  # neither API has a concurrency header: the body alone names it
        else:
            ok = False
        if not ok:
            disagree.append((reason, r["max_tokens"], h))
    out.append(("each 429's body names the limit that refused, and its headers agree (output tokens: "
                f"{remaining_header} below max_tokens and the hint its refill at {output_allowance} "
                f"within one token, rounded up; requests: {requests_header} 0, hint <= 1 s)",
                bool(refusals) and not disagree,
                f"{len(refusals) - len(disagree)} of {len(refusals)} agree"
                + (f"; first not: {disagree[0]}" if disagree else "")))

    # The SDK's next send after each 429, against the hint it took: from the moment the
    # SDK's fetch had the 429 to the moment it sent again, on the process's clock.
    early, late, offsets, last = [], [], [], 0
    for r, i, s in refusals:
        if i + 1 == len(r["sends"]):
            last += 1
            continue
        hint = sdk_hint_ms(sdk, s["headers"])
        gap = r["sends"][i + 1]["sent_ms"] - s["got_ms"]
        offsets.append(gap - hint)
        if gap < hint - EARLY_MS:
            early.append((r["client"], round(gap), hint))
        elif gap > hint + LATE_MS + r["loop_delay_max_ms"]:
            late.append((r["client"], round(gap), hint, round(r["loop_delay_max_ms"])))
    gave_up = sum(1 for r in records if r["outcome"] != "completed")
    out.append((f"the SDK's next send after each 429 follows the hint: not earlier than {EARLY_MS} ms "
                f"before it, not later than {LATE_MS} ms + the process's longest event-loop delay after it",
                bool(offsets) and not early and not late and last == gave_up,
                f"{len(offsets)} waits, send minus hint: min {min(offsets, default=0):+.1f}, median "
                f"{statistics.median(offsets) if offsets else 0:+.1f}, max {max(offsets, default=0):+.1f} ms; "
                f"within {LATE_MS} ms without the event-loop allowance {sum(1 for o in offsets if -EARLY_MS <= o <= LATE_MS)}; "
                f"early {len(early)}, late {len(late)}; 429s with no send after {last} (clients out of "
                f"retries {gave_up}); event-loop delay max over processes "
                f"{max((r['loop_delay_max_ms'] for r in records), default=0):.0f} ms"
                + (f"; first early {early[0]}" if early else "") + (f"; first late {late[0]}" if late else "")))
    # The same waits on the provider's clock, arrival to arrival: what the SDK's send path
    # (fetch, the connection) adds after its sleep, as a figure.
    rows = by_client(arrivals)
    extra = []
    for r in records:
        rs = rows.get(str(r["client"]), [])
        for i in range(min(len(rs), len(r["sends"])) - 1):
            sdk_gap = r["sends"][i + 1]["sent_ms"] - r["sends"][i]["got_ms"]
            extra.append((int(rs[i + 1]["t_ns"]) - int(rs[i]["t_ns"])) / 1e6 - sdk_gap)
    if extra:
        trips = [s["got_ms"] - s["sent_ms"] for _, _, s in refusals]
        out.append(("the provider's arrival-to-arrival gap minus the SDK's got-429-to-next-fetch gap, ms (a figure: "
                    "the 429's way back to the SDK plus the retry's way to the provider, beside the 429s' "
                    "round trips as the SDK's fetch saw them)", None,
                    f"min {min(extra):+.0f}, median {statistics.median(extra):+.0f}, max {max(extra):+.0f} "
                    f"over {len(extra)} retries; round trips min {min(trips):.0f}, median "
                    f"{statistics.median(trips):.0f}, max {max(trips):.0f}"))
    waits = stats.get("hint_waits")
    if waits:
        out.append(("the same waits as the provider judged them, arrival to arrival (a figure)", None,
                    f"of {waits['retries']} retries: {waits['at_hint']} at the hint "
                    f"(within {waits['tolerance_ms']} ms), {waits['early']} early, "
                    f"{waits['late']} late, {waits['without_hint']} without one"))

    # The provider's counts against what the fleet's fetch got.
    fleet_status = {}
    for _, _, s in sends:
        fleet_status[str(s.get("status"))] = fleet_status.get(str(s.get("status")), 0) + 1
    arrival_status = {}
    for a in arrivals:
        arrival_status[a["status"]] = arrival_status.get(a["status"], 0) + 1
    provider = {"requests": stats["requests"], "200": stats["totals"]["ok"], "429": stats["totals"]["429"]}
    fleet = {"requests": len(sends), "200": fleet_status.get("200", 0), "429": fleet_status.get("429", 0)}
    out.append(("the provider's stats and arrival log count what the fleet's fetch got",
                provider == fleet and arrival_status == fleet_status and len(arrivals) == len(sends),
                f"fleet {fleet}, provider stats {provider}, arrival log {dict(sorted(arrival_status.items()))}"))
    provider_reasons = {k: v for k, v in stats["reasons"].items() if v and k != "served"}
    out.append(("the provider's refusals by reason = the reasons in the bodies the fleet got",
                provider_reasons == {k: v for k, v in reasons.items() if k},
                f"provider {dict(sorted(provider_reasons.items()))}, fleet "
                f"{dict(sorted(reasons.items(), key=str))}"))
    differ = [r["client"] for r in records
              if [str(s.get("status")) for s in r["sends"]] != [a["status"] for a in rows.get(str(r["client"]), [])]]
    out.append(("client by client, the provider's arrivals are the sends the SDK made, status by status",
                not differ, f"{len(records)} clients, {len(differ)} differ" + (f" (first: {differ[0]})" if differ else "")))
    out.append(numbered_claim(arrivals))

    # Per model: the fleet's sends by the model they named.
    by_model = {}
    for r, _, s in sends:
        m = by_model.setdefault(r["model"], {"sends": 0, "served": 0, "429": 0})
        m["sends"] += 1
        key = "served" if s.get("status") == 200 else str(s.get("status"))
        m[key] = m.get(key, 0) + 1
    provider_models = {
        name: {"sends": m["requests"], "served": m["totals"]["ok"], "429": m["totals"]["429"]}
        for name, m in stats.get("models", {}).items()}
    fleet_models = {name: {"sends": m["sends"], "served": m["served"], "429": m.get("429", 0)}
                    for name, m in by_model.items()}
    out.append(("per model: the provider's counts (provider.models) = what the fleet sent under each name",
                bool(provider_models) and provider_models == fleet_models,
                f"fleet {json.dumps(fleet_models, sort_keys=True)}, provider "
                f"{json.dumps(provider_models, sort_keys=True)}"))
    return out


def main():
    sdk, d, output_tokens, per_process = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    mode = sys.argv[5] if len(sys.argv) > 5 else "streams"
    if mode == "limits":
        # OUTPUT_TOKEN_ALLOWANCE and RETRY_AFTER_MS as run.sh gave them to the provider.
        results = limits_claims(sdk, *load(sdk, d), output_tokens, per_process,
                                sys.argv[6], sys.argv[7])
    else:
        results = claims(sdk, *load(sdk, d), output_tokens, per_process)
    ok = True
    for name, passed, figures in results:
        print(f"  {'info' if passed is None else 'PASS' if passed else 'FAIL'}  {sdk}: {name}: {figures}")
        ok = ok and passed is not False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
