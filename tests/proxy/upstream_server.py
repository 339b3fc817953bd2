#!/usr/bin/env python3
"""A real HTTP/1.1 upstream for the proxy tests (Python's http.server, one thread a
connection, keep-alive). It prints its port on the first line of stdout, then serves:

  GET  /bytes/N        N bytes of a fixed pseudo-random sequence (binary), Content-Length
  ANY  /echo...        200, the body as received; X-Echo-Method, X-Echo-Target (the request
                       line's target as it came) and X-Echo-Headers (the headers, JSON)
  GET  /chunked        a chunked answer of several pieces (byte_sequence(70000) in 7 chunks)
  GET  /sse?n=N        text/event-stream, chunked: event 1 at once, each later one only after
                       a POST /__release (so a client that sees event k before releasing k+1
                       proves the proxy buffers nothing)
  GET  /status/NNN     that status, Retry-After: 7, a small JSON body
  GET  /no-content     204
  GET  /stall          reads the request and never answers (until it is stopped)
  GET  /close-after    200 "bye", then closes the connection without saying so
  GET  /__count        how many requests it served that were not /__count or /__release
"""
import hashlib
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNT = 0
COUNT_LOCK = threading.Lock()
RELEASES = threading.Semaphore(0)
STOP = threading.Event()


def byte_sequence(n):
    out = bytearray()
    block = 0
    while len(out) < n:
        out += hashlib.sha256(block.to_bytes(8, "big")).digest()
        block += 1
    return bytes(out[:n])


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def route(self):
        global COUNT
        path = self.path.split("?")[0]
        if path == "/__count":
            return self.send(200, str(COUNT).encode())
        if path == "/__release":
            self.body()
            RELEASES.release()
            return self.send(200, b"released")
        with COUNT_LOCK:
            COUNT += 1
        if path.startswith("/bytes/"):
            data = byte_sequence(int(path[len("/bytes/"):]))
            return self.send(200, data, [("Content-Type", "application/octet-stream")])
        if path.startswith("/echo"):
            data = self.body()
            return self.send(200, data, [("X-Echo-Method", self.command),
                                         ("X-Echo-Target", self.path),
                                         ("X-Echo-Headers", json.dumps(self.headers.items()))])
        if path == "/chunked":
            data = byte_sequence(70000)
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(data), 10000):
                self.chunk(data[i:i + 10000])
            return self.chunk(b"")
        if path == "/sse":
            n = int(self.path.split("n=")[1]) if "n=" in self.path else 3
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(1, n + 1):
                if i > 1 and not RELEASES.acquire(timeout=60):
                    break
                self.chunk(b"data: event %d\n\n" % i)
            return self.chunk(b"")
        if path.startswith("/status/"):
            status = int(path[len("/status/"):])
            return self.send(status, b'{"upstream":"refused"}',
                             [("Retry-After", "7"), ("Content-Type", "application/json")])
        if path == "/no-content":
            return self.send(204)
        if path == "/close-after":
            self.send(200, b"bye")
            self.close_connection = True
            return None
        if path == "/stall":
            STOP.wait(120)
            self.close_connection = True
            return None
        return self.send(404, b"no such path")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = route


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0),
                                 Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    finally:
        STOP.set()


if __name__ == "__main__":
    main()
