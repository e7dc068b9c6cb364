import asyncio
import os
import pathlib
import subprocess

import numpy as np
import pytest
from PIL import Image
from playwright.async_api import async_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
PHOTOS = ROOT / "Tests" / "Fixtures" / "photos"


def sfumato_binary() -> str:
    path = os.environ.get("SFUMATO")
    if not path:
        path = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip() + "/sfumato"
    assert os.path.exists(path), f"sfumato binary not found at {path}: build with swift build -c release"
    return path


@pytest.fixture(scope="session")
def sfumato() -> str:
    return sfumato_binary()


def real_photo() -> pathlib.Path:
    """The first photo of SFUMATO_EXTRA_PHOTOS (colon-separated paths of photos that may be used in tests
    but not shipped) when set, else a bundled one without a colour profile to convert (Sfumato converts
    embedded profiles to sRGB on reading, Pillow does not, so a profiled photo would compare different pixels)."""
    for extra in os.environ.get("SFUMATO_EXTRA_PHOTOS", "").split(":"):
        if extra and pathlib.Path(extra).exists():
            return pathlib.Path(extra)
    return PHOTOS / "hubble_deep_field.jpg"


# ---------------------------------------------------------------------------------------------------
# The studio's end-to-end fixtures (their helpers are in studio_support.py): a studio on a
# 1920x1280 photo, and one Chromium a module, driven by one asyncio loop.

from studio_support import CHROMIUM, CHROMIUM_ARGS, PHOTO_SIZE, SAFARI_SURFACE, VIEWPORT, Studio  # noqa: E402


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    """A 1920x1280 photo: the bundled rocket, resized with Lanczos, stored losslessly. Without its
    Adobe RGB profile: the studio would (rightly) convert the pixels to sRGB, and the formulas below
    work on the stored values."""
    path = tmp_path_factory.mktemp("photo") / "rocket-1920.png"
    pixels = np.asarray(Image.open(PHOTOS / "rocket.jpg").convert("RGB").resize(PHOTO_SIZE, Image.LANCZOS))
    Image.fromarray(pixels).save(path)   # a fresh image: no icc_profile carried over
    return path


@pytest.fixture(scope="module")
def photo_pixels(photo):
    return np.asarray(Image.open(photo).convert("RGB"))


@pytest.fixture
def studio(sfumato, photo, tmp_path):
    server = Studio(sfumato, photo, tmp_path).start()
    yield server
    server.stop()


# ---------------------------------------------------------------------------------------------------
# The browser: one Chromium for the module, one asyncio loop to drive it.

@pytest.fixture(scope="module")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def browser(loop):
    playwright = loop.run_until_complete(async_playwright().start())
    chromium = loop.run_until_complete(playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS))
    yield chromium
    loop.run_until_complete(chromium.close())
    loop.run_until_complete(playwright.stop())


@pytest.fixture
def api_surface():
    """The browser APIs the page finds: "full" (Chromium's own), or "safari" (iPadOS 17's, see
    studio_support.SAFARI_SURFACE). A test module runs under both by overriding this fixture."""
    return "full"


@pytest.fixture
def run(loop, browser, api_surface):
    """Runs a scenario coroutine scenario(context) in a fresh browser context (closed afterwards)."""
    def run_scenario(scenario, timeout=120):
        async def wrapped():
            context = await browser.new_context(viewport=VIEWPORT)
            if api_surface == "safari":
                await context.add_init_script(SAFARI_SURFACE)
            try:
                return await scenario(context)
            finally:
                await context.close()
        return loop.run_until_complete(asyncio.wait_for(wrapped(), timeout))
    return run_scenario
