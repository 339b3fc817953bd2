"""Opens COUNT connections to 127.0.0.1:PORT from source address SOURCE, holds them all,
then sends one request on each at once and counts the answers' statuses: what a fleet of that
many idle clients does to a provider. One process of these holds at most what its open-file
limit allows (20,000 here); bench/provider/processes.sh starts several, each from its own
loopback address, since one source address reaches one port through about 28,000 local ports.

    python3 hold_connections.py PORT COUNT SOURCE

Prints one JSON line: {"source", "connected", "connect_errors", "statuses": {status: n}}.
"""
import asyncio
import collections
import json
import resource
import socket
import sys

PORT, COUNT, SOURCE = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
OPENING_AT_ONCE = 500  # the provider's listen backlog is not flooded
ANSWER_TIMEOUT_S = 120
# Linux's IP_BIND_ADDRESS_NO_PORT: the source address is bound now, the port only at connect,
# per destination. Without it bind() takes a local port for good, from every address's range.
IP_BIND_ADDRESS_NO_PORT = 24


async def connect(gate, held, errors):
    async with gate:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, 1)
        sock.setblocking(False)
        try:
            sock.bind((SOURCE, 0))
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", PORT))
            held.append(await asyncio.open_connection(sock=sock))
        except OSError as e:
            sock.close()
            errors[e.strerror or str(e)] += 1


async def ask(reader, writer):
    writer.write(b"GET /v1/messages HTTP/1.1\r\nHost: bench\r\n\r\n")
    await writer.drain()
    line = await asyncio.wait_for(reader.readline(), ANSWER_TIMEOUT_S)
    return line.split()[1].decode() if line else "closed"


async def main():
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    gate, held, errors = asyncio.Semaphore(OPENING_AT_ONCE), [], collections.Counter()
    await asyncio.gather(*(connect(gate, held, errors) for _ in range(COUNT)))
    answers = await asyncio.gather(*(ask(r, w) for r, w in held), return_exceptions=True)
    statuses = collections.Counter(a if isinstance(a, str) else type(a).__name__ for a in answers)
    print(json.dumps({"source": SOURCE, "connected": len(held), "connect_errors": dict(errors),
                      "statuses": dict(statuses)}), flush=True)


asyncio.run(main())
