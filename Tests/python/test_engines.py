"""The studio's core scenarios in the three engines (Tests/python/engines.py), with each engine's real input
events: Chromium (pen with tilt, over CDP), Firefox ESR (pen with pressure, over Marionette) and WebKitGTK (the
Safari engine family; mouse, over WebKitWebDriver). In each: the page connects, a stroke lands in the document
and in /api/render with the width its input implies, undo and redo work, the curve sliders move the curve and
sit where their values are, and the gallery cycles. Each engine's pen-to-pixels figures are written to
Tests/python/engines.json (recorded, not asserted)."""
import json
from pathlib import Path

import numpy as np
import pytest
from engines import INPUT, open_engine

from studio_support import IMAGE_RECT, horizontal, line_width

FIGURES_FILE = Path(__file__).with_name("engines.json")
FIGURES = {}


@pytest.fixture(scope="module", params=["chromium", "firefox", "webkit"])
def engine(request):
    with open_engine(request.param) as e:
        yield e


@pytest.fixture(scope="module", autouse=True)
def write_figures():
    yield
    if FIGURES:
        FIGURES_FILE.write_text(json.dumps(FIGURES, indent=1, sort_keys=True) + "\n")


def open_studio(engine, studio):
    engine.open(studio.url)
    engine.until("() => window.sfumatoDocument && document.getElementById('canvas').width > 1")
    errors = engine.js("() => document.getElementById('connection').className")
    assert "error" not in errors, errors


def mode(engine, name):
    engine.click_selector(f'#modes [data-mode="{name}"]')
    engine.until("(m) => window.sfumatoDocument.mode === m", name)


def to_client(engine):
    rect = engine.js(IMAGE_RECT)
    doc = engine.js("() => window.sfumatoDocument")
    sx, sy = rect["width"] / doc["width"], rect["height"] / doc["height"]
    return lambda x, y: (rect["left"] + x * sx, rect["top"] + y * sy)


def test_a_stroke_lands_and_undo_redo_work(engine, studio, photo_pixels):
    open_studio(engine, studio)
    mode(engine, "shade")
    engine.until("() => window.sfumatoDocument.brush.brush === 'pencil'")
    color = engine.js("() => window.sfumatoDocument.brush.color")
    rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)])
    client = to_client(engine)
    engine.js("() => window.sfumatoStats.reset()")
    # An upright pencil: a line force x 4 wide (pressure 0.5 -> 8.34 px), or 6 px from a device without pressure.
    engine.stroke([client(x, y) for x, y in horizontal(560, 1360, 900, 60)], pressure=0.5)
    engine.until("() => window.sfumatoDocument.strokeCount === 1")
    stats = engine.js("() => ({count: window.sfumatoStats.count, p50: window.sfumatoStats.p50, p99: window.sfumatoStats.p99})")
    FIGURES[engine.name] = {"input": INPUT[engine.name], "pen_to_pixels_ms": stats}
    render = studio.render()
    width = line_width(render, photo_pixels, rgb, 900, range(700, 1240, 6))
    expected = 6 if INPUT[engine.name] == "mouse" else 0.5 * 4.17 * 4
    assert abs(width - expected) <= 1, f"{engine.name}: the line should be {expected:.2f} px wide, measured {width:.2f}"
    engine.click_selector("#undo")
    engine.until("() => window.sfumatoDocument.strokeCount === 0")
    undone = studio.render()
    assert np.abs(undone[890:910, 700:1240].astype(int) - photo_pixels[890:910, 700:1240]).max() <= 2, "undo left the line"
    engine.click_selector("#redo")
    engine.until("() => window.sfumatoDocument.strokeCount === 1")
    assert np.array_equal(studio.render(), render), "redo must bring back exactly the same pixels"


def thumb_centre(image, x, top, bottom):
    """The middle of the longest run of warm (thumb-coloured) pixels down column x between top and bottom:
    the thumb is a 30 px disc; the curve line that crosses the column is a few pixels thick."""
    column = np.asarray(image)[int(top):int(bottom), int(x)].astype(int)
    warm = (column[:, 0] > 110) & (column[:, 0] > column[:, 2] + 40)
    best, start, runs = (0, 0), None, []
    for i, w in enumerate(list(warm) + [False]):
        if w and start is None:
            start = i
        if not w and start is not None:
            runs.append((i - start, start))
            start = None
    best = max(runs, default=(0, 0))
    assert best[0] >= 12, f"no thumb in column {x} (longest warm run {best[0]} px)"
    return top + best[1] + best[0] / 2


def test_curve_sliders_move_the_curve_and_sit_at_their_values(engine, studio):
    open_studio(engine, studio)
    mode(engine, "curve")
    box = engine.until("""() => { const r = document.querySelector('[data-curve-point="2"]').getBoundingClientRect();
        return r.height > 40 && {x: r.left + r.width / 2, y: r.top + r.height / 2, height: r.height}; }""")
    # Drag the middle thumb (at 0.5) up by a quarter of the slider's travel.
    x, y = box["x"], box["y"]
    engine.drag([(x, y)] + [(x, y - box["height"] * 0.25 * k / 8) for k in range(1, 9)])
    levels = engine.until("() => window.sfumatoDocument.curve.levels[2] > 0.6 && window.sfumatoDocument.curve.levels")
    assert np.allclose([levels[i] for i in (0, 1, 3, 4)], [0, 0.25, 0.75, 1], atol=1e-6), levels
    engine.until("() => !document.querySelector('#curve-editor').hidden")
    image = engine.screenshot()
    sliders = engine.js("""() => [...document.querySelectorAll('[data-curve-point]')].map((s) => {
        const r = s.getBoundingClientRect(); return {x: r.left + r.width / 2, top: r.top, bottom: r.bottom, value: +s.value}; })""")
    thumb = 30
    for i, s in enumerate(sliders):
        expected = s["top"] + thumb / 2 + (1 - s["value"]) * (s["bottom"] - s["top"] - thumb)
        found = thumb_centre(image, s["x"], s["top"], s["bottom"])
        assert abs(found - expected) <= 5, f"{engine.name}: slider {i} (value {s['value']}) shows its thumb at y {found:.0f}, expected {expected:.0f}"


def test_the_gallery_cycles(engine, studio):
    open_studio(engine, studio)
    mode(engine, "gallery")
    names = engine.js("() => window.sfumatoDocument.preset.names")
    engine.click_selector("#gallery-next")
    engine.until("() => window.sfumatoDocument.preset.index === 1")
    engine.until("(n) => document.getElementById('gallery-label').textContent === n", names[1])
    engine.click_selector("#gallery-prev")
    engine.click_selector("#gallery-prev")
    engine.until("(last) => window.sfumatoDocument.preset.index === last", len(names) - 1)


def test_a_pen_that_firefox_reports_as_a_mouse_draws_with_its_pressure(studio, photo_pixels):
    """Some Wacom pens reach Firefox on Linux as a mouse that sends pressure: the page draws with it."""
    with open_engine("firefox") as engine:
        open_studio(engine, studio)
        mode(engine, "shade")
        color = engine.js("() => window.sfumatoDocument.brush.color")
        rgb = np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)])
        client = to_client(engine)
        assert not engine.js("() => document.getElementById('pen-only').getAttribute('aria-pressed') === 'true'")
        engine.mouse_with_pressure([client(x, y) for x, y in horizontal(560, 1360, 900, 60)], pressure=0.7)
        engine.until("() => window.sfumatoDocument.strokeCount === 1")
        width = line_width(studio.render(), photo_pixels, rgb, 900, range(700, 1240, 6))
        assert abs(width - 0.7 * 4.17 * 4) <= 1, f"the line should be {0.7 * 4.17 * 4:.2f} px wide (pressure 0.7), measured {width:.2f}"
        assert engine.js("() => document.getElementById('pen-only').getAttribute('aria-pressed') === 'true'"), \
            "pen-only mode should count the pen"
