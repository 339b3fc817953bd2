"""Joins burst_client's send stamps with fakeprovider's arrival log (--arrivals-out) and
prints the stamp error (recorded arrival - send) and the spreads. Used by run.sh.

    stamp_error.py SENDS_CSV ARRIVALS_CSV N
"""
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
            client_id, t = line.strip().split(",")
            sends[client_id] = int(t)
    arrivals = {
        r["client_id"]: int(r["t_ns"]) + offset
        for r in csv.DictReader(open(arrivals_path))
        if r["client_id"] in sends
    }
    if len(arrivals) != n:
        sys.exit(f"stamp_error.py: {len(arrivals)} of {n} burst arrivals recorded")
    errors = sorted(arrivals[c] - sends[c] for c in sends)

    def q(p):
        return errors[min(len(errors) - 1, int(p * len(errors)))] / 1e6

    send_spread = (max(sends.values()) - min(sends.values())) / 1e6
    arrival_spread = (max(arrivals.values()) - min(arrivals.values())) / 1e6
    print(
        f"burst {n:5d}: stamp error p50 {q(0.50):.2f} ms, p99 {q(0.99):.2f} ms, "
        f"min {errors[0] / 1e6:.2f} ms, max {errors[-1] / 1e6:.2f} ms "
        f"(clock offset +-{uncertainty / 1e6:.2f} ms); spread of sends {send_spread:.2f} ms, "
        f"of recorded arrivals {arrival_spread:.2f} ms ({arrival_spread / send_spread:.2f}x)"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
