"""What the studio's end-to-end tests share: the formulas the pictures are checked against (written
independently of the engine, from docs/spec), the studio process, the browser's pen, touches and tabs.
The fixtures that use them are in conftest.py."""
import asyncio
import base64
import io
import json
import math
import os
import pathlib
import queue
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request

import numpy as np
from PIL import Image

PHOTOS = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "Fixtures" / "photos"

CAMERA_FILE = pathlib.Path(__file__).with_name("camera.json")   # the camera loop's rate, for the notes

CHROMIUM = "/usr/bin/chromium"
# The fake camera runs at 20 fps unless told otherwise; fps=30 makes it a 30 fps camera like the original's.
# No --disable-frame-rate-limit: an unthrottled compositor burns a core that the server and the page's
# decoders need on a 2-core machine (it doubled the Adjust latency), and a real browser runs at vsync.
CHROMIUM_ARGS = ["--use-fake-device-for-media-stream=fps=30",
                 "--use-fake-ui-for-media-stream"]
VIEWPORT = {"width": 1280, "height": 800}
PHOTO_SIZE = (1920, 1280)
PRESETS = ["Pass Through", "Gaussian Blur", "Median", "Laplacian", "Sobel", "Threshold Binary", "Convolution Emboss",
           "Convolution Sharpen", "Dilate Bokeh", "Morphology Closing", "Histogram Equalization",
           "Histogram Specification"]
SCREENSHOTS = os.environ.get("SFUMATO_SCREENSHOTS")
URL_LINE = re.compile(r"Sfumato studio: (http://127\.0\.0\.1:\d+/)\?token=([0-9a-f]{32})")
HALF_PI = math.pi / 2


# ---------------------------------------------------------------------------------------------------
# The formulas (docs/spec/SEEDS.md, docs/spec/FILTERS.md, docs/spec/INPUT.md), written independently of the engine.

def angles_from_tilt(tilt_x, tilt_y):
    """W3C Pointer Events 3: tiltX/tiltY (degrees) -> (altitude, azimuth) in radians."""
    tx, ty = math.radians(tilt_x), math.radians(tilt_y)
    if tilt_x == 0:
        azimuth = HALF_PI if tilt_y > 0 else 3 * HALF_PI if tilt_y < 0 else 0.0
    elif tilt_y == 0:
        azimuth = math.pi if tilt_x < 0 else 0.0
    elif abs(tilt_x) == 90 or abs(tilt_y) == 90:
        azimuth = 0.0
    else:
        azimuth = math.atan2(math.tan(ty), math.tan(tx))
        if azimuth < 0:
            azimuth += 2 * math.pi
    if abs(tilt_x) == 90 or abs(tilt_y) == 90:
        altitude = 0.0
    elif tilt_x == 0:
        altitude = HALF_PI - abs(ty)
    elif tilt_y == 0:
        altitude = HALF_PI - abs(tx)
    else:
        altitude = math.atan(1 / math.sqrt(math.tan(tx) ** 2 + math.tan(ty) ** 2))
    return altitude, azimuth


def tilt_of(altitude):
    return (HALF_PI - altitude) / HALF_PI


def pencil_controller(pair, tilt_x, tilt_y):
    """The two parameters PencilController sets for a pen pose (docs/spec/SEEDS.md section 1)."""
    altitude, azimuth = angles_from_tilt(tilt_x, tilt_y)
    tilt = tilt_of(altitude)
    dx, dy = math.cos(azimuth), math.sin(azimuth)
    if pair == "hue-saturation":
        return {"hue": math.pi + azimuth, "saturation": 8 * tilt}
    if pair == "brightness-contrast":
        return {"brightness": dx * tilt, "contrast": 1 - dy * tilt}
    return {"gamma": 1 + dx * tilt, "exposure": -dy * tilt}


def adjust_chain(rgb8, a):
    """Hue -> colour controls -> exposure -> gamma on the sRGB-encoded values (working space "none")."""
    x = rgb8.astype(np.float64) / 255
    c, s = math.cos(a["hue"]), math.sin(a["hue"])
    t, sa = (1 - c) / 3, s / math.sqrt(3)
    rotation = np.array([[c + t, t - sa, t + sa], [t + sa, c + t, t - sa], [t - sa, t + sa, c + t]])
    x = x @ rotation.T
    luma = (x @ np.array([0.2125, 0.7154, 0.0721]))[..., None]
    x = luma + a["saturation"] * (x - luma)
    x = x + a["brightness"]
    x = (x - 0.5) * a["contrast"] + 0.5
    x = x * 2.0 ** a["exposure"]
    x = np.sign(x) * np.abs(x) ** a["gamma"]
    return np.clip(np.rint(np.clip(x, 0, 1) * 255), 0, 255)


def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(v):
    v = np.clip(v, 0, 1)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


def tone_curve(rgb8, samples):
    """CIToneCurve in the default linear working space: p = sqrt(v), q = f(p), out = q^2 (docs/spec/FILTERS.md)."""
    f = np.asarray(samples, dtype=np.float64)
    linear = srgb_to_linear(rgb8.astype(np.float64) / 255)
    q = np.interp(np.sqrt(linear), np.linspace(0, 1, len(f)), f)
    return np.rint(linear_to_srgb(q * q) * 255)


def hue_rgb(h):
    """HSB (h, 1, 1) as 8-bit RGB: the force pen's colour."""
    h = (h % 1.0) * 6
    x = 1 - abs(h % 2 - 1)
    r, g, b = [(1, x, 0), (x, 1, 0), (0, 1, x), (0, x, 1), (x, 0, 1), (1, 0, x)][min(5, int(h))]
    return np.array([r, g, b]) * 255


def blend_factor(render, photo, color):
    """Per pixel, how far render moved from photo toward color (0...1), from the most telling channel;
    NaN where the colour and the photo are too alike to tell."""
    render, photo = render.astype(np.float64), photo.astype(np.float64)
    d = np.asarray(color, dtype=np.float64) - photo
    k = np.argmax(np.abs(d), axis=-1)[..., None]
    denom = np.take_along_axis(d, k, -1)[..., 0]
    moved = np.take_along_axis(render - photo, k, -1)[..., 0]
    a = np.clip(moved / np.where(np.abs(denom) < 1, 1, denom), 0, 1)
    return np.where(np.abs(denom) >= 60, a, np.nan)


def line_width(render, photo, color, y, columns, half=40):
    """Coverage-weighted width (px) of a horizontal line near row y: the blend factors summed down each
    column (an anti-aliased 10 px line sums to 10), median over the columns that can tell."""
    widths = []
    for x in columns:
        a = blend_factor(render[y - half:y + half, x], photo[y - half:y + half, x], color)
        if not np.isnan(a).any():
            widths.append(float(a.sum()))
    assert len(widths) >= 5, "too few columns where the line's colour differs from the photo"
    return float(np.median(widths))


# ---------------------------------------------------------------------------------------------------
# The server

class Studio:
    """One `sfumato studio` process on a document in a temporary folder."""

    def __init__(self, binary, photo, folder):
        self.binary = binary
        self.photo = photo
        self.document_path = folder / "studio.sfumato"
        self.log_path = folder / "server.log"
        self.process = None
        self.url = None     # the printed URL, with its token (what a user opens)
        self.base = None    # the same without the token
        self.token = None

    def start(self, reopen=False, port=0):
        source = [str(self.document_path)] if reopen else [str(self.photo), "--document", str(self.document_path)]
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.binary, "studio", *source, "--port", str(port)], stdout=subprocess.PIPE,
                                        stderr=log, stdin=subprocess.DEVNULL)
        lines = queue.Queue()

        def pump(stream):   # keeps reading so the server never blocks on a full pipe
            for raw in stream:
                line = raw.decode("utf-8", "replace")
                log.write(raw)
                lines.put(line)
        threading.Thread(target=pump, args=(self.process.stdout,), daemon=True).start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                match = URL_LINE.search(lines.get(timeout=0.2))
            except queue.Empty:
                assert self.process.poll() is None, f"sfumato studio exited: {self.log_path.read_text()[-2000:]}"
                continue
            if match:
                self.base, self.token = match.group(1), match.group(2)
                self.url = f"{self.base}?token={self.token}"
                return self
        raise AssertionError("sfumato studio did not print its URL within 30 s")

    @property
    def ws_url(self):
        """The page's WebSocket, with the token."""
        return self.base.replace("http", "ws", 1) + f"ws?token={self.token}"

    def kill(self):
        """SIGKILL: no chance to flush anything that was not already committed."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self):
        """SIGTERM, and SIGKILL if it has not exited within a second (the document is committed anyway)."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(1)
            except subprocess.TimeoutExpired:
                self.kill()

    def request(self, path, method="GET", body=None, content_type="application/octet-stream"):
        """(status, content type, body bytes); never raises for HTTP error statuses."""
        url = self.base.rstrip("/") + path + ("&" if "?" in path else "?") + f"token={self.token}"
        req = urllib.request.Request(url, data=body, method=method)
        if body is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", ""), error.read()

    def json(self, path, method="GET", body=None):
        status, _, data = self.request(path, method, body)
        assert status == 200, f"{method} {path}: {status} {data[:300]!r}"
        return json.loads(data)

    def document(self):
        return self.json("/api/document")

    def render(self, width=None):
        status, ctype, data = self.request("/api/render" + (f"?width={width}" if width else ""))
        assert status == 200 and data[:8] == b"\x89PNG\r\n\x1a\n", f"/api/render: {status} {ctype}"
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


# Where #canvas shows the photo (its preview-sized backing store is letterboxed: object-fit: contain),
# in client px, and the preview's size.
# iPadOS 17's API surface in Chromium (Safari 17 and 18.0-18.1): no coalesced or predicted events,
# no altitude/azimuth pair (angles come from whole-degree tilt), no pointerrawupdate, and no
# WebCodecs ImageDecoder (which no Safari has). Run before the page's scripts; real CDP pen events
# (tilt included) still arrive, so the page's fall-backs are tested with a pen.
SAFARI_SURFACE = """(() => {
    for (const name of ["getCoalescedEvents", "getPredictedEvents", "altitudeAngle", "azimuthAngle"]) {
        delete PointerEvent.prototype[name];
    }
    delete window.ImageDecoder;
    for (const start of [window, document, HTMLElement.prototype, SVGElement.prototype]) {
        for (let o = start; o; o = Object.getPrototypeOf(o)) {
            if (Object.prototype.hasOwnProperty.call(o, "onpointerrawupdate")) delete o.onpointerrawupdate;
        }
    }
})();"""

# What the page can see of that surface: every entry false under SAFARI_SURFACE.
SURFACE_PROBE = """() => ({
    coalesced: "getCoalescedEvents" in PointerEvent.prototype, predicted: "getPredictedEvents" in PointerEvent.prototype,
    angles: "altitudeAngle" in PointerEvent.prototype || "azimuthAngle" in PointerEvent.prototype,
    rawUpdate: "onpointerrawupdate" in window, imageDecoder: typeof ImageDecoder !== "undefined",
})"""

IMAGE_RECT = """() => {
    const c = document.getElementById('canvas'), r = c.getBoundingClientRect();
    const s = Math.min(r.width / c.width, r.height / c.height), w = c.width * s, h = c.height * s;
    return {left: r.left + (r.width - w) / 2, top: r.top + (r.height - h) / 2, width: w, height: h,
            pw: c.width, ph: c.height};
}"""


async def document_mapper(page):
    """A function document px -> client px, for a Playwright page or a cdp.Page (both evaluate JS)."""
    rect = await page.evaluate(IMAGE_RECT)
    doc = await page.evaluate("() => window.sfumatoDocument")

    def to_client(x, y):
        return rect["left"] + x / doc["width"] * rect["width"], rect["top"] + y / doc["height"] * rect["height"]
    return to_client


class Pen:
    """A real pen through CDP: trusted pointer events with pointerType "pen", pressure, tilt and twist.
    Moves are sent several at a time (asyncio.gather) so that Chromium coalesces them as a fast pen's are."""

    def __init__(self, cdp):
        self.cdp = cdp

    def event(self, kind, x, y, force=0.5, tilt=(0, 0), twist=0):
        params = {"type": kind, "x": x, "y": y, "button": "left", "buttons": 0 if kind == "mouseReleased" else 1,
                  "pointerType": "pen", "force": force, "tiltX": int(round(tilt[0])), "tiltY": int(round(tilt[1])),
                  "twist": int(twist) % 360}
        if kind != "mouseMoved":
            params["clickCount"] = 1
        return self.cdp.send("Input.dispatchMouseEvent", params)

    async def down(self, x, y, **pose):
        await self.event("mousePressed", x, y, **pose)

    async def moves(self, points, chunk=6, pace=None, **pose):
        """points: (x, y) or (x, y, pose dict) tuples. With `pace` (seconds), one chunk is sent per
        pace interval, like a real pen's samples arriving frame after frame (4 per 60 Hz frame for a
        240 Hz Apple Pencil); without it, as fast as CDP takes them."""
        for i in range(0, len(points), chunk):
            started = time.monotonic()
            sends = []
            for p in points[i:i + chunk]:
                kw = dict(pose, **(p[2] if len(p) > 2 else {}))
                sends.append(self.event("mouseMoved", p[0], p[1], **kw))
            await asyncio.gather(*sends)
            if pace:
                await asyncio.sleep(max(0.0, pace - (time.monotonic() - started)))

    async def up(self, x, y, **pose):
        await self.event("mouseReleased", x, y, **dict(pose, force=0))

    async def stroke(self, points, chunk=6, pace=None, **pose):
        await self.down(*points[0][:2], **pose)
        await self.moves(points[1:], chunk=chunk, pace=pace, **pose)
        await self.up(*points[-1][:2], **pose)


class Tab:
    """One studio page with its CDP session, pen, and coordinate mapping (document px -> client px)."""

    def __init__(self, page, cdp, errors):
        self.page, self.cdp, self.errors = page, cdp, errors
        self.pen = Pen(cdp)

    @classmethod
    async def open(cls, context, url):
        page = await context.new_page()
        page.set_default_timeout(10_000)
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.goto(url)
        tab = cls(page, await context.new_cdp_session(page), errors)
        await tab.ready()
        return tab

    async def ready(self):
        """The first state has arrived and the first frame is drawn."""
        await self.page.wait_for_function(
            "() => window.sfumatoDocument && document.getElementById('canvas').width > 1")

    async def document(self):
        return await self.page.evaluate("() => window.sfumatoDocument")

    async def until(self, expression, arg=None, timeout=10_000):
        """Waits for a JS predicate, e.g. "d => d.strokeCount === 2" over the page's document."""
        await self.page.wait_for_function(f"(arg) => {{ const d = window.sfumatoDocument; return ({expression})(d, arg); }}",
                                          arg=arg, timeout=timeout)

    async def mode(self, name):
        await self.page.click(f'#modes [data-mode="{name}"]')
        await self.until("d => d.mode === arg", name)

    async def keep_strokes(self, on=True):
        if (await self.page.get_attribute("#keep-strokes", "aria-pressed")) != str(on).lower():
            await self.page.click("#keep-strokes")
        await self.until("d => d.brush.keepStrokes === arg", on)

    async def image_rect(self):
        """Where the photo is shown: #canvas letterboxes its preview-sized backing store (object-fit: contain)."""
        return await self.page.evaluate(IMAGE_RECT)

    async def mapper(self):
        """A function document px -> client px."""
        return await document_mapper(self.page)

    async def stroke_doc(self, points, **pose):
        """A pen stroke through document-pixel points (optionally with a per-point pose dict)."""
        to_client = await self.mapper()
        client = [(*to_client(p[0], p[1]), *p[2:]) for p in points]
        await self.pen.stroke(client, **pose)

    async def canvas_region(self, selector, x, y, w, h):
        """RGBA pixels of a canvas's backing store."""
        data = await self.page.evaluate("""([sel, x, y, w, h]) => {
            const c = document.querySelector(sel);
            return Array.from(c.getContext('2d').getImageData(x, y, w, h).data);
        }""", [selector, x, y, w, h])
        return np.array(data, dtype=np.uint8).reshape(h, w, 4)

    async def adjust_drag(self):
        """Holds key 1 and drags the pen right from document (960, 300) at one pose until Adjust's
        draft shows; returns end_adjust_drag's arguments (the pen stays down)."""
        to_client = await self.mapper()
        cx, cy = to_client(960, 300)
        await self.page.keyboard.down("1")
        pose = {"tilt": (40, 0), "force": 0.4}
        await self.pen.down(cx, cy, **pose)
        await self.pen.moves([(cx + 6 * i, cy) for i in range(1, 13)], **pose)
        await self.page.wait_for_function("() => !document.getElementById('draft-canvas').hidden")
        return (cx + 72, cy), pose

    async def end_adjust_drag(self, lift, pose):
        """Lifts the pen where adjust_drag left it; returns once the sharp frame has replaced the draft."""
        await self.pen.up(*lift, **pose)
        await self.page.wait_for_function("() => document.getElementById('draft-canvas').hidden")
        await self.page.wait_for_timeout(300)

    async def draft_at(self, doc_x, doc_y, size=3):
        """The #draft-canvas pixels around a document position (the draft is a reduced preview)."""
        doc = await self.document()
        w, h = await self.page.evaluate("() => { const c = document.getElementById('draft-canvas'); return [c.width, c.height]; }")
        return await self.canvas_region("#draft-canvas", int(doc_x * w / doc["width"]) - size // 2,
                                        int(doc_y * h / doc["height"]) - size // 2, size, size)

    async def preview_at(self, doc_x, doc_y, size=9):
        """The #canvas (preview) pixels around a document position."""
        rect = await self.image_rect()
        doc = await self.document()
        px = int(doc_x / doc["width"] * rect["pw"]) - size // 2
        py = int(doc_y / doc["height"] * rect["ph"]) - size // 2
        return await self.canvas_region("#canvas", px, py, size, size)

    async def screenshot(self, name):
        if SCREENSHOTS:
            pathlib.Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
            await self.page.screenshot(path=str(pathlib.Path(SCREENSHOTS) / f"{name}.png"))

    def assert_no_page_errors(self):
        assert not self.errors, f"JavaScript errors on the page: {self.errors}"


async def until(fn, predicate, what, timeout=20.0):
    """Polls a (blocking) fn in a thread until predicate(value); returns the value."""
    deadline = time.monotonic() + timeout
    while True:
        value = await asyncio.to_thread(fn)
        if predicate(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; last value: {str(value)[:400]}")
        await asyncio.sleep(0.05)


async def until_async(fn, predicate, what, timeout=20.0):
    """Polls a coroutine function (page reads) until predicate(value); returns the value."""
    deadline = time.monotonic() + timeout
    while True:
        value = await fn()
        if predicate(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def angle_difference(a, b):
    d = (a - b) % (2 * math.pi)
    return min(d, 2 * math.pi - d)


async def pencil_alpha(tab, x, y):
    """Max alpha of the pencil's canvas at the contact point, 60 px along +x and 60 px along -x (client
    coordinates; 0 where the canvas does not reach or is hidden)."""
    return await tab.page.evaluate("""([x, y]) => {
        const o = document.getElementById('pencil-canvas');
        if (o.hidden) return {tip: 0, along: 0, against: 0};
        const r = o.getBoundingClientRect(), k = o.width / r.width;
        // A copy in 2D: the pencil's own canvas may hold a WebGL context.
        const copy = document.createElement('canvas');
        copy.width = o.width; copy.height = o.height;
        const ctx = copy.getContext('2d');
        ctx.drawImage(o, 0, 0);
        const peek = (px, py) => {
            const d = ctx.getImageData(Math.round((px - r.left) * k) - 3, Math.round((py - r.top) * k) - 3, 7, 7).data;
            let m = 0; for (let i = 3; i < d.length; i += 4) m = Math.max(m, d[i]); return m;
        };
        return {tip: peek(x, y), along: peek(x + 60, y), against: peek(x - 60, y)};
    }""", [x, y])


async def curve_pixels(tab):
    data_url = await tab.page.evaluate("() => document.getElementById('curve-canvas').toDataURL('image/png')")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(data_url.split(",", 1)[1]))).convert("RGBA"))


async def stage_pixels(tab):
    """A screenshot of the shown picture (inside the letterbox)."""
    rect = await tab.page.evaluate("""() => { const c = document.getElementById('camera-canvas');
        const r = c.getBoundingClientRect(), s = Math.min(r.width / c.width, r.height / c.height);
        const w = c.width * s, h = c.height * s;
        return {x: r.left + (r.width - w) / 2 + 4, y: r.top + (r.height - h) / 2 + 4, width: w - 8, height: h - 8}; }""")
    png = await tab.page.screenshot(clip=rect)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def horizontal(x0, x1, y, n):
    return [(x0 + (x1 - x0) * i / n, y) for i in range(n + 1)]


async def touch_stroke(cdp, points):
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": points[0][0], "y": points[0][1]}]})
    for x, y in points[1:]:
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


async def center_of(page, selector):
    box = await page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


# The label formats of docs/spec/SEEDS.md (two decimals, two spaces between the pair).
HUE_SATURATION = r"↻Hue: (-?\d+\.\d\d)°  ∢Saturation: (-?\d+\.\d\d)"
BRIGHTNESS_CONTRAST = r"⇔Brightness: (-?\d+\.\d\d)  ⇕Contrast: (-?\d+\.\d\d)"
GAMMA_EXPOSURE = r"⇔Gamma: (-?\d+\.\d\d)  ⇕Exposure: (-?\d+\.\d\d)"


async def label_showing(page, pattern, values, timeout=20.0):
    """Waits until #label reads `pattern` with numbers within 0.011 of `values` (the label shows the
    current values as soon as a button is held, the pen's values after its samples arrive)."""
    deadline = time.monotonic() + timeout
    while True:
        text = await page.text_content("#label")
        match = re.fullmatch(pattern, text or "")
        if match and np.allclose([float(v) for v in match.groups()], values, atol=0.011):
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"#label reads {text!r}; expected {pattern} with {values}")
        await asyncio.sleep(0.03)
