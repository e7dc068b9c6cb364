"""Finger gestures and a hovering pen, end to end in headless Chromium with real input events: CDP
multi-touch (Input.dispatchTouchEvent) for the fingers, CDP pen moves with no button for the hover.

Two fingers pinch to zoom and pan the view (the document's pixels, not the page) and the pen stays
exact under the zoom; a two-finger tap undoes, a three-finger tap redoes; the Fit button (and 0) go
back to the fitted photo. A hovering pen drives Shade's threshold indicator and Adjust's virtual
pencil and never draws.
"""
import asyncio
import time

import numpy as np
import pytest

from studio_support import Tab, blend_factor, horizontal

PEN_COLOR = "#ff6a00"   # far from the photo's colours around the line



@pytest.fixture(params=["full", "safari"])
def api_surface(request):
    """The gestures and the hover in Chromium's API surface and in iPadOS 17's."""
    return request.param


STAGE_GEOMETRY = """() => {
    const stage = document.getElementById('stage').getBoundingClientRect();
    const c = document.getElementById('canvas');
    return {left: stage.left, top: stage.top, width: stage.width, height: stage.height,
            transform: c.style.transform, pw: c.width, ph: c.height};
}"""


class Fingers:
    """Trusted touches through CDP: every finger down at once, moved together, lifted together."""

    def __init__(self, cdp):
        self.cdp = cdp

    async def enable(self):
        await self.cdp.send("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})

    async def touch(self, kind, points, at=None):
        """`at`: the event's time (seconds since the epoch), so that a tap's duration is the one meant
        however long the driver takes to deliver it on a loaded machine."""
        params = {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i, "radiusX": 4, "radiusY": 4, "force": 0.5}
                                                for i, (x, y) in enumerate(points)]}
        if at is not None:
            params["timestamp"] = at
        await self.cdp.send("Input.dispatchTouchEvent", params)

    async def tap(self, points, duration=0.05):
        start = time.time()
        await self.touch("touchStart", points, at=start)
        await asyncio.sleep(duration)
        await self.touch("touchEnd", [], at=start + duration)

    async def pinch(self, start, end, steps=12):
        """Each finger moves in a straight line from its start to its end point."""
        await self.touch("touchStart", start)
        for k in range(1, steps + 1):
            f = k / steps
            await self.touch("touchMove", [(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f) for a, b in zip(start, end)])
            await asyncio.sleep(0.016)
        await self.touch("touchEnd", [])


def fitted_mapper(geometry, doc, zoom):
    """Document px -> client px, computed here from the fitted letterbox and the view's zoom (scale about
    the stage's corner, then the translation), independently of the page's own mapping."""
    s = min(geometry["width"] / doc["width"], geometry["height"] / doc["height"])
    fit_w, fit_h = doc["width"] * s, doc["height"] * s
    fit_left, fit_top = (geometry["width"] - fit_w) / 2, (geometry["height"] - fit_h) / 2

    def to_client(x, y):
        return (geometry["left"] + zoom["x"] + zoom["scale"] * (fit_left + x / doc["width"] * fit_w),
                geometry["top"] + zoom["y"] + zoom["scale"] * (fit_top + y / doc["height"] * fit_h))
    return to_client


def parse_transform(transform):
    """`translate(Xpx, Ypx) scale(S)` -> {scale, x, y}; no transform is the fitted view."""
    if not transform:
        return {"scale": 1.0, "x": 0.0, "y": 0.0}
    numbers = transform.replace("translate(", "").replace("px", "").replace(") scale(", ",").replace(")", "").split(",")
    x, y, scale = (float(v) for v in numbers)
    return {"scale": scale, "x": x, "y": y}


def test_two_finger_tap_undoes_three_finger_tap_redoes(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        fingers = Fingers(tab.cdp)
        await fingers.enable()
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        for y in (300, 600):
            await tab.stroke_doc(horizontal(560, 1360, y, 30), force=0.6)
        await tab.until("d => d.strokeCount === 2")
        # The pen has been seen: palm rejection is on, and fingers are gestures only.
        assert await tab.page.get_attribute("#pen-only", "aria-pressed") == "true"
        to_client = await tab.mapper()
        await fingers.tap([to_client(800, 800), to_client(1000, 800)])
        await tab.until("d => d.strokeCount === 1 && d.canRedo")
        await fingers.tap([to_client(800, 800), to_client(1000, 800)])
        await tab.until("d => d.strokeCount === 0")
        await fingers.tap([to_client(700, 800), to_client(900, 800), to_client(1100, 800)])
        await tab.until("d => d.strokeCount === 1")
        # A slow two-finger touch and a pinch are not taps.
        await fingers.tap([to_client(800, 800), to_client(1000, 800)], duration=0.45)
        await fingers.pinch([to_client(900, 640), to_client(1000, 640)], [to_client(850, 640), to_client(1050, 640)])
        await asyncio.sleep(0.3)
        assert (await tab.document())["strokeCount"] == 1
        tab.assert_no_page_errors()

    run(scenario)
    assert studio.document()["strokeCount"] == 1


def test_pinch_zooms_the_view_and_the_pen_stays_exact(studio, run, photo_pixels):
    color = np.array([int(PEN_COLOR[i:i + 2], 16) for i in (1, 3, 5)])

    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        fingers = Fingers(tab.cdp)
        await fingers.enable()
        await tab.mode("shade")
        await page.evaluate("""(c) => { const e = document.getElementById('color'); e.value = c;
            e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); }""",
                            PEN_COLOR)
        await tab.until("d => d.brush.color.toLowerCase() === arg", PEN_COLOR)
        before = await page.evaluate(STAGE_GEOMETRY)
        doc = await tab.document()
        assert not await page.is_visible("#fit-view")
        # Fingers 100 px apart spread to 300 about the document point (960, 640): three times.
        at = fitted_mapper(before, doc, parse_transform(""))
        cx, cy = at(960, 640)
        await fingers.pinch([(cx - 50, cy), (cx + 50, cy)], [(cx - 150, cy + 40), (cx + 150, cy + 40)])
        await page.wait_for_function("() => document.getElementById('canvas').style.transform !== ''")
        # The server renders for the magnified view: the preview grows (up to the document's size).
        await page.wait_for_function("(w) => document.getElementById('canvas').width > 1.5 * w", arg=before["pw"])
        after = await page.evaluate(STAGE_GEOMETRY)
        zoom = parse_transform(after["transform"])
        assert abs(zoom["scale"] - 3) < 0.05, zoom
        # The pinched point followed the fingers' midpoint (it moved 40 px down with them).
        mapped = fitted_mapper(after, doc, zoom)
        mx, my = mapped(960, 640)
        assert abs(mx - cx) < 1.5 and abs(my - (cy + 40)) < 1.5, (mx, my, cx, cy)
        assert await page.is_visible("#fit-view")
        await tab.screenshot("zoomed-shade")

        # A line stroke (upright pencil) through document points placed by the zoomed mapping above.
        points = [mapped(*p) for p in horizontal(900, 1020, 650, 24)]
        await tab.pen.stroke(points, force=0.5, tilt=(0, 0))
        await tab.until("d => d.strokeCount === 1")

        await page.click("#fit-view")
        await page.wait_for_function("() => document.getElementById('canvas').style.transform === ''")
        assert not await page.is_visible("#fit-view")
        tab.assert_no_page_errors()

    run(scenario)
    render = studio.render()
    # The line lies on document row 650 from x 900 to 1020: pencil colour there, not above or below.
    a = blend_factor(render[630:671, 910:1010], photo_pixels[630:671, 910:1010], color)
    rows = np.nan_to_num(np.nanmean(a, axis=1))
    assert rows.max() > 0.5, "no line"
    centre = 630 + float((rows * np.arange(len(rows))).sum() / rows.sum())
    assert abs(centre - 650) <= 1, f"the line is centred on row {centre:.1f}, not 650"
    columns = np.nonzero(np.abs(render[645:656].astype(int) - photo_pixels[645:656]).max(axis=(0, 2)) > 20)[0]
    # Its round caps reach half the line's width (5 px) past the ends.
    assert abs(columns[0] - 895) <= 2 and abs(columns[-1] - 1025) <= 2, (columns[0], columns[-1])


def test_a_hovering_pen_shows_the_threshold_and_the_pencil_and_never_draws(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        to_client = await tab.mapper()

        async def hover(x, y, tilt):
            await tab.cdp.send("Input.dispatchMouseEvent", {
                "type": "mouseMoved", "x": x, "y": y, "button": "none", "buttons": 0, "pointerType": "pen",
                "force": 0, "tiltX": tilt, "tiltY": 0})

        await tab.mode("shade")
        for i, tilt in enumerate([80, 75, 70]):
            await hover(*to_client(800 + 20 * i, 500), tilt)
        await page.wait_for_selector('#threshold[data-below="true"]')
        for i, tilt in enumerate([10, 5, 0]):
            await hover(*to_client(900 + 20 * i, 500), tilt)
        await page.wait_for_selector('#threshold[data-below="false"]')

        await tab.mode("adjust")
        await page.keyboard.down("1")
        await asyncio.sleep(0.2)
        values = (await tab.document())["adjust"]
        for i in range(8):
            await hover(*to_client(800 + 15 * i, 640), 40)
            await asyncio.sleep(0.02)
        await page.wait_for_function("() => !document.getElementById('pencil-canvas').hidden")
        await tab.screenshot("hover-pencil")
        await asyncio.sleep(0.3)
        assert (await tab.document())["adjust"] == values, "a hover changed Adjust's values"
        await page.keyboard.up("1")
        tab.assert_no_page_errors()

    run(scenario)
    assert studio.document()["strokeCount"] == 0
