"""A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ending
in a NUL byte on file descriptors 3 and 4), with the standard library only: no Playwright, no websocket client."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--hide-scrollbars", "--mute-audio",
         "--disable-dev-shm-usage"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One Chromium process with one page; ``call`` sends a DevTools command to the page and returns its result."""

    def __init__(self, executable: str, width: int = 800, height: int = 600):
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def fds():  # the child reads commands on fd 3 and writes replies on fd 4 (the pipes themselves close on exec)
            a, b = os.dup(to_child_r), os.dup(from_child_w)   # above 4, so dup2 below never maps fd onto itself
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            close_fds=False, preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._next, self._buffer, self.session = 0, b"", None
        target = self.call("Target.createTarget", url="about:blank", browser=True)["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True, browser=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, browser: bool = False, timeout: float = 60.0, **params) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if self.session is not None and not browser:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._next:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"{method}: no reply from Chromium")
            self._buffer += os.read(self._from_child, 1 << 20)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str, ready: str, timeout: float = 60.0) -> None:
        """Load ``url`` and wait until the expression ``ready`` is true."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not self.evaluate(f"Boolean({ready})"):
            if time.monotonic() > deadline:
                text = self.evaluate("document.body.innerText")
                raise RuntimeError(f"page {url} not ready after {timeout} s: {text}")
            time.sleep(0.1)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close", browser=True, timeout=10.0)
        except RuntimeError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        shutil.rmtree(self.profile, ignore_errors=True)
