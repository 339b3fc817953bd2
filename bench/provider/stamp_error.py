"""Joins burst_client's send stamps with fakeprovider's arrival log (--arrivals-out) and
prints the stamp error (recorded arrival - send), the spreads, and how long after its stamp
each arrival was decided (the log's decided_t_ns - t_ns: the loops' scheduling delay, which
the limiters see and the stamp does not). Used by run.sh.

The send time is the client's clock just before send(). A send that itself took over a
millisecond is one the client was descheduled in, so its true send time is unknown: such
sends are counted and left out of the error percentiles (but not of the spreads).

    stamp_error.py SENDS_CSV ARRIVALS_CSV N
"""

STALLED_SEND_NS = 1_000_000
import csv
import sys


def main(sends_path, arrivals_path, n):
    sends, offset, uncertainty = {}, None, None
    for line in open(sends_path):
        if line.startswith("#"):
            fields = dict(kv.split("=") for kv in line[1:].split())
            offset = int(fields["offset_ns"])
            uncertainty = int(fields["offset_uncertainty_ns"])
        else:
            client_id, before, after = line.strip().split(",")
            sends[client_id] = (int(before), int(after))
    rows = [r for r in csv.DictReader(open(arrivals_path)) if r["client_id"] in sends]
    # t_ns is the stamp (when the bytes came in); decided_t_ns the time the limiters decided
    # the arrival at: later when its server thread was kept off the CPU meanwhile.
    arrivals = {r["client_id"]: int(r["t_ns"]) + offset for r in rows}
    decided_late = sorted(int(r["decided_t_ns"]) - int(r["t_ns"]) for r in rows)
    decided = {r["client_id"]: int(r["decided_t_ns"]) + offset for r in rows}
    if len(arrivals) != n:
        sys.exit(f"stamp_error.py: {len(arrivals)} of {n} burst arrivals recorded")
    stalled = sum(1 for b, a in sends.values() if a - b > STALLED_SEND_NS)
    kept = [(c, b) for c, (b, a) in sends.items() if a - b <= STALLED_SEND_NS]
    errors = sorted(arrivals[c] - b for c, b in kept)
    # What the log said before it kept the stamp apart (commit c494982): the decision time.
    decided_errors = sorted(decided[c] - b for c, b in kept)
    sends = {c: b for c, (b, a) in sends.items()}

    def q(p, values=errors):
        return values[min(len(values) - 1, int(p * len(values)))] / 1e6

    send_spread = (max(sends.values()) - min(sends.values())) / 1e6
    arrival_spread = (max(arrivals.values()) - min(arrivals.values())) / 1e6
    print(
        f"burst {n:5d}: stamp error p50 {q(0.50):.2f} ms, p99 {q(0.99):.2f} ms, "
        f"min {errors[0] / 1e6:.2f} ms, max {errors[-1] / 1e6:.2f} ms "
        f"(clock offset +-{uncertainty / 1e6:.2f} ms, {stalled} stalled sends left out); "
        f"spread of sends {send_spread:.2f} ms, "
        f"of recorded arrivals {arrival_spread:.2f} ms ({arrival_spread / send_spread:.2f}x); "
        f"decided after the stamp: p99 {decided_late[int(0.99 * (n - 1))] / 1e6:.2f} ms, "
        f"max {decided_late[-1] / 1e6:.2f} ms (decision time - send: p99 "
        f"{q(0.99, decided_errors):.2f} ms)"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
