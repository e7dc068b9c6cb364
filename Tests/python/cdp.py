"""Headless Chromium driven over its DevTools WebSocket with only the CDP domains a test uses.

Playwright enables the DevTools Network domain on every page it opens, and Chromium then copies
each WebSocket frame, base64-encoded, into a CDP event for the driver. During an Adjust drag (90
draft frames a second) that cost 130-180 ms of CPU a second on a 2-core machine and doubled the
time threads waited for a core; the latency tail measured the test driver more than the studio. A
user's browser has no DevTools attached, so the latency test drives Chromium this way: Input for
the pen and keys, Runtime for reading figures, Page for navigation and screenshots.
"""

import asyncio
import base64
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.request

import websockets

# Playwright's own launch flags for headless Chromium that bear on a page's behaviour or its
# background work (see /proc/<pid>/cmdline of a Playwright-launched Chromium).
FLAGS = ["--headless", "--no-sandbox", "--hide-scrollbars", "--mute-audio", "--no-first-run",
         "--no-default-browser-check", "--disable-background-networking", "--disable-background-timer-throttling",
         "--disable-backgrounding-occluded-windows", "--disable-renderer-backgrounding", "--disable-back-forward-cache",
         "--disable-breakpad", "--disable-component-update", "--disable-component-extensions-with-background-pages",
         "--disable-default-apps", "--disable-dev-shm-usage", "--disable-extensions", "--disable-field-trial-config",
         "--disable-hang-monitor", "--disable-ipc-flooding-protection", "--disable-popup-blocking",
         "--disable-prompt-on-repost", "--disable-sync", "--disable-search-engine-choice-screen",
         "--disable-features=PaintHolding,OptimizationHints,MediaRouter", "--allow-pre-commit-input",
         "--force-color-profile=srgb", "--metrics-recording-only", "--password-store=basic", "--use-mock-keychain",
         "--no-service-autorun", "--enable-unsafe-swiftshader"]

# Windows virtual key codes and DOM codes of the keys the tests press.
_KEYS = {"1": (49, "Digit1"), "2": (50, "Digit2"), "3": (51, "Digit3"), "?": (191, "Slash")}


class Chromium:
    """One headless Chromium process with a fresh profile, reachable on a loopback DevTools port."""

    def __init__(self, binary, args=()):
        self.binary, self.args = binary, list(args)
        self.process = None
        self.port = None
        self.profile = None

    def start(self, timeout=20.0):
        self.profile = tempfile.TemporaryDirectory(prefix="sfumato-chromium-", ignore_cleanup_errors=True)
        # Port 0: Chromium picks a free port and writes it to DevToolsActivePort in the profile.
        # Its own process group: stop() ends the browser and every helper process it started.
        self.process = subprocess.Popen([self.binary, *FLAGS, *self.args, f"--user-data-dir={self.profile.name}",
                                         "--remote-debugging-port=0", "about:blank"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        start_new_session=True)
        active = os.path.join(self.profile.name, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(active) as f:
                    self.port = int(f.readline())
                self._http("/json/version")
                return self
            except (OSError, ValueError):
                failed = "chromium exited at start" if self.process.poll() is not None else \
                    "chromium's DevTools port did not open" if time.monotonic() > deadline else None
                if failed:
                    self.stop()
                    raise AssertionError(f"{failed}: {self.process.stderr.read().decode(errors='replace')[-2000:]}") from None
                time.sleep(0.1)

    def _http(self, path, method="GET"):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method)
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.load(response)

    async def new_page(self, url, viewport, init_script=None):
        """A new tab showing `url` with a `viewport` ({width, height}) of CSS pixels at 1 device pixel each;
        `init_script` runs in every document before the page's own scripts."""
        target = await asyncio.to_thread(self._http, "/json/new?about:blank", "PUT")
        page = await Page.connect(target["webSocketDebuggerUrl"])
        await page.send("Runtime.enable")   # for exceptions thrown on the page
        await page.send("Page.enable")
        if init_script:
            await page.send("Page.addScriptToEvaluateOnNewDocument", {"source": init_script})
        await page.send("Emulation.setDeviceMetricsOverride",
                        {"width": viewport["width"], "height": viewport["height"], "deviceScaleFactor": 1, "mobile": False})
        await page.send("Page.navigate", {"url": url})
        return page

    def stop(self):
        if self.process:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.process.wait(10)
                    break
                except subprocess.TimeoutExpired:
                    continue
            if self.process.stderr:
                self.process.stderr.close()
        if self.profile:
            self.profile.cleanup()


class Page:
    """One page's CDP session. `send` returns an awaitable result, so it drives tests' Pen too."""

    def __init__(self, socket_):
        self.socket = socket_
        self.next_id = 0
        self.waiting = {}
        self.errors = []   # exceptions thrown on the page (Runtime.exceptionThrown)
        self.failure = None
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(cls, url):
        return cls(await websockets.connect(url, max_size=None))

    async def _read(self):
        try:
            async for raw in self.socket:
                message = json.loads(raw)
                if "id" in message:
                    future = self.waiting.pop(message["id"], None)
                    if future and not future.done():
                        if "error" in message:
                            future.set_exception(RuntimeError(f"CDP error: {message['error']}"))
                        else:
                            future.set_result(message.get("result", {}))
                elif message.get("method") == "Runtime.exceptionThrown":
                    details = message["params"]["exceptionDetails"]
                    self.errors.append(details.get("exception", {}).get("description") or details.get("text"))
        except websockets.ConnectionClosed:
            self.failure = ConnectionError("the page's DevTools connection closed")
        except Exception as error:   # a message this reader cannot take: fail every caller, loudly
            self.failure = error
        finally:
            self.failure = self.failure or ConnectionError("the page's DevTools reader stopped")
            for future in self.waiting.values():
                if not future.done():
                    future.set_exception(self.failure)

    async def send(self, method, params=None):
        """Sends a command and returns its result (raises the CDP error, or why the session ended)."""
        if self.reader.done():
            raise self.failure or ConnectionError("the page's DevTools session is over")
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        return await future

    async def evaluate(self, function, arg=None):
        """Calls a JavaScript function given as source ("() => ..." or "(arg) => ...") and returns its
        (JSON) value; promises are awaited."""
        result = await self.send("Runtime.evaluate", {"expression": f"({function})({json.dumps(arg)})",
                                                      "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"page evaluation failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def wait_for(self, function, arg=None, timeout=10.0):
        deadline = time.monotonic() + timeout
        while not await self.evaluate(function, arg):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {function}")
            await asyncio.sleep(0.05)

    async def key(self, kind, key):
        """A trusted key event: kind "keyDown" or "keyUp"; key one of _KEYS."""
        code, dom_code = _KEYS[key]
        params = {"type": kind, "key": key, "code": dom_code, "windowsVirtualKeyCode": code}
        if kind == "keyDown":
            params["text"] = key
        await self.send("Input.dispatchKeyEvent", params)

    async def click(self, selector):
        """A trusted mouse click at the middle of the element."""
        box = await self.evaluate("(s) => { const r = document.querySelector(s).getBoundingClientRect();"
                                  " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; }", selector)
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", {"type": kind, "x": box["x"], "y": box["y"], "button": "left",
                                                         "buttons": 1 if kind == "mousePressed" else 0, "clickCount": 1})

    async def screenshot(self, path):
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    async def close(self):
        self.reader.cancel()
        await self.socket.close()
