#!/usr/bin/env python3
"""Readings of a live page in headless Firefox over Marionette, its own remote protocol (no
geckodriver, no network): load URL, then take the steps (page_readings.py) in order, and
print a JSON array of the readings.

usage: marionette_readings.py FIREFOX PROFILE_DIR WIDTH HEIGHT URL PNG EXPRESSION STEP...
  EXPRESSION: JavaScript whose value is JSON text, the reading.
Exit 1 with a message when Firefox fails, a page does not load or a condition never holds.
"""
import base64
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_readings  # noqa: E402

# Each of the start, the session and the load: a loaded machine (CI's parallel tests) starts a
# browser slowly.
TIMEOUT_S = 120
# Marionette on a port of the kernel's choosing (written to MarionetteActivePort), and nothing
# of Firefox's own that would reach for the network.
PREFS = {
    "marionette.port": 0,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "extensions.update.enabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
}


class Firefox:
    def __init__(self, firefox, profile, width, height):
        os.makedirs(profile, exist_ok=True)
        with open(os.path.join(profile, "user.js"), "w") as f:
            for name, value in PREFS.items():
                f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        env = dict(os.environ, MOZ_HEADLESS_WIDTH=str(width), MOZ_HEADLESS_HEIGHT=str(height))
        self.proc = subprocess.Popen(
            [firefox, "--headless", "--marionette", "--no-remote", "-profile", profile,
             "about:blank"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.deadline = time.monotonic() + TIMEOUT_S
        self.sock = socket.create_connection(("127.0.0.1", self._port(profile)), timeout=5)
        self.buffer = b""
        self.next_id = 0
        self._read()  # the server's hello: {"applicationType": "gecko", ...}

    def _port(self, profile):
        path = os.path.join(profile, "MarionetteActivePort")
        while time.monotonic() < self.deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"firefox: exited ({self.proc.returncode}) before Marionette")
            try:
                with open(path) as f:
                    return int(f.read().strip())
            except (OSError, ValueError):
                time.sleep(0.2)
        raise SystemExit("firefox: Marionette did not start in time")

    def _read(self):
        """One message: LENGTH:JSON."""
        while True:
            head, colon, rest = self.buffer.partition(b":")
            if colon and len(rest) >= int(head):
                self.buffer = rest[int(head):]
                return json.loads(rest[:int(head)])
            if time.monotonic() > self.deadline:
                raise SystemExit("firefox: no answer in time")
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise SystemExit("firefox: closed the Marionette connection")
            self.buffer += chunk

    def send(self, command, params=None):
        self.next_id += 1
        body = json.dumps([0, self.next_id, command, params or {}]).encode()
        self.sock.sendall(str(len(body)).encode() + b":" + body)
        while True:
            kind, msg_id, error, result = self._read()
            if kind == 1 and msg_id == self.next_id:
                if error:
                    raise SystemExit(f"firefox: {command}: {error}")
                return result

    # What page_readings needs of a page.
    def evaluate(self, expression):
        return self.send("WebDriver:ExecuteScript",
                         {"script": "return (" + expression + ");", "args": []})["value"]

    def screenshot(self):
        return base64.b64decode(self.send("WebDriver:TakeScreenshot", {"full": False})["value"])

    def close(self):
        try:
            self.deadline = time.monotonic() + 10
            self.send("Marionette:Quit", {"flags": ["eForceQuit"]})
        except (SystemExit, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def main():
    firefox, profile, width, height, url, png, expression = sys.argv[1:8]
    browser = Firefox(firefox, profile, width, height)
    try:
        browser.deadline = time.monotonic() + TIMEOUT_S
        browser.send("WebDriver:NewSession", {"capabilities": {}})
        browser.deadline = time.monotonic() + TIMEOUT_S
        browser.send("WebDriver:Navigate", {"url": url})  # returns once the page has loaded
        readings = page_readings.take(browser, expression, sys.argv[8:], png)
    finally:
        browser.close()
    print(json.dumps(readings))


if __name__ == "__main__":
    main()
