"""The test images every tool gets."""
from __future__ import annotations

import os
from pathlib import Path

from .common import ROOT, WORK, Image, ImageOps, log

# ---------------------------------------------------------------------------------------------
# Test images


def source_photo() -> Path:
    """The photo the benchmark images are resampled from: the first of SFUMATO_EXTRA_PHOTOS (photos that
    may be measured but not shipped) when set, else the bundled rocket."""
    for extra in os.environ.get("SFUMATO_EXTRA_PHOTOS", "").split(":"):
        if extra and Path(extra).is_file():
            return Path(extra)
    return ROOT / "Tests" / "Fixtures" / "photos" / "rocket.jpg"


def make_image(src: Path, w: int, h: int, png: bool = True) -> tuple[Path, Path | None]:
    """Resamples the photo to w x h (Pillow LANCZOS), saved as JPEG q90 (and PNG) without a colour
    profile, so that every tool reads the same values (Sfumato converts profiled pixels to sRGB on
    reading; the peers take the numbers as they are); cached."""
    WORK.mkdir(parents=True, exist_ok=True)
    stem = WORK / f"{src.stem}-{w}x{h}-plain"
    jpg, pngp = stem.with_suffix(".jpg"), (stem.with_suffix(".png") if png else None)
    need = [p for p in (jpg, pngp) if p is not None and (not p.exists() or p.stat().st_mtime < src.stat().st_mtime)]
    if need:
        log(f"making {w}x{h} test image{'s' if len(need) > 1 else ''} from {src.name} ...")
        im = Image.open(src)
        im = ImageOps.exif_transpose(im).convert("RGB").resize((w, h), Image.LANCZOS)
        im.info.pop("icc_profile", None)
        for p in need:
            tmp = p.with_name(p.stem + ".tmp" + p.suffix)
            if p.suffix == ".jpg":
                im.save(tmp, "JPEG", quality=90)
            else:
                im.save(tmp, "PNG")
            os.replace(tmp, p)
    return jpg, pngp


