#!/usr/bin/env python3
"""One process of a `loadgen exec` fleet: requests with urllib3's Retry, as a service would
configure it.

Runs STAMPEDE_PER_PROCESS clients (threads), client ids from STAMPEDE_CLIENT_ID on, each
with its own Session, sending one GET to STAMPEDE_URL and naming itself in X-Client-Id.
Exits 0 when every one of its clients got a 200, 1 otherwise: loadgen exec counts that as
their outcome.

    loadgen exec --clients 20 --per-process 4 --wait-ready ... -- python3 requests_fleet.py
"""

import os
import sys
import threading

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from stampede_release import ready_and_wait

URL = os.environ["STAMPEDE_URL"]
FIRST = int(os.environ["STAMPEDE_CLIENT_ID"])
COUNT = int(os.environ["STAMPEDE_PER_PROCESS"])


def make_session():
    # urllib3 retries 429 and 503 here, sleeping exactly the Retry-After it is given
    # (respect_retry_after_header), else 0.5 s doubling; no jitter in urllib3 1.26.
    retry = Retry(total=8, status_forcelist=[429, 503], backoff_factor=0.5,
                  respect_retry_after_header=True, raise_on_status=False)
    session = requests.Session()
    session.mount("http://", HTTPAdapter(max_retries=retry))
    session.mount("https://", HTTPAdapter(max_retries=retry))
    return session


def client(session, client_id, delivered):
    try:
        answer = session.get(URL, headers={"X-Client-Id": str(client_id)}, timeout=30)
        delivered[client_id] = answer.status_code == 200
    except requests.RequestException:
        delivered[client_id] = False


def main():
    sessions = {FIRST + i: make_session() for i in range(COUNT)}
    delivered = {}
    ready_and_wait()
    threads = [threading.Thread(target=client, args=(s, c, delivered))
               for c, s in sessions.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return 0 if len(delivered) == COUNT and all(delivered.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
