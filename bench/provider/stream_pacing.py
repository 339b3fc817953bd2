"""The pacing error of streamed answers, measured where a client sees it: opens COUNT streams
(POST /v1/messages, "stream": true, Anthropic's events) to 127.0.0.1:PORT at once, stamps each
read with time.monotonic() the moment it returns, and gives every content_block_delta event the
stamp of the read that carried it. Token k of a stream is due at its first token's arrival plus
k / RATE (the pacing a stream promises once it has begun), and at its head's arrival plus
FIRST_TOKEN + k / RATE (what fakeprovider's pacing promises from the head: docs/LLM.md).
The figures include this client's own delay in reading; bench/provider/streams.sh runs it beside
the fleet that holds the rest of the streams.

    python3 stream_pacing.py PORT COUNT TOKENS RATE_PER_S FIRST_TOKEN_MS TIMEOUT_S

Prints one JSON line: streams complete, tokens, and the lateness percentiles in ms.
"""
import asyncio
import json
import sys
import time

PORT, COUNT, TOKENS = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
RATE, FIRST_S, TIMEOUT_S = float(sys.argv[4]), float(sys.argv[5]) / 1000, float(sys.argv[6])
DELTA = b"event: content_block_delta\n"
HEAD = b"event: message_start\n"
STOP = b"event: message_stop\n"
BODY = json.dumps({"model": "bench", "max_tokens": TOKENS, "stream": True,
                   "messages": [{"role": "user", "content": "pacing"}]}).encode()
REQUEST = (b"POST /v1/messages HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
           b"Accept: text/event-stream\r\nanthropic-version: 2023-06-01\r\n"
           b"Content-Length: %d\r\n\r\n" % len(BODY)) + BODY


class Stream(asyncio.Protocol):
    """One streamed answer: the stamps of its head, its tokens and its end."""

    def __init__(self, done):
        self.done, self.tail = done, b""
        self.sent = self.head = None
        self.tokens = []

    def connection_made(self, transport):
        self.sent = time.monotonic()
        transport.write(REQUEST)

    def data_received(self, data):
        now = time.monotonic()
        # An event marker split between two reads is joined; one whole in the last is not kept.
        text = self.tail + data
        self.tail = text[-(len(DELTA) - 1):]
        if self.head is None and HEAD in text:
            self.head = now
        self.tokens.extend([now] * text.count(DELTA))
        if STOP in text and not self.done.done():
            self.done.set_result(True)

    def connection_lost(self, exc):
        if not self.done.done():
            self.done.set_result(False)


def percentiles(values):
    if not values:
        return None
    values = sorted(values)
    pick = lambda q: round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 3)
    return {"p50": pick(0.50), "p99": pick(0.99), "p999": pick(0.999),
            "max": round(values[-1] * 1000, 3)}


async def main():
    loop = asyncio.get_running_loop()
    streams = []
    for _ in range(COUNT):
        done = loop.create_future()
        _, proto = await loop.create_connection(lambda d=done: Stream(d), "127.0.0.1", PORT)
        streams.append(proto)
    try:
        await asyncio.wait_for(asyncio.gather(*(s.done for s in streams)), TIMEOUT_S)
    except asyncio.TimeoutError:
        pass
    period = 1 / RATE
    from_first, from_head, ttft = [], [], []
    for s in streams:
        if not s.tokens:
            continue
        ttft.append(s.tokens[0] - s.sent)
        from_first += [t - (s.tokens[0] + k * period) for k, t in enumerate(s.tokens) if k]
        from_head += [t - (s.head + FIRST_S + k * period) for k, t in enumerate(s.tokens)]
    print(json.dumps({
        "streams": COUNT, "complete": sum(1 for s in streams if len(s.tokens) == TOKENS),
        "tokens": sum(len(s.tokens) for s in streams),
        "late_vs_first_token_ms": percentiles(from_first),
        "late_vs_head_ms": percentiles(from_head),
        "ttft_ms": percentiles(ttft)}), flush=True)


asyncio.run(main())
