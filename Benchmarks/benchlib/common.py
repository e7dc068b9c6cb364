"""What every part shares: paths, the tools, the peers' modules (a missing one becomes a column of dashes)."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]   # benchlib/ is in Benchmarks/, in the repository
WORK = ROOT / "Benchmarks" / "work"
CORES = os.cpu_count() or 1
os.environ.setdefault("VIPS_CONCURRENCY", str(CORES))  # before pyvips loads libvips

import numpy as np  # noqa: E402,F401  (required; the parts import it from here, after VIPS_CONCURRENCY)

PEERS = ["opencv", "libvips", "pillow"]
TOOLS = ["sfumato"] + PEERS
LABEL = {"sfumato": "Sfumato", "opencv": "OpenCV", "libvips": "libvips", "pillow": "Pillow"}

_import_errors: dict[str, str] = {}
try:
    import cv2
except Exception as e:  # a missing peer becomes a column of dashes, not a failure
    cv2 = None
    _import_errors["opencv"] = f"import cv2 failed: {e}"
try:
    import pyvips
except Exception as e:
    pyvips = None
    _import_errors["libvips"] = f"import pyvips failed: {e}"
try:
    import PIL
    from PIL import Image, ImageChops, ImageFilter, ImageOps, ImageStat  # noqa: F401  (for the parts)
except Exception as e:
    PIL = None
    Image = ImageChops = ImageFilter = ImageOps = ImageStat = None
    _import_errors["pillow"] = f"import PIL failed: {e}"


class SfumatoFailure(RuntimeError):
    """Sfumato itself failed: the run is aborted (a peer failing only blanks its cell)."""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def wait_for_binary(path: Path, timeout: float = 180.0) -> Path:
    """The binaries may vanish for a moment while they are rebuilt: wait for them."""
    deadline = time.monotonic() + timeout
    warned = False
    while not (path.is_file() and os.access(path, os.X_OK)):
        if time.monotonic() > deadline:
            raise SfumatoFailure(f"{path} not found (build it: swift build -c release "
                                 f"--product sfumato --product sfumato-bench)")
        if not warned:
            log(f"waiting for {path} to appear ...")
            warned = True
        time.sleep(2)
    return path

