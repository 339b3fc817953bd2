#!/usr/bin/env python3
"""One process of a `loadgen exec` fleet: tenacity's @retry with exponential backoff and no
jitter around urllib.request, as a service might wrap its calls.

One client (id STAMPEDE_CLIENT_ID) sends one GET to STAMPEDE_URL, naming itself in
X-Client-Id, and retries a 429, a 503 or a connection error after 0.1, 0.2, 0.4, 0.8, then
1 s (wait_exponential(multiplier=0.1, max=1)), 8 attempts in all. tenacity never reads
Retry-After. Exits 0 on a 200, 1 otherwise.

    loadgen exec --clients 20 --wait-ready ... -- python3 tenacity_fleet.py
"""

import os
import sys
import urllib.error
import urllib.request

from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from stampede_release import ready_and_wait

URL = os.environ["STAMPEDE_URL"]
CLIENT = os.environ["STAMPEDE_CLIENT_ID"]


class Retryable(Exception):
    pass


@retry(wait=wait_exponential(multiplier=0.1, max=1), stop=stop_after_attempt(8),
       retry=retry_if_exception_type(Retryable), reraise=True)
def send():
    request = urllib.request.Request(URL, headers={"X-Client-Id": CLIENT})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        if e.code in (429, 503):
            raise Retryable(e.code) from e
        raise
    except urllib.error.URLError as e:
        raise Retryable(e.reason) from e


def main():
    ready_and_wait()
    try:
        return 0 if send() == 200 else 1
    except Exception as e:  # the last attempt's error: this client is dead-lettered
        print(f"client {CLIENT}: {e!r}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
