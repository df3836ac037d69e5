"""A headless Chromium driven over the DevTools protocol, standard library only.

The protocol runs over a pipe (--remote-debugging-pipe: Chromium reads commands on fd 3 and
writes answers and events on fd 4, each message JSON ended by a NUL byte), so no port is
opened and no websocket is needed. One page session; `visit` loads a URL, waits for its load
event, evaluates an expression in it and returns the value with the errors the page raised
(uncaught exceptions, console.error, and the browser's own error log: failed loads and the like).
"""

import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"

# Headless, as root, and never reaching for the network on its own.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--mute-audio",
         "--remote-debugging-pipe"]


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, width: int, height: int = 900, timeout: float = 20.0):
        if not os.access(CHROMIUM, os.X_OK):
            raise BrowserError(f"{CHROMIUM} is not installed (make deps installs Debian's chromium)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="tack-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # Move the child's ends above 10 so placing them on 3 and 4 clobbers neither.
        hi_r = fcntl.fcntl(to_child_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(from_child_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_child_r)
        os.close(from_child_w)

        def place():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self._log = open(os.path.join(self.profile, "stderr.log"), "wb")
        try:
            self.proc = subprocess.Popen(
                [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                preexec_fn=place, pass_fds=(3, 4))
        finally:
            os.close(hi_r)
            os.close(hi_w)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session = None
        try:
            target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.call("Target.attachToTarget",
                                     {"targetId": target, "flatten": True})["sessionId"]
            for method in ("Page.enable", "Runtime.enable", "Log.enable"):
                self.call(method)
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": False})
        except BaseException:
            self.close()
            raise

    # --- the pipe ---------------------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no answer from Chromium within {self.timeout}s"
                                   + self._stderr_tail())
            ready, _, _ = select.select([self._from_child], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_child, 1 << 16)
            if not chunk:
                raise BrowserError("Chromium closed the protocol pipe" + self._stderr_tail())
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def _stderr_tail(self) -> str:
        try:
            with open(os.path.join(self.profile, "stderr.log"), "rb") as f:
                return "; its stderr ends: " + f.read()[-800:].decode("utf-8", "replace")
        except OSError:
            return ""

    def call(self, method: str, params: dict | None = None) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self._to_child, data):]
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self._next_id:
                if "error" in m:
                    raise BrowserError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def _wait_event(self, method: str) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["method"] == method and ev.get("sessionId") == self.session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    # --- pages ------------------------------------------------------------------------------

    def visit(self, url: str, expression: str):
        """Loads url; returns (the expression's value, the errors the page raised)."""
        self.events.clear()
        nav = self.call("Page.navigate", {"url": url})
        errors = []
        if nav.get("errorText"):
            errors.append(f"navigation failed: {nav['errorText']}")
        else:
            self._wait_event("Page.loadEventFired")
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise BrowserError(f"the probe failed in {url}: {r['exceptionDetails']}")
        for ev in self.events:
            if ev.get("sessionId") != self.session:
                continue
            p = ev.get("params", {})
            if ev["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                errors.append("exception: " + d.get("exception", {}).get("description", d["text"]))
            elif ev["method"] == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
                errors.append("console." + p["type"] + ": "
                              + " ".join(str(a.get("value", a.get("description"))) for a in p["args"]))
            elif ev["method"] == "Log.entryAdded" and p["entry"]["level"] == "error":
                e = p["entry"]
                errors.append(f"{e['source']}: {e['text']} {e.get('url', '')}".rstrip())
        return r["result"].get("value"), errors

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.call("Browser.close")
                except BrowserError:
                    pass
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        finally:
            os.close(self._to_child)
            os.close(self._from_child)
            self._log.close()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
