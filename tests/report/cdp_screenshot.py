#!/usr/bin/env python3
"""Screenshots of pages in headless Chromium, driven over the DevTools protocol on a pipe, so
the pages can be loaded with JavaScript disabled (Emulation.setScriptExecutionDisabled):
Chromium's own --screenshot writes nothing when --blink-settings=scriptEnabled=false.

usage: cdp_screenshot.py CHROMIUM PROFILE_DIR WIDTH HEIGHT on|off URL=PNG...
  on|off: JavaScript enabled or disabled for every page.
Exit 1 with a message when Chromium fails or a page does not load in time.
"""
import base64
import json
import shlex
import subprocess
import sys
import time

TIMEOUT_S = 60
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run",
         "--hide-scrollbars", "--remote-debugging-pipe"]


class Browser:
    def __init__(self, chromium, profile):
        # Chromium reads commands on fd 3 and answers on fd 4; the shell wires them to our pipes.
        command = " ".join(shlex.quote(w) for w in [chromium, *FLAGS, "--user-data-dir=" + profile,
                                                    "about:blank"])
        self.proc = subprocess.Popen(
            ["sh", "-c", f"exec {command} 3<&0 4>&1 </dev/null >/dev/null 2>/dev/null"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0
        self.buffer = b""
        self.deadline = time.monotonic() + TIMEOUT_S

    def read_message(self):
        while b"\0" not in self.buffer:
            if time.monotonic() > self.deadline:
                raise SystemExit("chromium: no answer in time")
            chunk = self.proc.stdout.read1(65536)
            if not chunk:
                raise SystemExit("chromium: closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.proc.stdin.write(json.dumps(message).encode() + b"\0")
        self.proc.stdin.flush()
        while True:
            reply = self.read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise SystemExit(f"chromium: {method}: {reply['error']}")
                return reply["result"]

    def wait_for(self, event, session):
        while True:
            message = self.read_message()
            if message.get("method") == event and message.get("sessionId") == session:
                return message

    def open_page(self, width, height):
        """A blank page of that size; its session."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": int(width), "height": int(height), "deviceScaleFactor": 1,
                   "mobile": False}, session)
        return session

    def close(self):
        try:
            self.send("Browser.close")
        except SystemExit:
            pass
        self.proc.wait(timeout=TIMEOUT_S)


def main():
    chromium, profile, width, height, javascript = sys.argv[1:6]
    shots = [arg.split("=", 1) for arg in sys.argv[6:]]
    browser = Browser(chromium, profile)
    try:
        session = browser.open_page(width, height)
        browser.send("Emulation.setScriptExecutionDisabled", {"value": javascript == "off"},
                     session)
        for url, png in shots:
            browser.send("Page.navigate", {"url": url}, session)
            browser.wait_for("Page.loadEventFired", session)
            data = browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"]
            with open(png, "wb") as f:
                f.write(base64.b64decode(data))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
