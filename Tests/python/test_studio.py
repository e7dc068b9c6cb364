"""End-to-end tests of `sfumato studio`: the real server, its real page, driven by headless Chromium with
real pen events (CDP Input.dispatchMouseEvent with pointerType "pen"; docs/spec/INPUT.md). Each mode: a scripted
pen gesture must produce the document state and the pixels that docs/spec/SEEDS.md's formulas predict.

Every scenario runs twice: with Chromium's APIs, and with iPadOS 17's surface (studio_support.SAFARI_SURFACE:
no coalesced, predicted or raw-update events, no angle pair, no ImageDecoder), so Safari's fall-backs are
tested with the same pen.

Set SFUMATO_SCREENSHOTS=DIR to keep a screenshot of each mode. Pen-to-pixels latency is measured in
test_latency.py."""
import asyncio
import io
import json
import math
import time

import numpy as np
import pytest
from PIL import Image

from conftest import PHOTOS
from studio_support import (
    BRIGHTNESS_CONTRAST,
    CAMERA_FILE,
    GAMMA_EXPOSURE,
    HUE_SATURATION,
    PHOTO_SIZE,
    PRESETS,
    SURFACE_PROBE,
    Studio,
    Tab,
    adjust_chain,
    angle_difference,
    blend_factor,
    center_of,
    curve_pixels,
    horizontal,
    hue_rgb,
    label_showing,
    line_width,
    pencil_alpha,
    pencil_controller,
    stage_pixels,
    tone_curve,
    touch_stroke,
    until,
    until_async,
)


@pytest.fixture(params=["full", "safari"])
def api_surface(request):
    return request.param


def test_the_page_sees_the_api_surface_it_is_given(studio, run, api_surface):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        return await tab.page.evaluate(SURFACE_PROBE)

    seen = run(scenario)
    assert all(seen.values()) if api_surface == "full" else not any(seen.values()), seen


# ---------------------------------------------------------------------------------------------------
# Adjust (PencilController)

def test_adjust_is_steered_by_a_mouse_drag(studio, run):
    """A mouse (or a finger) has no tilt: holding a pair, its drag leans the pen that way, 90 degrees
    at 240 CSS px; here 120 px to the right, as a pen leaning right 45 degrees."""
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        to_client = await tab.mapper()
        cx, cy = to_client(960, 640)

        async def mouse(kind, x, y):
            params = {"type": kind, "x": x, "y": y, "button": "left", "buttons": 0 if kind == "mouseReleased" else 1,
                      "pointerType": "mouse"}
            if kind != "mouseMoved":
                params["clickCount"] = 1
            await tab.cdp.send("Input.dispatchMouseEvent", params)

        want = pencil_controller("hue-saturation", 45, 0)
        await page.keyboard.down("1")
        await mouse("mousePressed", cx, cy)
        for i in range(1, 13):
            await mouse("mouseMoved", cx + 10 * i, cy)
        await mouse("mouseReleased", cx + 120, cy)
        await page.keyboard.up("1")
        doc = await until(studio.document, lambda d: abs(d["adjust"]["saturation"] - want["saturation"]) < 0.05,
                          "the saturation of a 45-degree lean")
        assert angle_difference(doc["adjust"]["hue"], want["hue"]) < 0.02, doc["adjust"]
        tab.assert_no_page_errors()
    run(scenario)


def test_adjust_pairs_follow_the_pen_pose(studio, run, photo_pixels):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        doc = await tab.document()
        assert doc["mode"] == "adjust" and (doc["width"], doc["height"]) == PHOTO_SIZE
        to_client = await tab.mapper()
        cx, cy = to_client(960, 640)
        expected = {"hue": 0.0, "saturation": 1.0, "brightness": 0.0, "contrast": 1.0, "exposure": 0.0, "gamma": 1.0}

        # Hue / Saturation, held with key 1: pen leaning right, 40 degrees from upright.
        await page.keyboard.down("1")
        pose = {"tilt": (40, 0), "force": 0.4}
        await tab.pen.down(cx, cy, **pose)
        await tab.pen.moves([(cx + 6 * i, cy) for i in range(1, 13)], **pose)
        tip_x, tip_y = cx + 72, cy
        await label_showing(page, HUE_SATURATION, [180.00, 3.56])
        await page.wait_for_timeout(350)   # the virtual pencil has faded in (0.25 s)
        await tab.screenshot("adjust-hue-saturation")
        pencil = await pencil_alpha(tab, tip_x, tip_y)
        assert pencil["tip"] > 0, "no virtual pencil at the contact point"
        assert pencil["along"] > pencil["against"], "the pencil's body must lie along the azimuth (to the right here)"
        await tab.pen.up(tip_x, tip_y, **pose)
        expected.update(pencil_controller("hue-saturation", 40, 0))
        assert abs(expected["hue"] - math.pi) < 1e-9 and abs(expected["saturation"] - 8 * 40 / 90) < 1e-9
        adjust = (await until(studio.document, lambda d: d["adjust"]["saturation"] > 2, "saturation"))["adjust"]
        assert angle_difference(adjust["hue"], math.pi) < 0.01, adjust
        assert abs(adjust["saturation"] - 3.56) < 0.02, adjust
        await label_showing(page, HUE_SATURATION, [180.00, 3.56])
        await page.keyboard.up("1")
        await page.wait_for_selector("#label", state="hidden")
        # It fades out over 0.25 s of animation frames (however slowly a loaded machine draws them).
        await until_async(lambda: pencil_alpha(tab, tip_x, tip_y), lambda p: p["tip"] == 0, "the virtual pencil to fade out", timeout=20)

        # Brightness / Contrast, held with a finger on its button (as on an iPad): leaning left and down.
        bx, by = await center_of(page, '[data-adjust="brightness-contrast"]')
        await tab.cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": bx, "y": by}]})
        await page.wait_for_selector('[data-adjust="brightness-contrast"].active')
        await tab.pen.stroke([(cx, cy), (cx - 20, cy + 10), (cx - 40, cy + 20)], tilt=(-30, 20), force=0.5)
        expected.update(pencil_controller("brightness-contrast", -30, 20))
        await label_showing(page, BRIGHTNESS_CONTRAST, [expected["brightness"], expected["contrast"]])
        await tab.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        await page.wait_for_selector("#label", state="hidden")

        # Gamma / Exposure, key 3: leaning right and up.
        await page.keyboard.down("3")
        await tab.pen.stroke([(cx, cy), (cx + 15, cy - 15), (cx + 30, cy - 30)], tilt=(25, -35), force=0.5)
        expected.update(pencil_controller("gamma-exposure", 25, -35))
        await label_showing(page, GAMMA_EXPOSURE, [expected["gamma"], expected["exposure"]])
        await page.keyboard.up("3")
        await page.wait_for_selector("#label", state="hidden")

        # All three pairs stay applied, with the last pose's values.
        adjust = (await until(studio.document, lambda d: abs(d["adjust"]["gamma"] - expected["gamma"]) < 0.02,
                              "gamma"))["adjust"]
        for key in ("saturation", "brightness", "contrast", "exposure", "gamma"):
            assert abs(adjust[key] - expected[key]) < 0.02, (key, adjust, expected)
        assert angle_difference(adjust["hue"], expected["hue"]) < 0.01
        await tab.screenshot("adjust")
        tab.assert_no_page_errors()
        return adjust

    adjust = run(scenario)
    # The pixels: the whole chain on the sRGB-encoded values, at sampled pixels of the full-size render.
    render = studio.render()
    want = adjust_chain(photo_pixels[::37, ::41], adjust)
    worst = np.abs(render[::37, ::41].astype(np.int32) - want).max()
    assert worst <= 2, f"render differs from the PencilController chain by {worst} levels"


# ---------------------------------------------------------------------------------------------------
# Sketch (ForceSketch)

def test_a_translucent_photo_looks_the_same_in_raw_and_jpeg_frames(sfumato, photo_pixels, tmp_path, run):
    """A photo with transparency: the first frame is a JPEG (no alpha), a stroke's small regions come
    raw. Around the ink, inside a raw region, the photo must keep the colour the JPEG frame gave it
    (raw pixels with their alpha would be darkened by the page's opaque canvas)."""
    path = tmp_path / "translucent.png"
    Image.fromarray(np.dstack([photo_pixels, np.full(photo_pixels.shape[:2], 128, np.uint8)])).save(path)
    server = Studio(sfumato, path, tmp_path).start()
    try:
        async def scenario(context):
            tab = await Tab.open(context, server.url)
            await tab.mode("sketch")
            await tab.keep_strokes(True)
            # A short diagonal through (910, 670), 10 px wide: the raw region of the batch there also
            # holds photo 11 px beside the ink's centre line, at (918, 678).
            before = (await tab.preview_at(918, 678, 3))[..., :3].astype(int)
            await tab.stroke_doc([(880 + 2 * i, 700 - 2 * i) for i in range(31)], force=0.5)
            await tab.until("d => d.strokeCount === 1")
            await tab.page.wait_for_timeout(300)
            after = (await tab.preview_at(918, 678, 3))[..., :3].astype(int)

            # Adjust's drafts (raw too) against the sharp frame after the lift, in the smooth sky.
            await tab.mode("adjust")
            drag = await tab.adjust_drag()
            draft = (await tab.draft_at(300, 150))[..., :3].astype(int)
            await tab.end_adjust_drag(*drag)
            sharp = (await tab.preview_at(300, 150, 3))[..., :3].astype(int)
            await tab.page.keyboard.up("1")
            tab.assert_no_page_errors()
            return before, after, draft, sharp

        before, after, draft, sharp = run(scenario)
    finally:
        server.stop()
    assert before.mean() > 40, "the spot must show the photo, not black"
    # The first frame is a JPEG (quality 85, a few levels off); a translucent pixel taken for
    # premultiplied, or darkened by the opaque canvas, is off by half its value.
    assert np.abs(np.median(after, axis=(0, 1)) - np.median(before, axis=(0, 1))).max() <= 10, \
        f"the photo beside the stroke changed from {before.tolist()} to {after.tolist()}"
    assert sharp.mean() > 40, "the sky must show the photo, not black"
    assert np.abs(np.median(draft, axis=(0, 1)) - np.median(sharp, axis=(0, 1))).max() <= 12, \
        f"the draft showed {draft.tolist()}, the sharp frame {sharp.tolist()}"


# A page on this machine takes drafts as raw pixels; one on the network (an iPad) takes JPEG. The
# second is this page told it is not on loopback, before its scripts run.
NOT_LOOPBACK = """window.Sfumato = {};
Object.defineProperty(window.Sfumato, "util", { configurable: true,
    get() { return this._util; }, set(util) { util.isLoopback = () => false; this._util = util; } });"""


@pytest.mark.parametrize("transport", ["raw", "jpeg"])
def test_adjust_drafts_show_the_ink(studio, run, transport):
    """While a pen drags the colour parameters the page shows reduced drafts; kept ink must be in them,
    in its place and in the colour the sharp frame gives it (the server lays the ink layers over each draft)."""

    async def scenario(context):
        if transport == "jpeg":
            await context.add_init_script(NOT_LOOPBACK)
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await page.evaluate("""() => {
            const C = window.Sfumato.Connection.prototype, receive = C.receive;
            window.__draftFormats = [];
            C.receive = function (data) {
                const frame = typeof data === "string" ? null : window.Sfumato.parseFrame(data);
                if (frame && frame.header.draft) window.__draftFormats.push(frame.header.format);
                return receive.call(this, data);
            };
        }""")
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        await tab.stroke_doc(horizontal(560, 1360, 640, 40), force=1.0)
        await tab.until("d => d.strokeCount === 1")
        await tab.mode("adjust")
        drag = await tab.adjust_drag()

        async def draft_at(x, y):
            return (await tab.draft_at(x, y))[..., :3].reshape(-1, 3).astype(int)

        drafts = {x: (await draft_at(x, 640), await draft_at(x, 560)) for x in (700, 960, 1200)}
        await tab.end_adjust_drag(*drag)
        for x, (on_line, above) in drafts.items():
            # The sharp frame after the lift shows the ink (with the look over it, as the picture has);
            # the draft must have shown the same colour on the line and not above it.
            sharp = np.median((await tab.preview_at(x, 640, 3))[..., :3].reshape(-1, 3).astype(int), axis=0)
            near = np.abs(on_line - sharp).sum(axis=1).min()
            assert near <= 60, f"the draft at ({x}, 640) is {on_line.tolist()}, the sharp frame {sharp.tolist()}"
            assert np.abs(above - sharp).sum(axis=1).min() > 60, f"the ink's colour in the draft at ({x}, 560), above the stroke"
        await page.keyboard.up("1")
        formats = set(await page.evaluate("() => window.__draftFormats"))
        tab.assert_no_page_errors()
        return formats

    formats = run(scenario)
    assert formats == {"rgba" if transport == "raw" else "jpeg"}, f"{transport} page got {formats} drafts"


def test_sketch_force_pen_width_hue_and_fade(studio, run, photo_pixels):
    cyan = hue_rgb(0.5)
    assert np.allclose(cyan, [0, 255, 255])

    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        await tab.mode("sketch")
        assert await tab.page.is_visible("#keep-strokes")
        await tab.keep_strokes(True)
        await tab.stroke_doc(horizontal(560, 1360, 640, 40), force=0.5)
        await tab.until("d => d.strokeCount === 1")
        await tab.screenshot("sketch")
        render = await asyncio.to_thread(studio.render)
        width = line_width(render, photo_pixels, cyan, 640, range(860, 1080, 4))
        assert abs(width - 10) <= 1, f"a force-pen stroke at pressure 0.5 must be 10 px wide, measured {width:.2f}"
        core = render[636:645, 900:1040].reshape(-1, 3).astype(np.int32)
        assert np.abs(np.median(core, axis=0) - cyan).max() <= 12, f"line colour {np.median(core, axis=0)} is not cyan"

        # Fading (keepStrokes off): the stroke is there while drawn, then fades back to the photo.
        await tab.keep_strokes(False)
        before = await tab.preview_at(960, 960, 15)
        to_client = await tab.mapper()
        points = [to_client(*p) for p in horizontal(560, 1360, 960, 40)]
        await tab.pen.down(*points[0], force=0.5)
        await tab.pen.moves(points[1:], force=0.5)
        await until_async(lambda: tab.preview_at(960, 960, 15),
                          lambda px: np.abs(px.astype(int) - before).max() > 60, "the fading stroke to appear")
        await tab.pen.up(*points[-1])
        await until_async(lambda: tab.preview_at(960, 960, 15),
                          lambda px: np.abs(px.astype(int) - before).max() <= 12, "the stroke to fade away", timeout=20)
        faded = await asyncio.to_thread(studio.render)
        band = np.abs(faded[940:980, 560:1360].astype(int) - photo_pixels[940:980, 560:1360]).max()
        assert band <= 4, f"after fading, the render differs from the photo by {band} levels where the stroke was"
        kept = line_width(faded, photo_pixels, cyan, 640, range(860, 1080, 4))
        assert abs(kept - 10) <= 1, "the kept stroke must stay"

        # The pressure curve editor: drag its end point from (1, 1) down to (1, 0.5); pressure 0.5 now
        # draws as 0.25 (linear between the points): 5 px wide, hue 0.25.
        await tab.keep_strokes(True)
        box = await tab.page.locator("#pressure-curve").bounding_box()
        pad = 8
        end = (box["x"] + box["width"] - pad, box["y"] + pad)
        await tab.page.mouse.move(*end)
        await tab.page.mouse.down()
        await tab.page.mouse.move(end[0], box["y"] + pad + (box["height"] - 2 * pad) * 0.5, steps=4)
        await tab.page.mouse.up()
        await tab.until("d => Math.abs(d.brush.pressureCurve[d.brush.pressureCurve.length - 1][1] - 0.5) < 0.03")
        curve = (await tab.document())["brush"]["pressureCurve"]
        strokes = (await tab.document())["strokeCount"]   # (whether faded strokes count is the server's business)
        await tab.stroke_doc(horizontal(560, 1360, 320, 40), force=0.5)
        await tab.until("(d, n) => d.strokeCount === n + 1", strokes)
        mapped = float(np.interp(0.5, [p[0] for p in curve], [p[1] for p in curve]))   # linear between points
        tab.assert_no_page_errors()
        return mapped

    mapped = run(scenario)
    render = studio.render()
    width = line_width(render, photo_pixels, hue_rgb(mapped), 320, range(860, 1080, 4))
    assert abs(width - 20 * mapped) <= 1, f"with the pressure curve, expected {20 * mapped:.2f} px, measured {width:.2f}"


# ---------------------------------------------------------------------------------------------------
# Shade (Shading with Pencil)

PEN_COLOR = "#ff6a00"


def test_shade_flat_pencil_shades_upright_pencil_draws_a_line(studio, run, photo_pixels):
    color = np.array([0xff, 0x6a, 0x00])

    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await tab.mode("shade")
        await tab.until("d => d.brush.brush === 'pencil'")
        # A colour input can't be clicked headless: set it as the picker would, with input + change events.
        await page.evaluate("""(c) => { const e = document.getElementById('color'); e.value = c;
            e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); }""",
                            PEN_COLOR)
        await tab.until("d => d.brush.color.toLowerCase() === arg", PEN_COLOR)
        to_client = await tab.mapper()

        # Flat pencil (tiltX 80: altitude 10 degrees, below the 30 degree threshold): shading.
        flat = [to_client(*p) for p in horizontal(560, 1360, 400, 40)]
        await tab.pen.down(*flat[0], force=0.5, tilt=(80, 0))
        await tab.pen.moves(flat[1:], force=0.5, tilt=(80, 0))
        await page.wait_for_selector('#threshold[data-below="true"]')
        await tab.screenshot("shade-shading")
        await tab.pen.up(*flat[-1], tilt=(80, 0))
        await tab.until("d => d.strokeCount === 1")

        # Upright pencil: a line.
        upright = [to_client(*p) for p in horizontal(560, 1360, 900, 40)]
        await tab.pen.down(*upright[0], force=0.5, tilt=(0, 0))
        await tab.pen.moves(upright[1:], force=0.5, tilt=(0, 0))
        await page.wait_for_selector('#threshold[data-below="false"]')
        await tab.pen.up(*upright[-1])
        await tab.until("d => d.strokeCount === 2")
        await tab.screenshot("shade")
        tab.assert_no_page_errors()

    run(scenario)
    render = studio.render()
    # Shading: width = max(60 (1 - n), 5) with n = 0 for altitude <= 0.25: 60 px between the points where
    # the mean cover falls to half its inside level, plus what the ragged edge adds: the edge sits at
    # r + 0.8 w (t - 1/2) (w = r / 4 = 7.5 px) and at this pressure graphite lands mostly on the tooth's
    # peaks (t > 1/2), so the half-tone edge is pushed out by up to 0.4 w = 3 px a side, 66 px across.
    # Nothing changes beyond 30 + 6.75 px of the axis (soft over w, frayed by 0.4 w). Opacity force/4 with
    # force = 0.5 * 4.17, and grain: partial, uneven cover.
    cover = blend_factor(render[340:460, 700:1240], photo_pixels[340:460, 700:1240], color)
    profile = np.array([np.nanmean(row) if np.isfinite(row).any() else 0.0 for row in cover])
    inside = profile[60 - 15:60 + 15].mean()
    half = np.nonzero(profile >= inside / 2)[0]
    width = half[-1] - half[0] + 1
    assert 58 <= width <= 66, f"shading should be 60 px wide at half its tone, measured {width}"
    changed = np.abs(render[340:460].astype(int) - photo_pixels[340:460]).max(axis=2) > 3
    rows = np.nonzero(changed[:, 700:1240].any(axis=1))[0]
    assert rows[-1] - rows[0] + 1 <= 60 + 2 * 6.75 + 3, f"graphite reaches {rows[-1] - rows[0] + 1} px across"
    a = blend_factor(render[385:416, 700:1240], photo_pixels[385:416, 700:1240], color)
    a = a[~np.isnan(a)]
    assert a.size > 1000
    assert 0.1 < a.mean() < 0.9, f"shading at pressure 0.5 must be partial (opacity ~0.52), mean cover {a.mean():.2f}"
    assert a.std() > 0.05, f"shading must be grainy, cover std {a.std():.3f}"
    # Line: width = force * 4 = 0.5 * 4.17 * 4 = 8.34 px, opaque, in the pen colour.
    width = line_width(render, photo_pixels, color, 900, range(700, 1240, 6))
    assert abs(width - 0.5 * 4.17 * 4) <= 1, f"upright pencil line should be 8.34 px wide, measured {width:.2f}"
    core = render[898:903, 700:1240].reshape(-1, 3).astype(int)
    assert np.abs(np.median(core, axis=0) - color).max() <= 12


# ---------------------------------------------------------------------------------------------------
# Curve (tone curve editor)

def test_curve_slider_brightens_midtones(studio, run, photo_pixels):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await tab.mode("curve")
        # Landscape: editor on the left, photo on the right.
        editor = await page.locator("#curve-editor").bounding_box()
        stage = await page.locator("#stage").bounding_box()
        assert editor["x"] + editor["width"] <= stage["x"] + 1, "landscape: the curve editor goes left of the photo"
        await tab.ready()
        curve_before = await curve_pixels(tab)

        slider = page.locator('[data-curve-point="2"]')
        box = await slider.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2   # the thumb at 0.5
        await page.mouse.move(x, y)
        await page.mouse.down()
        await page.mouse.move(x, y - box["height"] * 0.25, steps=8)
        await page.mouse.up()
        await tab.until("d => d.curve.levels[2] > 0.65")
        doc = await tab.document()
        levels = doc["curve"]["levels"]
        assert np.allclose([levels[i] for i in (0, 1, 3, 4)], [0, 0.25, 0.75, 1], atol=1e-6), levels
        await page.wait_for_timeout(150)
        curve_after = await curve_pixels(tab)
        changed = np.mean(np.any(curve_before != curve_after, axis=-1))
        assert changed > 0.003, "the curve drawn on #curve-canvas did not change"
        await tab.screenshot("curve")

        # Portrait: photo above, editor below.
        await page.set_viewport_size({"width": 800, "height": 1100})
        await page.wait_for_timeout(200)
        editor = await page.locator("#curve-editor").bounding_box()
        stage = await page.locator("#stage").bounding_box()
        assert editor["y"] >= stage["y"] + stage["height"] - 1, "portrait: the curve editor goes below the photo"
        await tab.screenshot("curve-portrait")
        tab.assert_no_page_errors()
        return doc

    doc = run(scenario)
    levels = doc["curve"]["levels"]
    samples = studio.json("/api/curve?levels=" + ",".join(repr(v) for v in levels))["samples"]
    assert len(samples) == 256 and np.allclose(samples, doc["curve"]["samples"], atol=1e-6)
    assert samples[128] > 0.6 and abs(samples[0]) < 1e-6 and abs(samples[255] - 1) < 1e-6
    render = studio.render()
    mid = (photo_pixels.mean(axis=2) > 60) & (photo_pixels.mean(axis=2) < 190)
    assert render[mid].mean() > photo_pixels[mid].mean() + 8, "mid-tones must get brighter"
    want = tone_curve(photo_pixels[::37, ::41], samples)
    worst = np.abs(render[::37, ::41].astype(int) - want).max()
    assert worst <= 2, f"render differs from the tone curve (linear working space, gamma-2 curve) by {worst} levels"


# ---------------------------------------------------------------------------------------------------
# Gallery (MetalImageFilters)

def test_gallery_presets_swipes_and_camera(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await tab.mode("gallery")
        doc = await tab.document()
        assert doc["preset"]["names"] == PRESETS
        assert await page.text_content("#gallery-label") == "Pass Through"
        for step in range(1, 13):
            await page.keyboard.press("ArrowRight")
            await page.wait_for_function("(n) => document.getElementById('gallery-label').textContent === n",
                                         arg=PRESETS[step % 12])
            if step in (5, 12):
                await tab.until("(d, a) => d.preset.index === a[0] && d.preset.name === a[1]",
                                [step % 12, PRESETS[step % 12]])
            if step == 4:
                # The Sobel frame has landed when the smooth sky above the rocket turns near black.
                await tab.until("(d) => d.preset.index === 4")
                await page.wait_for_function("""() => {
                    const c = document.getElementById('canvas');
                    const d = c.getContext('2d').getImageData(Math.floor(c.width * 0.45), Math.floor(c.height * 0.05), 32, 32).data;
                    let sum = 0;
                    for (let i = 0; i < d.length; i += 4) sum += d[i] + d[i + 1] + d[i + 2];
                    return sum / (d.length / 4 * 3) < 40;
                }""")
                await tab.screenshot("gallery-sobel")
        await page.keyboard.press("ArrowLeft")
        await tab.until("d => d.preset.index === 11")
        assert await page.text_content("#gallery-label") == "Histogram Specification"
        await page.keyboard.press("ArrowRight")
        await tab.until("d => d.preset.index === 0")

        # Pen swipes: left -> next, right -> previous (wrapping).
        to_client = await tab.mapper()
        x0, y0 = to_client(1300, 640)
        x1, _ = to_client(620, 640)
        await tab.pen.stroke(horizontal(x0, x1, y0, 8), force=0.5)
        await tab.until("d => d.preset.index === 1")
        assert await page.text_content("#gallery-label") == "Gaussian Blur"
        await tab.pen.stroke(horizontal(x1, x0, y0, 8), force=0.5)
        await tab.until("d => d.preset.index === 0")
        await tab.pen.stroke(horizontal(x1, x0, y0, 8), force=0.5)
        await tab.until("d => d.preset.index === 11")
        assert await page.text_content("#gallery-label") == "Histogram Specification"

        # Live camera (the fake device), through Threshold Binary: V toggles it.
        for _ in range(6):
            await page.keyboard.press("ArrowRight")
        await tab.until("d => d.preset.index === 5")
        await page.keyboard.press("v")
        await page.wait_for_function("() => window.sfumatoCamera.framesDrawn >= 5", timeout=8000)
        start_frames = await page.evaluate("() => window.sfumatoCamera.framesDrawn")
        start = time.monotonic()
        await asyncio.sleep(2.0)
        frames = await page.evaluate("() => window.sfumatoCamera.framesDrawn") - start_frames
        fps = frames / (time.monotonic() - start)
        # The loop keeps running (at whatever rate this machine allows): ten more frames come.
        drawn = await page.evaluate("() => window.sfumatoCamera.framesDrawn")
        await page.wait_for_function(f"() => window.sfumatoCamera.framesDrawn >= {drawn + 10}", timeout=30000)
        await tab.screenshot("gallery-camera")
        shot = await stage_pixels(tab)
        binary = np.mean((shot.max(axis=-1) < 40) | (shot.min(axis=-1) > 215))
        assert binary > 0.85, f"camera frames are not Threshold Binary output ({binary:.2f} of pixels black or white)"
        # The 16:9 camera picture is letterboxed in the stage: the bands beside it show the stage's
        # dark background, not the still photo under it.
        stage = np.asarray(Image.open(io.BytesIO(await page.locator("#stage").screenshot())).convert("RGB")).astype(int)
        h, w = stage.shape[:2]
        band = int((h - min(h, w * 540 / 960)) / 2) - 1
        assert band >= 2, "the test's viewport must letterbox the camera picture"
        bands = np.concatenate([stage[:band], stage[h - band:]])
        assert bands.max() < 60, f"the letterbox bands beside the camera picture show the photo (max level {bands.max()})"
        await page.keyboard.press("v")
        await page.wait_for_selector("#camera-canvas", state="hidden")
        tab.assert_no_page_errors()
        return fps

    fps = run(scenario)
    # The rate is a figure for the notes (#8 asks for 24 fps or more), not an assertion: these
    # machines are shared. What is asserted (above) is that the loop keeps running.
    CAMERA_FILE.write_text(json.dumps({"unit": "fps", "what": "filtered camera frames drawn over 2 s",
                                       "preset": "Threshold Binary", "fps": round(fps, 1)}, indent=2) + "\n")


# ---------------------------------------------------------------------------------------------------
# Palm rejection, undo / redo, before / after

def test_palm_rejection_ignores_touches_in_pen_only_mode(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        await page.click("#pen-only")
        assert await page.get_attribute("#pen-only", "aria-pressed") == "true"
        to_client = await tab.mapper()
        fingers = [to_client(*p) for p in horizontal(600, 1300, 500, 12)]
        before = await tab.preview_at(950, 500, 11)
        await touch_stroke(tab.cdp, fingers)
        await page.wait_for_timeout(400)
        assert (await asyncio.to_thread(studio.document))["strokeCount"] == 0, "a palm drew in pen-only mode"
        assert np.array_equal(await tab.preview_at(950, 500, 11), before)
        # The pen still draws...
        await tab.stroke_doc(horizontal(600, 1300, 700, 12), force=0.5)
        await tab.until("d => d.strokeCount === 1")
        # ...and with pen-only off, a finger draws too (so it was pen-only that refused it).
        await page.click("#pen-only")
        assert await page.get_attribute("#pen-only", "aria-pressed") == "false"
        await touch_stroke(tab.cdp, fingers)
        await tab.until("d => d.strokeCount === 2")
        tab.assert_no_page_errors()

    run(scenario)


def test_undo_redo_keys_buttons_and_http(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        plain = await tab.preview_at(950, 800, 7)
        await tab.stroke_doc(horizontal(500, 1400, 400, 20), force=0.5)
        await tab.until("d => d.strokeCount === 1")
        await tab.stroke_doc(horizontal(500, 1400, 800, 20), force=0.8)
        await tab.until("d => d.strokeCount === 2 && d.canUndo && !d.canRedo")
        await page.keyboard.press("Control+z")
        await tab.until("d => d.strokeCount === 1 && d.canRedo")
        assert await page.is_enabled("#redo")
        await page.keyboard.press("Control+Shift+Z")
        await tab.until("d => d.strokeCount === 2 && !d.canRedo")
        await page.click("#undo")
        await tab.until("d => d.strokeCount === 1")
        await page.click("#redo")
        await tab.until("d => d.strokeCount === 2")

        # Before / after shows the unedited photo while on.
        def differs(px):
            return np.abs(px.astype(int) - plain).max() > 40
        await until_async(lambda: tab.preview_at(950, 800, 7), differs, "the redone stroke on the page")
        await page.click("#before-after")
        assert await page.get_attribute("#before-after", "aria-pressed") == "true"
        await until_async(lambda: tab.preview_at(950, 800, 7), lambda px: not differs(px), "the unedited photo")
        await page.click("#before-after")
        await until_async(lambda: tab.preview_at(950, 800, 7), differs, "the edited photo again")

        undone = await asyncio.to_thread(studio.json, "/api/undo", "POST", b"")
        assert undone["strokeCount"] == 1 and undone["canRedo"]
        await tab.until("d => d.strokeCount === 1")   # the page hears about it too
        redone = await asyncio.to_thread(studio.json, "/api/redo", "POST", b"")
        assert redone["strokeCount"] == 2
        await tab.until("d => d.strokeCount === 2")
        tab.assert_no_page_errors()

    run(scenario)


# ---------------------------------------------------------------------------------------------------
# Persistence: reload, SIGKILL and reopen

COMMITTED = ("name", "width", "height", "adjust", "curve", "preset", "brush", "edits", "strokeCount", "historyLength",
             "historyPosition", "canUndo", "canRedo")


def committed(doc):
    return {key: doc[key] for key in COMMITTED}


def test_reload_and_restart_keep_everything(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        page = tab.page
        await page.keyboard.down("2")
        await tab.stroke_doc([(900, 600), (960, 640)], tilt=(30, 30), force=0.5)
        await page.keyboard.up("2")
        await until(studio.document, lambda d: d["adjust"]["brightness"] > 0.1, "brightness")
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        await tab.stroke_doc(horizontal(500, 1400, 500, 20), force=0.3)
        await tab.until("d => d.strokeCount === 1")
        await tab.mode("curve")
        await page.evaluate("""() => { const s = document.querySelector('[data-curve-point="1"]'); s.value = '0.4';
            s.dispatchEvent(new Event('input', {bubbles: true})); s.dispatchEvent(new Event('change', {bubbles: true})); }""")
        await tab.until("d => Math.abs(d.curve.levels[1] - 0.4) < 1e-6")
        await tab.mode("sketch")
        state = committed(await asyncio.to_thread(studio.document))
        render = await asyncio.to_thread(studio.render)

        # Reload: the page comes back in the same state (mode and brush included).
        await page.reload()
        await tab.ready()
        assert committed(await tab.document()) == state
        assert await page.get_attribute("#keep-strokes", "aria-pressed") == "true"
        assert await page.get_attribute('#modes [data-mode="sketch"]', "class") == "active"

        # SIGKILL the server with the page open; restart it on the same port: the page reconnects by itself.
        port = int(studio.base.rstrip("/").rsplit(":", 1)[1])
        await asyncio.to_thread(studio.kill)
        await page.wait_for_selector("#connection.closed")
        await asyncio.to_thread(studio.start, True, port)
        await page.wait_for_selector("#connection.open", timeout=15_000)
        assert committed(await asyncio.to_thread(studio.document)) == state
        assert np.array_equal(await asyncio.to_thread(studio.render), render), \
            "a reopened document must render bit-identically"
        await tab.until("(d, s) => d.strokeCount === s.strokeCount && d.mode === 'sketch'", state)
        await tab.stroke_doc(horizontal(500, 1400, 800, 12), force=0.6)   # drawing goes on after the reconnect
        await tab.until("d => d.strokeCount === 2")
        tab.assert_no_page_errors()
        return state

    state = run(scenario)
    # Killed once more, the reopened document has the stroke drawn after the reconnect too.
    studio.kill()
    studio.start(reopen=True)
    doc = studio.document()
    assert doc["strokeCount"] == 2 and doc["adjust"] == state["adjust"] and doc["curve"] == state["curve"]
    status, ctype, data = studio.request("/api/export?format=png")
    assert status == 200 and data[:4] == b"\x89PNG"
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), studio.render())

    async def reopened(context):
        tab = await Tab.open(context, studio.url)
        assert (await tab.document())["strokeCount"] == 2
        tab.assert_no_page_errors()
    run(reopened)


def test_pen_batches_carry_every_sample_in_order_at_most_one_per_4_ms(studio, run, api_surface):
    """docs/spec/INPUT.md: every coalesced sample is sent, batched. Moves go out as the browser delivers
    them, but never two batches within 4 ms: a fast pen's moves that arrive in between wait. Without
    coalesced events (Safari 17) the page has one sample per pointermove, and sends each of those."""
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        await tab.page.evaluate("""() => {
            const log = window.__penLog = [];
            const delivered = window.__delivered = [];
            document.getElementById('canvas').addEventListener('pointermove', (e) => delivered.push(e.clientX));
            // Logged with the pen's own send time, the one its 4 ms gate compares against.
            const send = window.Sfumato.PenInput.prototype.send;
            window.Sfumato.PenInput.prototype.send = function (phase, samples, predicted) {
                const result = send.call(this, phase, samples, predicted);
                log.push({phase, at: this.lastSend, xs: samples.map((s) => s.x)});
                return result;
            };
        }""")
        to_client = await tab.mapper()
        points = [to_client(*p) for p in horizontal(400, 1500, 700, 120)]
        # As fast as CDP takes them, eight at a time: many pointermoves per frame.
        await tab.pen.down(*points[0], force=0.5)
        await tab.pen.moves(points[1:], chunk=8, force=0.5)
        await tab.pen.up(*points[-1], force=0.5)
        await tab.until("d => d.strokeCount === 1")
        log = await tab.page.evaluate("() => window.__penLog")
        delivered = await tab.page.evaluate("() => window.__delivered.length")
        tab.assert_no_page_errors()
        return log, delivered

    log, delivered = run(scenario)
    assert [m["phase"] for m in log][0] == "down" and log[-1]["phase"] == "up"
    xs = [x for m in log for x in m["xs"]]
    if api_surface == "full":
        assert len(xs) == 121, f"{len(xs)} samples sent for a down and 120 moves"
    else:
        assert len(xs) == 1 + delivered and delivered >= 120 // 8, f"{len(xs)} samples sent for {delivered} moves"
    assert xs == sorted(xs), "samples out of order"
    moves = [m for m in log if m["phase"] == "move"]
    assert len(moves) >= 2
    gaps = [b["at"] - a["at"] for a, b in zip(moves, moves[1:])]
    # performance.now() is a float of 0.1 ms steps: 4 ms can come out as 3.99999999.
    assert min(gaps) >= 4 - 1e-6, f"two pen batches {min(gaps):.2f} ms apart"


def test_disconnect_mid_stroke_keeps_the_committed_samples(studio, run, photo_pixels):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        to_client = await tab.mapper()
        points = [to_client(*p) for p in horizontal(500, 1100, 640, 30)]
        await tab.pen.down(*points[0], force=0.5)
        await tab.pen.moves(points[1:], force=0.5)
        # The server has applied the samples once a frame covering them is drawn.
        await tab.page.wait_for_function(
            "() => window.sfumatoStats.count >= 5 && window.sfumatoStats.count === window.sfumatoStats.tracked")
        await tab.page.close()   # the pen is still down

        again = await Tab.open(context, studio.url)
        await again.until("d => d.strokeCount === 1")
        await again.stroke_doc(horizontal(500, 1100, 900, 10), force=0.5)   # and drawing goes on
        await again.until("d => d.strokeCount === 2")
        again.assert_no_page_errors()

    run(scenario)
    render = studio.render()
    width = line_width(render, photo_pixels, hue_rgb(0.5), 640, range(700, 1000, 4))
    assert abs(width - 10) <= 1, f"the interrupted stroke's samples should be drawn; width {width:.2f}"


def test_two_tabs_see_each_others_changes(studio, run):
    async def scenario(context):
        a = await Tab.open(context, studio.url)
        b = await Tab.open(context, studio.url)
        await a.page.bring_to_front()
        await a.mode("sketch")
        await a.keep_strokes(True)
        await b.until("d => d.mode === 'sketch' && d.brush.keepStrokes")
        before = await b.preview_at(960, 640, 9)
        await a.stroke_doc(horizontal(600, 1300, 640, 20), force=0.5)
        await b.until("d => d.strokeCount === 1")
        await until_async(lambda: b.preview_at(960, 640, 9),
                          lambda px: np.abs(px.astype(int) - before).max() > 60, "tab B's picture to show the stroke")
        await b.page.bring_to_front()
        await b.page.keyboard.press("Control+z")
        await a.until("d => d.strokeCount === 0")
        a.assert_no_page_errors()
        b.assert_no_page_errors()

    run(scenario)


# ---------------------------------------------------------------------------------------------------
# Robustness

BAD_MESSAGES = ["not json", "[1, 2, 3]", "{\"type\": \"no-such-type\"}", "{\"type\": \"pen\", \"phase\": \"move\"}",
                "{\"type\": \"pen\", \"phase\": \"sideways\", \"stroke\": 1, \"batch\": 1, \"samples\": []}",
                "{\"type\": \"mode\", \"mode\": \"sideways\"}", "{\"type\": \"curve\", \"levels\": [1, 2]}",
                "{\"type\": \"preset\", \"index\": 99}", "{\"type\": \"hold\", \"pair\": \"up-down\"}",
                "{\"type\": \"brush\", \"brush\": \"crayon\"}",
                # Malformed samples: no y; a pressure that is not a number; an unknown pointer type.
                "{\"type\": \"pen\", \"phase\": \"down\", \"stroke\": 9, \"batch\": 1, \"samples\": [{\"x\": 5}]}",
                "{\"type\": \"pen\", \"phase\": \"down\", \"stroke\": 9, \"batch\": 1, \"samples\": [{\"x\": 5, \"y\": 5, \"pressure\": \"hard\"}]}",
                "{\"type\": \"pen\", \"phase\": \"down\", \"stroke\": 9, \"batch\": 1, \"samples\": [{\"x\": 5, \"y\": 5, \"pointerType\": \"stylus\"}]}"]


def test_malformed_messages_and_requests_get_errors(studio, run):
    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        replies = await tab.page.evaluate("""async (bad) => {
            const ws = new WebSocket(location.origin.replace('http', 'ws') + '/ws');
            ws.binaryType = 'arraybuffer';
            const errors = [];
            await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = fail; });
            ws.onmessage = (e) => { if (typeof e.data === 'string') { const m = JSON.parse(e.data);
                if (m.type === 'error') errors.push(m.message); } };
            ws.send(JSON.stringify({type: 'hello', viewport: {width: 800, height: 600}, dpr: 1}));
            for (const m of bad) ws.send(m);
            ws.send(new Uint8Array([1, 2, 3]).buffer);                           // not a camera frame
            ws.send(new Uint8Array([67, 65, 77, 49, 1, 0, 0, 0, 9, 9, 9]).buffer);   // "CAM1" + not a JPEG
            const expected = bad.length + 2;
            const t0 = performance.now();
            while (errors.length < expected && performance.now() - t0 < 20000) await new Promise(r => setTimeout(r, 50));
            const open = ws.readyState === WebSocket.OPEN;
            ws.close();
            return {errors, open};
        }""", BAD_MESSAGES)
        assert len(replies["errors"]) >= len(BAD_MESSAGES) + 2, replies
        assert all(isinstance(m, str) and m for m in replies["errors"])
        assert replies["open"], "the server should refuse bad messages, not drop the connection"
        # The page's own connection still works.
        await tab.mode("sketch")
        await tab.keep_strokes(True)
        await tab.stroke_doc(horizontal(600, 1300, 640, 10), force=0.5)
        await tab.until("d => d.strokeCount === 1")
        tab.assert_no_page_errors()

    run(scenario)
    for path, method, body, status in [("/api/render?width=abc", "GET", None, 400),
                                       ("/api/render?width=-5", "GET", None, 400),
                                       ("/api/curve?levels=1,2", "GET", None, 400),
                                       ("/api/curve?levels=a,b,c,d,e", "GET", None, 400),
                                       ("/api/export?format=gif", "GET", None, 400),
                                       ("/api/open", "POST", b"this is not an image", 400),
                                       ("/api/open", "POST", b"\x89PNG\r\n\x1a\n" + b"\0" * 64, 400),
                                       ("/api/no-such-thing", "GET", None, 404)]:
        got, ctype, data = studio.request(path, method, body)
        assert got == status, f"{method} {path}: {got}, want {status}"
        assert "error" in json.loads(data), f"{method} {path}: no JSON error: {data[:200]!r}"
    assert studio.request("/static/no-such-file.js")[0] == 404
    assert studio.document()["strokeCount"] == 1


def test_open_photo_replaces_the_document(studio, run, tmp_path):
    other = tmp_path / "chelsea.png"
    Image.open(PHOTOS / "chelsea.png").convert("RGB").save(other)
    size = Image.open(other).size

    async def scenario(context):
        tab = await Tab.open(context, studio.url)
        await tab.page.set_input_files("#open", str(other))
        await tab.until("d => d.width === arg[0] && d.height === arg[1] && d.strokeCount === 0", list(size))
        await tab.page.wait_for_function(
            "(a) => Math.abs(document.getElementById('canvas').width / document.getElementById('canvas').height - a) < 0.02",
            arg=size[0] / size[1])
        # Drag and drop a photo onto the page.
        await tab.page.evaluate("""async () => {
            const c = document.createElement('canvas'); c.width = 300; c.height = 200;
            const ctx = c.getContext('2d'); ctx.fillStyle = '#4a7'; ctx.fillRect(0, 0, 300, 200);
            const blob = await new Promise(ok => c.toBlob(ok, 'image/png'));
            const dt = new DataTransfer();
            dt.items.add(new File([blob], 'dropped.png', {type: 'image/png'}));
            for (const type of ['dragenter', 'dragover', 'drop'])
                document.getElementById('stage').dispatchEvent(new DragEvent(type, {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""")
        await tab.until("d => d.width === 300 && d.height === 200")
        tab.assert_no_page_errors()

    run(scenario)
    assert (studio.document()["width"], studio.document()["height"]) == (300, 200)
