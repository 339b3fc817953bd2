#!/usr/bin/env python3
"""Readings of a live page in headless Chromium over the DevTools protocol (cdp_screenshot's
Browser): load URL, then take the steps (page_readings.py) in order, and print a JSON array
of the readings.

usage: cdp_readings.py CHROMIUM PROFILE_DIR WIDTH HEIGHT URL PNG EXPRESSION STEP...
  EXPRESSION: JavaScript whose value is JSON text, the reading.
Exit 1 with a message when Chromium fails, a page does not load or a condition never holds.
"""
import base64
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp_screenshot import Browser  # noqa: E402
import page_readings  # noqa: E402


class Page:
    def __init__(self, browser, session):
        self.browser, self.session = browser, session

    @property
    def deadline(self):
        return self.browser.deadline

    @deadline.setter
    def deadline(self, at):
        self.browser.deadline = at

    def evaluate(self, expression):
        result = self.browser.send("Runtime.evaluate",
                                   {"expression": expression, "returnByValue": True}, self.session)
        if "exceptionDetails" in result:
            raise SystemExit("the page's JavaScript failed: " +
                             json.dumps(result["exceptionDetails"]))
        return result["result"].get("value")

    def screenshot(self):
        data = self.browser.send("Page.captureScreenshot", {"format": "png"}, self.session)["data"]
        return base64.b64decode(data)


def main():
    chromium, profile, width, height, url, png, expression = sys.argv[1:8]
    browser = Browser(chromium, profile)
    try:
        session = browser.open_page(width, height)
        browser.send("Page.navigate", {"url": url}, session)
        browser.wait_for("Page.loadEventFired", session)
        readings = page_readings.take(Page(browser, session), expression, sys.argv[8:], png)
    finally:
        browser.deadline = time.monotonic() + 60
        browser.close()
    print(json.dumps(readings))


if __name__ == "__main__":
    main()
