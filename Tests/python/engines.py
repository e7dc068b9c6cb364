"""The three browser engines the studio's page is tested in, behind one small synchronous interface:

- Chromium through Playwright and CDP: pen events with pressure and tilt.
- Firefox ESR through its own Marionette protocol (geckodriver is not packaged and WebDriver BiDi has no
  pen): trusted pen PointerEvents with pressure from the chrome context's synthesizeMouseEvent.
- WebKitGTK (the Safari engine family) through WebKitWebDriver and Selenium, under Xvfb: trusted mouse
  events (its simulated pen carries no pressure and loses moves once the page cancels its pointerdown).

    with open_engine("firefox") as engine:
        engine.open(url)
        engine.until("() => window.sfumatoDocument")
        engine.stroke([(x, y), ...], pressure=0.5)

Coordinates are the page's CSS pixels (client coordinates); screenshots are of the viewport.
"""
import base64
import contextlib
import io
import json
import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from PIL import Image

from studio_support import CHROMIUM, CHROMIUM_ARGS, VIEWPORT

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_BROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"

# What each engine's input events are: the tests read them to know what the page can have seen.
INPUT = {"chromium": "pen with pressure and tilt", "firefox": "pen with pressure", "webkit": "mouse"}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Engine:
    """What every engine offers the tests."""
    name = ""

    def open(self, url):
        raise NotImplementedError

    def js(self, function, *args):
        """Runs `function` (a JavaScript function expression) in the page with `args`; its JSON result."""
        raise NotImplementedError

    def until(self, function, *args, timeout=15):
        """Polls `function` until it returns something truthy; that value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(function, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: timed out waiting for {function}")
            time.sleep(0.05)

    def stroke(self, points, pressure=0.5):
        """A stroke through client points: the engine's pen where it has one, else its mouse."""
        raise NotImplementedError

    def click(self, x, y):
        """A trusted mouse click."""
        self.drag([(x, y)])

    def drag(self, points):
        """A trusted mouse press at the first point, moves through the rest, release at the last."""
        raise NotImplementedError

    def click_selector(self, selector):
        box = self.js("(s) => { const r = document.querySelector(s).getBoundingClientRect(); "
                      "return [r.left + r.width / 2, r.top + r.height / 2]; }", selector)
        self.click(*box)

    def screenshot(self):
        raise NotImplementedError

    def close(self):
        pass


class Chromium(Engine):
    name = "chromium"

    def __init__(self):
        from playwright.sync_api import sync_playwright
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        self._context = self._browser.new_context(viewport=VIEWPORT)
        self.page = self._context.new_page()
        self._cdp = self._context.new_cdp_session(self.page)

    def open(self, url):
        self.page.goto(url)

    def js(self, function, *args):
        return self.page.evaluate(f"(args) => ({function})(...args)", list(args))

    def _mouse(self, kind, x, y, pointer="mouse", pressure=0.0, buttons=1):
        event = {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseMoved" else "none",
                 "buttons": buttons, "clickCount": 1, "pointerType": pointer}
        if pointer == "pen":
            event.update(force=pressure, tiltX=0, tiltY=0)
        self._cdp.send("Input.dispatchMouseEvent", event)

    def stroke(self, points, pressure=0.5):
        self._mouse("mousePressed", *points[0], "pen", pressure)
        for x, y in points[1:]:
            time.sleep(0.008)
            self._mouse("mouseMoved", x, y, "pen", pressure)
        self._mouse("mouseReleased", *points[-1], "pen", 0, buttons=0)

    def drag(self, points):
        self._mouse("mouseMoved", *points[0], buttons=0)
        self._mouse("mousePressed", *points[0])
        for x, y in points[1:]:
            time.sleep(0.008)
            self._mouse("mouseMoved", x, y)
        self._mouse("mouseReleased", *points[-1], buttons=0)

    def screenshot(self):
        return Image.open(io.BytesIO(self.page.screenshot())).convert("RGB")

    def close(self):
        self._browser.close()
        self._playwright.stop()


class Firefox(Engine):
    """Firefox ESR over Marionette (`LENGTH:JSON` frames; commands `[0, id, name, params]`)."""
    name = "firefox"

    def __init__(self, trust=None):
        """`trust`: a CA certificate (PEM) the profile trusts for TLS servers, imported into the profile's
        own NSS database with certutil, as a user who installed it would have it."""
        self._folder = tempfile.TemporaryDirectory(prefix="sfumato-firefox-")
        profile = Path(self._folder.name)
        if trust:
            subprocess.run(["certutil", "-N", "-d", f"sql:{profile}", "--empty-password"], check=True, capture_output=True)
            subprocess.run(["certutil", "-A", "-d", f"sql:{profile}", "-t", "C,,", "-n", "sfumato-studio-ca", "-i", str(trust)],
                           check=True, capture_output=True)
        self._port = _free_port()
        prefs = {
            "marionette.port": self._port,
            "browser.shell.checkDefaultBrowser": False,
            "datareporting.policy.dataSubmissionEnabled": False,
            "toolkit.telemetry.reportingpolicy.firstRun": False,
            "browser.startup.homepage_override.mstone": "ignore",
            "app.update.enabled": False,
            "browser.aboutwelcome.enabled": False,
            "remote.prefs.recommended": True,
        }
        (profile / "user.js").write_text("".join(f'user_pref("{k}", {json.dumps(v)});\n' for k, v in prefs.items()))
        # The window's inner size matches the other engines' viewport (Firefox adds its toolbar above it).
        self._process = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", str(profile), "--marionette", "--remote-allow-system-access",
             "--width", str(VIEWPORT["width"]), "--height", str(VIEWPORT["height"] + 86)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                self._socket = socket.create_connection(("127.0.0.1", self._port), timeout=30)
                break
            except OSError:
                if time.monotonic() > deadline or self._process.poll() is not None:
                    raise
                time.sleep(0.2)
        self._buffer = b""
        self._id = 0
        self._read()   # the hello: {"applicationType": "gecko", "marionetteProtocol": 3}
        self._command("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": False}}})
        self._context = "content"

    def _read(self):
        while b":" not in self._buffer:
            self._buffer += self._socket.recv(1 << 16)
        length, rest = self._buffer.split(b":", 1)
        length = int(length)
        while len(rest) < length:
            rest += self._socket.recv(1 << 16)
        self._buffer = rest[length:]
        return json.loads(rest[:length])

    def _command(self, name, params):
        self._id += 1
        data = json.dumps([0, self._id, name, params]).encode()
        self._socket.sendall(str(len(data)).encode() + b":" + data)
        while True:
            reply = self._read()
            if reply[0] == 1 and reply[1] == self._id:
                break
        if reply[2]:
            raise AssertionError(f"firefox: {name}: {reply[2].get('error')}: {reply[2].get('message')}")
        return reply[3].get("value") if isinstance(reply[3], dict) else reply[3]

    def _in(self, context):
        if context != self._context:
            self._command("Marionette:SetContext", {"value": context})
            self._context = context

    def open(self, url):
        self._in("content")
        self._command("WebDriver:Navigate", {"url": url})

    def js(self, function, *args):
        self._in("content")
        return self._command("WebDriver:ExecuteScript", {"script": f"return ({function})(...arguments);", "args": list(args)})

    def _events(self, events, pen, pressure):
        """Trusted mouse or pen events from the chrome context, 12 ms apart (a burst is merged into one move)."""
        self._in("chrome")
        script = """
            const [type, x, y, buttons, pen, pressure] = arguments;
            const r = gBrowser.selectedBrowser.getBoundingClientRect();
            const utils = window.windowUtils;
            window.synthesizeMouseEvent(type, r.left + x, r.top + y, {
                identifier: pen ? utils.DEFAULT_PEN_POINTER_ID : utils.DEFAULT_MOUSE_POINTER_ID,
                button: 0, buttons, clickCount: type === "mousemove" ? 0 : 1, modifiers: 0, pressure,
                inputSource: pen ? MouseEvent.MOZ_SOURCE_PEN : MouseEvent.MOZ_SOURCE_MOUSE,
            }, {isDOMEventSynthesized: false, isWidgetEventSynthesized: false, isAsyncEnabled: false});
            return true;"""
        for i, (kind, x, y, buttons) in enumerate(events):
            if i:
                time.sleep(0.012)
            self._command("WebDriver:ExecuteScript", {"script": script, "args": [kind, x, y, buttons, pen, pressure if buttons else 0]})
        self._in("content")

    def stroke(self, points, pressure=0.5):
        events = [("mousemove", *points[0], 0), ("mousedown", *points[0], 1)]
        events += [("mousemove", x, y, 1) for x, y in points[1:]]
        events.append(("mouseup", *points[-1], 0))
        self._events(events, True, pressure)

    def drag(self, points, pressure=0.5):
        events = [("mousemove", *points[0], 0), ("mousedown", *points[0], 1)]
        events += [("mousemove", x, y, 1) for x, y in points[1:]]
        events.append(("mouseup", *points[-1], 0))
        self._events(events, False, pressure)

    def mouse_with_pressure(self, points, pressure):
        """A stroke from a pen that Firefox on Linux reports as a mouse (Mozilla bug 1606832): mouse
        events that carry the pen's pressure."""
        self.drag(points, pressure)

    def screenshot(self):
        self._in("content")
        data = self._command("WebDriver:TakeScreenshot", {"full": False, "hash": False})
        return Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB")

    def close(self):
        with contextlib.suppress(Exception):
            self._command("WebDriver:DeleteSession", {})
            self._socket.close()
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
        self._folder.cleanup()


class WebKit(Engine):
    """WebKitGTK's MiniBrowser through WebKitWebDriver (Selenium), on an Xvfb display of its own."""
    name = "webkit"

    def __init__(self):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        # Xvfb picks a free display and writes its number to the pipe once it is ready.
        read, write = os.pipe()
        self._xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write,))
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        assert number, "Xvfb did not start"
        self._display = f":{number}"
        options = Options()
        options.binary_location = WEBKIT_BROWSER
        options.add_argument("--automation")
        env = dict(os.environ, DISPLAY=self._display)
        service = Service(executable_path=WEBKIT_DRIVER, env=env)
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        # Size the window so the page's viewport is the other engines' (MiniBrowser adds its chrome).
        self.driver.set_window_size(VIEWPORT["width"], VIEWPORT["height"])
        inner = self.driver.execute_script("return [innerWidth, innerHeight]")
        self.driver.set_window_size(2 * VIEWPORT["width"] - inner[0], 2 * VIEWPORT["height"] - inner[1])

    def open(self, url):
        self.driver.get(url)

    def js(self, function, *args):
        return self.driver.execute_script(f"return ({function})(...arguments);", *args)

    def _pointer(self, points):
        from selenium.webdriver.common.actions import interaction
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput
        builder = ActionBuilder(self.driver, mouse=PointerInput(interaction.POINTER_MOUSE, "mouse"), duration=12)
        builder.pointer_action.move_to_location(int(points[0][0]), int(points[0][1]))
        builder.pointer_action.pointer_down()
        for x, y in points[1:]:
            builder.pointer_action.move_to_location(int(x), int(y))
        builder.pointer_action.pointer_up()
        builder.perform()

    def stroke(self, points, pressure=0.5):
        self._pointer(points)   # a mouse: WebKitGTK's simulated pen loses its moves (see the module's note)

    def drag(self, points):
        self._pointer(points)

    def screenshot(self):
        return Image.open(io.BytesIO(self.driver.get_screenshot_as_png())).convert("RGB")

    def close(self):
        with contextlib.suppress(Exception):
            self.driver.quit()
        self._xvfb.terminate()
        self._xvfb.wait(10)


ENGINES = {"chromium": Chromium, "firefox": Firefox, "webkit": WebKit}


@contextlib.contextmanager
def open_engine(name):
    engine = ENGINES[name]()
    try:
        yield engine
    finally:
        engine.close()
