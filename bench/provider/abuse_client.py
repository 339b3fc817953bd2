#!/usr/bin/env python3
"""Abusers against fakeprovider while one well-behaved client measures its latency.

    abuse_client.py PORT [IDLE] [SLOWLORIS] [HOLD_S]

Measures the well-behaved client (one keep-alive connection, one request at a time) alone,
then opens IDLE silent connections and SLOWLORIS ones that send a header byte a second, and
measures again for HOLD_S seconds. Prints connections held and the p50/p99 of both phases.
Loopback only; every loop is bounded by a count or HOLD_S.
"""
import resource
import select
import socket
import sys
import time

REQUEST = b"GET /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client-Id: good\r\n\r\n"


def connect(port):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def one_request(s, buf):
    s.sendall(REQUEST)
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError("the well-behaved connection was closed")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(rest) < length:
        rest += s.recv(65536)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("unexpected answer: %r" % head[:40])
    return rest[length:]


def measure(s, count=None, seconds=None, every=None):
    """Latencies (ns) of sequential requests; every(): called between them."""
    lat, buf = [], b""
    end = time.monotonic() + seconds if seconds else None
    while (count is None or len(lat) < count) and (end is None or time.monotonic() < end):
        t0 = time.perf_counter_ns()
        buf = one_request(s, buf)
        lat.append(time.perf_counter_ns() - t0)
        if every:
            every()
        time.sleep(0.001)
    return sorted(lat)


def quantile(sorted_ns, q):
    return sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))] / 1e6


def closed(s):
    poller = select.poll()
    poller.register(s, select.POLLIN)
    if not poller.poll(0):
        return False
    try:
        return s.recv(1) == b""
    except OSError:
        return True


def main():
    port = int(sys.argv[1])
    idle_n = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    slow_n = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    hold_s = float(sys.argv[4]) if len(sys.argv) > 4 else 15
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    good = connect(port)
    before = measure(good, count=3000)

    idle = [connect(port) for _ in range(idle_n)]
    slow = [connect(port) for _ in range(slow_n)]
    for s in slow:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    slow_alive = set(range(slow_n))
    last_byte = [time.monotonic()]

    def trickle():
        if time.monotonic() - last_byte[0] < 1.0:
            return
        last_byte[0] = time.monotonic()
        for i in list(slow_alive):
            try:
                slow[i].send(b"X")
            except OSError:
                slow_alive.discard(i)

    opened = time.monotonic()
    during = measure(good, seconds=hold_s, every=trickle)
    held_idle = sum(1 for s in idle if not closed(s))
    held_slow = sum(1 for i, s in enumerate(slow) if i in slow_alive and not closed(s))
    print("abusers: %d idle, %d slowloris (a header byte a second), held for %.1f s"
          % (idle_n, slow_n, time.monotonic() - opened))
    print("connections held at the end: idle %d of %d, slowloris %d of %d"
          % (held_idle, idle_n, held_slow, slow_n))
    print("well-behaved client before: %d requests, p50 %.3f ms, p99 %.3f ms"
          % (len(before), quantile(before, 0.5), quantile(before, 0.99)))
    print("well-behaved client during: %d requests, p50 %.3f ms, p99 %.3f ms"
          % (len(during), quantile(during, 0.5), quantile(during, 0.99)))
    for s in idle + slow + [good]:
        s.close()


if __name__ == "__main__":
    main()
