"""The steps of a live page's readings, whichever browser takes them (cdp_readings.py for
Chromium, marionette_readings.py for Firefox): load the page, then take the steps in order.

  STEP: SECONDS, a reading that many seconds after the step before (the load, for the first);
        shot, a screenshot to PNG; until:CONDITION, a reading once the JavaScript CONDITION
        holds (polled, 120 s at most: a loaded machine's page may be slow to come).
After the screenshot it says "done: shot" on stderr, for a caller that ends the stream then.
"""
import json
import sys
import time

STEP_TIMEOUT_S = 120


def take(page, expression, steps, png):
    """page: evaluate(js) -> its value, screenshot() -> PNG bytes, and a `deadline` attribute
    each step renews. The readings, in order."""
    readings = []
    previous = time.monotonic()
    for step in steps:
        # The page streams for ever: each step has its own deadline, not the whole run.
        page.deadline = time.monotonic() + STEP_TIMEOUT_S
        if step == "shot":
            with open(png, "wb") as f:
                f.write(page.screenshot())
            print("done: shot", file=sys.stderr, flush=True)  # the caller may go on
            continue
        if step.startswith("until:"):
            while not page.evaluate("!!(" + step[6:] + ")"):
                if time.monotonic() > page.deadline - 5:
                    raise SystemExit("the page never came to: " + step[6:] + "; it shows " +
                                     str(page.evaluate(expression)))
                time.sleep(0.2)
        else:
            time.sleep(max(0.0, previous + float(step) - time.monotonic()))
        readings.append(json.loads(page.evaluate(expression)))
        previous = time.monotonic()
    return readings
