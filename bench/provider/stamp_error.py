"""Joins burst_client's send stamps with fakeprovider's arrival log (--arrivals-out) and
prints the stamp error (recorded arrival - send) and the spreads. Used by run.sh.

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
    arrivals = {
        r["client_id"]: int(r["t_ns"]) + offset
        for r in csv.DictReader(open(arrivals_path))
        if r["client_id"] in sends
    }
    if len(arrivals) != n:
        sys.exit(f"stamp_error.py: {len(arrivals)} of {n} burst arrivals recorded")
    stalled = sum(1 for b, a in sends.values() if a - b > STALLED_SEND_NS)
    errors = sorted(arrivals[c] - b for c, (b, a) in sends.items() if a - b <= STALLED_SEND_NS)
    sends = {c: b for c, (b, a) in sends.items()}

    def q(p):
        return errors[min(len(errors) - 1, int(p * len(errors)))] / 1e6

    send_spread = (max(sends.values()) - min(sends.values())) / 1e6
    arrival_spread = (max(arrivals.values()) - min(arrivals.values())) / 1e6
    print(
        f"burst {n:5d}: stamp error p50 {q(0.50):.2f} ms, p99 {q(0.99):.2f} ms, "
        f"min {errors[0] / 1e6:.2f} ms, max {errors[-1] / 1e6:.2f} ms "
        f"(clock offset +-{uncertainty / 1e6:.2f} ms, {stalled} stalled sends left out); "
        f"spread of sends {send_spread:.2f} ms, "
        f"of recorded arrivals {arrival_spread:.2f} ms ({arrival_spread / send_spread:.2f}x)"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
