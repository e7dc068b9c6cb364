import os
import pathlib
import subprocess

import pytest

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
