#!/usr/bin/env python3
"""An https upstream that answers what no sound server does, for the proxy tests of an https
upstream (which libcurl reads): tls_scripted_upstream.py CERT KEY DIR. It prints its port on
the first line of stdout, then answers a request for /NAME with the bytes of DIR/NAME as they
are, unframed and unchecked, and any other request with 200 "the next client's own". One
thread a connection, keep-alive.
"""
import os
import socket
import ssl
import sys
import threading


def answer_for(directory, head):
    name = head.split(b" ")[1].lstrip(b"/").decode()
    path = os.path.join(directory, name)
    if name and os.path.isfile(path):
        with open(path, "rb") as f:
            return f.read()
    body = b"the next client's own"
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def serve(context, conn, directory):
    try:
        conn = context.wrap_socket(conn, server_side=True)
        pending = b""
        while True:
            data = conn.recv(65536)
            if not data:
                return
            pending += data
            while b"\r\n\r\n" in pending:
                head, pending = pending.split(b"\r\n\r\n", 1)
                conn.sendall(answer_for(directory, head))
    except (OSError, ssl.SSLError):
        pass  # the proxy closed on a bad answer: that is the point
    finally:
        conn.close()


def main():
    cert, key, directory = sys.argv[1:4]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    print(listener.getsockname()[1], flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(context, conn, directory), daemon=True).start()


if __name__ == "__main__":
    main()
