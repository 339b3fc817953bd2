"""The `loadgen exec --wait-ready` handshake, for a Python client of a fleet.

Call ready_and_wait() once the process has done its start-up (imports, client objects) and
just before its first send: it tells loadgen this process is ready, then waits until loadgen
releases the whole fleet. Without --wait-ready it returns at once (loadgen then held the
process before it started, and released it already).
"""

import os


def ready_and_wait():
    ready = os.environ.get("STAMPEDE_READY_FD")
    if ready is None:
        return
    os.write(int(ready), b"r")
    os.close(int(ready))
    release = int(os.environ["STAMPEDE_RELEASE_FD"])
    while os.read(release, 1):  # the release is the end of this pipe
        pass
    os.close(release)
