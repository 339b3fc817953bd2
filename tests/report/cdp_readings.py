#!/usr/bin/env python3
"""Readings of a live page in headless Chromium over the DevTools protocol (cdp_screenshot's
Browser): load URL, then take the steps in order, and print a JSON array of the readings.
After the screenshot it says "done: shot" on stderr, for a caller that ends the stream then.

usage: cdp_readings.py CHROMIUM PROFILE_DIR WIDTH HEIGHT URL PNG EXPRESSION STEP...
  EXPRESSION: JavaScript whose value is JSON text, the reading.
  STEP: SECONDS, a reading that many seconds after the step before (the load, for the first);
        shot, a screenshot to PNG; until:CONDITION, a reading once the JavaScript CONDITION
        holds (polled, 120 s at most: a loaded machine's page may be slow to come).
Exit 1 with a message when Chromium fails, a page does not load or a condition never holds.
"""
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_screenshot import Browser  # noqa: E402


def evaluate(browser, session, expression):
    result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                          session)
    if "exceptionDetails" in result:
        raise SystemExit("the page's JavaScript failed: " + json.dumps(result["exceptionDetails"]))
    return result["result"].get("value")


def main():
    chromium, profile, width, height, url, png, expression = sys.argv[1:8]
    steps = sys.argv[8:]
    browser = Browser(chromium, profile)
    readings = []
    try:
        session = browser.open_page(width, height)
        browser.send("Page.navigate", {"url": url}, session)
        browser.wait_for("Page.loadEventFired", session)
        previous = time.monotonic()
        for step in steps:
            # The page streams for ever: each step has its own deadline, not the whole run.
            browser.deadline = time.monotonic() + 120
            if step == "shot":
                data = browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"]
                with open(png, "wb") as f:
                    f.write(base64.b64decode(data))
                print("done: shot", file=sys.stderr, flush=True)  # the caller may go on
                continue
            if step.startswith("until:"):
                while not evaluate(browser, session, "!!(" + step[6:] + ")"):
                    if time.monotonic() > browser.deadline - 5:
                        raise SystemExit("the page never came to: " + step[6:] + "; it shows " +
                                         str(evaluate(browser, session, expression)))
                    time.sleep(0.2)
            else:
                time.sleep(max(0.0, previous + float(step) - time.monotonic()))
            readings.append(json.loads(evaluate(browser, session, expression)))
            previous = time.monotonic()
    finally:
        browser.deadline = time.monotonic() + 60
        browser.close()
    print(json.dumps(readings))


if __name__ == "__main__":
    main()
