#!/usr/bin/env python3
"""What a data plane request waits while something holds the recorders' locks.

    stall_probe.py fill PORT TENANTS   # TENANTS requests, each its own X-Api-Key, pipelined
    stall_probe.py probe PORT SECONDS  # one keep-alive request every 5 ms for SECONDS

probe prints the requests' latencies in ms: max, p99.9, p99, p50 (one line).
"""
import socket
import sys
import threading
import time


def fill(port, tenants, connections=4):
    def one(first, count):
        s = socket.create_connection(("127.0.0.1", port))
        got = [0]

        def read():
            buf = b""
            while got[0] < count:
                data = s.recv(1 << 20)
                if not data:
                    break
                buf += data
                n = buf.count(b"HTTP/1.1 ")
                got[0] += n
                buf = buf[buf.rfind(b"HTTP/1.1 ") + 9:] if n else buf[-16:]

        reader = threading.Thread(target=read)
        reader.start()
        batch = []
        for i in range(first, first + count):
            batch.append(b"GET / HTTP/1.1\r\nHost: x\r\nX-Api-Key: tenant-%d\r\n\r\n" % i)
            if len(batch) == 1000:
                s.sendall(b"".join(batch))
                batch = []
        s.sendall(b"".join(batch))
        reader.join()
        s.close()

    per = tenants // connections
    threads = [threading.Thread(target=one, args=(c * per, per if c < connections - 1 else tenants - c * per))
               for c in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def probe(port, seconds):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = b"GET / HTTP/1.1\r\nHost: x\r\nX-Api-Key: probe\r\n\r\n"
    lat = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        s.sendall(request)
        buf = b""
        while b"\r\n\r\n" not in buf or len(buf) < buf.index(b"\r\n\r\n") + 4 + body_length(buf):
            buf += s.recv(65536)
        lat.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.005)
    lat.sort()
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print("requests %d max %.2f p99.9 %.2f p99 %.2f p50 %.3f" %
          (len(lat), lat[-1], pick(0.999), pick(0.99), pick(0.5)))


def body_length(buf):
    head = buf[:buf.index(b"\r\n\r\n")].lower()
    at = head.find(b"content-length:")
    return int(head[at + 15:head.index(b"\r\n", at) if b"\r\n" in head[at:] else None]) if at >= 0 else 0


if __name__ == "__main__":
    mode, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fill(port, n) if mode == "fill" else probe(port, n)
