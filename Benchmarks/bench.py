#!/usr/bin/env python3
"""Sfumato benchmark harness: times Sfumato against OpenCV, libvips (pyvips) and Pillow.

Run it through scripts/bench (which makes the virtual environment and builds the binaries):

    scripts/bench            # full: 6000x4000 images, 7 rounds, plus a ~100 MP end-to-end run
    scripts/bench --quick    # 1920x1280 images, 3 rounds, a 25 MP end-to-end run (under 2 minutes)

Every row runs Sfumato and each peer in the same process run, interleaved round by round
(Sfumato, OpenCV, libvips, Pillow, then the next round), after warm-up rounds, and reports
medians. Sfumato is timed inside `sfumato-bench` (one long-lived process, monotonic clock,
`RenderContext.render` allocating its output, as the peers' calls do); the peers are timed here
with time.perf_counter() around the call. End-to-end rows start a whole process per run and record wall time and peak RSS
(wait4 rusage of that child, spawned by a small launcher process).

Every filter `sfumato filters` lists gets at least one row (a missing one is warned about and named in
the report). The two that take a second image (CISourceOverCompositing, histogram-specification) can't
be loaded by sfumato-bench's `filter` command, so they are timed as whole `sfumato apply` processes,
with and without the filter. The "fusion off" rows need sfumato-bench's `fusion on|off` command; an
older sfumato-bench without it stops the run at the start with a message saying so.

Writes BENCHMARKS.md (repository root) and Benchmarks/results.json.
"""
from __future__ import annotations

import argparse
import datetime
import io
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "Benchmarks" / "work"
CORES = os.cpu_count() or 1
os.environ.setdefault("VIPS_CONCURRENCY", str(CORES))  # before pyvips loads libvips

import numpy as np  # noqa: E402  (required)

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
    from PIL import Image, ImageFilter, ImageOps
except Exception as e:
    PIL = None
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


# ---------------------------------------------------------------------------------------------
# sfumato-bench: the in-process timing server


class SfumatoBench:
    def __init__(self, binary: Path, threads: int):
        self.binary = binary
        self.stderr = tempfile.TemporaryFile(mode="w+")
        for attempt in range(10):
            wait_for_binary(binary)
            try:
                self.proc = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                             stderr=self.stderr, text=True, bufsize=1)
                break
            except (FileNotFoundError, OSError) as e:  # ETXTBSY while the linker writes it
                if attempt == 9:
                    raise SfumatoFailure(f"cannot start {binary}: {e}") from e
                time.sleep(3)
        self.command(f"threads {threads}")

    def command(self, line: str) -> str:
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline()
        except (BrokenPipeError, OSError):
            reply = ""
        if not reply:
            rc = self.proc.poll()
            self.stderr.seek(0)
            err = self.stderr.read()
            if len(err) > 1500:  # a Swift crash report: its first lines say what went wrong
                err = err[:1500] + "\n..."
            raise SfumatoFailure(f"sfumato-bench died (exit {rc}) on `{line}`\n{err}")
        reply = reply.rstrip("\n")
        if reply.startswith("error"):
            raise SfumatoFailure(f"sfumato-bench: `{line}` -> {reply}")
        return reply

    def ms(self, line: str) -> float:
        reply = self.command(line)
        if not reply.startswith("ms "):
            raise SfumatoFailure(f"sfumato-bench: `{line}` -> unexpected reply {reply!r}")
        return float(reply.split()[1])

    def explain(self, line: str) -> str:
        first = self.command(line)
        lines = [first]
        while lines[-1] != "end":
            nxt = self.proc.stdout.readline()
            if not nxt:
                raise SfumatoFailure(f"sfumato-bench died during `{line}`")
            lines.append(nxt.rstrip("\n"))
        return "\n".join(lines[:-1])

    def close(self) -> None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


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
    """Resamples the photo to w x h (Pillow LANCZOS), saved as JPEG q90 (and PNG); cached."""
    WORK.mkdir(parents=True, exist_ok=True)
    stem = WORK / f"{src.stem}-{w}x{h}"
    jpg, pngp = stem.with_suffix(".jpg"), (stem.with_suffix(".png") if png else None)
    need = [p for p in (jpg, pngp) if p is not None and (not p.exists() or p.stat().st_mtime < src.stat().st_mtime)]
    if need:
        log(f"making {w}x{h} test image{'s' if len(need) > 1 else ''} from {src.name} ...")
        im = Image.open(src)
        im = ImageOps.exif_transpose(im).convert("RGB").resize((w, h), Image.LANCZOS)
        for p in need:
            tmp = p.with_name(p.stem + ".tmp" + p.suffix)
            if p.suffix == ".jpg":
                im.save(tmp, "JPEG", quality=90)
            else:
                im.save(tmp, "PNG")
            os.replace(tmp, p)
    return jpg, pngp


# ---------------------------------------------------------------------------------------------
# Maths shared by the peers


def pencil_affine(angle=1.0, saturation=2.0, brightness=0.1, contrast=1.2, ev=0.5):
    """The PencilController colour chain up to the gamma as one affine map on 0..1 RGB:
    hue rotation (Rodrigues about the grey axis), saturation about Rec.709 luma, brightness add,
    contrast about 0.5, exposure x 2^EV.  Returns (A 3x3, o 3)."""
    c, s, a = math.cos(angle), math.sin(angle), 1 / math.sqrt(3)
    t = (1 - c) / 3
    hue = np.array([[c + t, t - s * a, t + s * a],
                    [t + s * a, c + t, t - s * a],
                    [t - s * a, t + s * a, c + t]])
    luma = np.array([0.2125, 0.7154, 0.0721])
    sat = saturation * np.eye(3) + (1 - saturation) * np.outer(np.ones(3), luma)
    e = 2.0 ** ev
    A = e * contrast * sat @ hue
    o = e * (contrast * brightness + 0.5 * (1 - contrast)) * np.ones(3)
    return A, o


def to_bgr(A: np.ndarray, o: np.ndarray, scale: float) -> np.ndarray:
    """An RGB affine map as the 3x4 matrix cv2.transform wants for BGR pixels."""
    p = [2, 1, 0]
    return np.hstack([A[np.ix_(p, p)], (o[p] * scale)[:, None]]).astype(np.float32)


def gamma_lut(power: float) -> np.ndarray:
    return np.clip(np.round(255 * (np.arange(256) / 255.0) ** power), 0, 255).astype(np.uint8)


def natural_cubic_spline(xs, ys):
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    n = len(xs)
    h = np.diff(xs)
    m = np.zeros((n, n))
    r = np.zeros(n)
    m[0, 0] = m[-1, -1] = 1
    for i in range(1, n - 1):
        m[i, i - 1], m[i, i], m[i, i + 1] = h[i - 1], 2 * (h[i - 1] + h[i]), h[i]
        r[i] = 6 * ((ys[i + 1] - ys[i]) / h[i] - (ys[i] - ys[i - 1]) / h[i - 1])
    M = np.linalg.solve(m, r)

    def f(x):
        x = np.asarray(x, float)
        i = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, n - 2)
        x0, x1, hh = xs[i], xs[i + 1], h[i]
        return (M[i] * (x1 - x) ** 3 / (6 * hh) + M[i + 1] * (x - x0) ** 3 / (6 * hh)
                + (ys[i] / hh - M[i] * hh / 6) * (x1 - x) + (ys[i + 1] / hh - M[i + 1] * hh / 6) * (x - x0))
    return f


TONE_POINTS = [(0, 0), (0.25, 0.35), (0.5, 0.6), (0.75, 0.85), (1, 1)]


def tone_curve_lut() -> np.ndarray:
    f = natural_cubic_spline([p[0] for p in TONE_POINTS], [p[1] for p in TONE_POINTS])
    q = np.clip(f(np.sqrt(np.arange(256) / 255.0)), 0, 1)
    return np.clip(np.round(255 * q * q), 0, 255).astype(np.uint8)


DISC = np.array([[1 if math.hypot(i - 7.5, j - 7.5) < 7 else 0 for j in range(15)] for i in range(15)], np.uint8)
SHARPEN = [-0.5, -1, -0.5, -1, 7, -1, -0.5, -1, -0.5]
PENCIL_SPECS = ("CIHueAdjust:inputAngle=1 CIColorControls:inputSaturation=2,inputBrightness=0.1,"
                "inputContrast=1.2 CIExposureAdjust:inputEV=0.5 CIGammaAdjust:inputPower=1.5")
TONE_SPEC = ("CIToneCurve:inputPoint0=[0;0],inputPoint1=[0.25;0.35],inputPoint2=[0.5;0.6],"
             "inputPoint3=[0.75;0.85],inputPoint4=[1;1]")


# ---------------------------------------------------------------------------------------------
# Rows


@dataclass
class Row:
    group: str
    op: str
    image: str
    computes: str
    tools: dict[str, Callable] = field(default_factory=dict)  # sfumato -> returns ms; peers -> timed here
    details: str = ""  # the long description, for the Notes
    excluded: set[str] = field(default_factory=set)  # computes something else: shown, not ranked
    notes: list[str] = field(default_factory=list)
    samples: dict[str, list[float]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    filters: tuple[str, ...] = ()  # the Sfumato filters the row runs, as `sfumato filters` names them
    needs: set[str] = field(default_factory=set)  # sfumato-bench commands beyond the basic ones (e.g. fusion)
    pair: str | None = None  # the op of the row this one is compared with (fusion off vs on)
    cli: dict[str, list[str]] = field(default_factory=dict)  # whole-process commands, timed when the bench can't
    cli_samples: dict[str, list[float]] = field(default_factory=dict)
    quick_skip: dict[str, str] = field(default_factory=dict)  # peer -> why quick mode leaves it out (slow)


_KEEPALIVE: list = []

# Row groups, in table order.
G_CI_COLOUR, G_CI_BLUR, G_GALLERY, G_CODECS = "Core Image: colour", "Core Image: blur", "Gallery filters", "Codecs"
GROUPS = [G_CI_COLOUR, G_CI_BLUR, G_GALLERY, G_CODECS]

# CIColorMatrix: sepia rows plus a small bias (the general affine path, not the bias-free linear one).
SEPIA = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
SEPIA_BIAS = np.array([0.02, 0.01, -0.02])
COLOR_MATRIX_SPEC = ("CIColorMatrix:" + ",".join(
    f"input{c}Vector=[" + ";".join(f"{x:g}" for x in list(SEPIA[i]) + [0]) + "]" for i, c in enumerate("RGB"))
    + ",inputBiasVector=[" + ";".join(f"{x:g}" for x in list(SEPIA_BIAS) + [0]) + "]")


def reference_image(jpg: Path) -> Path:
    """A JPEG with another histogram (the photo through a gamma 0.6 table), for histogram-specification."""
    ref = jpg.with_name(jpg.stem + "-reference.jpg")
    if not ref.exists() or ref.stat().st_mtime < jpg.stat().st_mtime:
        im = Image.open(jpg).convert("RGB")
        lut = [round(255 * (v / 255) ** 0.6) for v in range(256)]
        tmp = ref.with_name(ref.stem + ".tmp.jpg")
        im.point(lut * 3).save(tmp, "JPEG", quality=90)
        os.replace(tmp, ref)
    return ref


def build_rows(srv: SfumatoBench, cli_bin: Path, jpg: Path, png: Path, w: int, h: int) -> list[Row]:
    size = f"{w}×{h}"
    log(f"loading {png.name} into each tool ...")
    loaded = srv.command(f"load img {png}")
    if loaded != f"ok {w} {h}":
        raise SfumatoFailure(f"sfumato-bench loaded {png.name} as `{loaded}`, expected `ok {w} {h}`")
    srv.command(f"bytes jpg {jpg}")
    srv.command(f"bytes png {png}")
    jpg_bytes, png_bytes = jpg.read_bytes(), png.read_bytes()

    bgr = gray = rgb = vimg = vgray = vfloat = pim = pgray = f32 = None
    if cv2 is not None:
        bgr = cv2.imread(str(png), cv2.IMREAD_COLOR)
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        f32 = bgr.astype(np.float32) / 255
        rgb = np.ascontiguousarray(bgr[:, :, ::-1])
    else:
        rgb = np.asarray(Image.open(png).convert("RGB"))
    # The grey image every tool works on in the grey rows: OpenCV's BT.601 conversion, written
    # as a PNG that sfumato-bench keeps as Gray8 (R = G = B, so its luminance is that grey).
    # Without OpenCV, Pillow's convert("L") (the same BT.601 weights) makes it.
    gray_png = png.with_name(png.stem + "-gray.png")
    if gray is None:
        gray = np.asarray(Image.open(png).convert("L"))
    Image.fromarray(gray, "L").save(gray_png)
    loaded = srv.command(f"load-gray gimg {gray_png}")
    if loaded != f"ok {w} {h}":
        raise SfumatoFailure(f"sfumato-bench loaded the grey image as `{loaded}`, expected `ok {w} {h}`")
    if pyvips is not None:
        # copy_memory() of an image that is already in memory returns the same VipsImage without
        # pyvips' reference to the buffer, so the buffer must be kept alive here (else: use after free).
        vbuf = rgb.tobytes()
        _KEEPALIVE.append(vbuf)
        vimg = pyvips.Image.new_from_memory(vbuf, w, h, 3, "uchar")
        if abs(vimg.avg() - float(rgb.mean())) > 1e-3:
            raise RuntimeError("libvips does not see the same pixels as OpenCV and Pillow")
        vgray = vimg.colourspace("b-w").copy_memory()
        vfloat = (vimg.cast("float") / 255).copy_memory()
    if PIL is not None:
        pim = Image.fromarray(rgb, "RGB")
        pim.load()
        pgray = Image.fromarray(gray, "L")
        pgray.load()

    def S(cmd: str):
        return lambda: srv.ms(cmd)

    def F(ws: str, out: str, specs: str):
        return S(f"filter img {ws} {out} {specs}")

    def G(specs: str):
        """Sfumato on the Gray8 image, out to Gray8, one byte a pixel (the none working space)."""
        return S(f"filter gimg none gray {specs}")

    def unfused(ws: str, out: str, specs: str):
        """The same render with fusion of consecutive point filters turned off for it alone."""
        def run():
            srv.command("fusion off")
            try:
                return srv.ms(f"filter img {ws} {out} {specs}")
            finally:
                srv.command("fusion on")
        return run

    def have(**kw):
        return {k: v for k, v in kw.items() if v is not None and (k == "sfumato" or k not in _import_errors)}

    cv_ok, vips_ok, pil_ok = cv2 is not None, pyvips is not None, PIL is not None
    A, o = pencil_affine()
    m8, mf = (to_bgr(A, o, 255.0), to_bgr(A, o, 1.0)) if cv_ok else (None, None)
    glut = gamma_lut(1.5)
    vglut = pyvips.Image.new_from_array(glut.reshape(1, 256).tolist()) if vips_ok else None
    tlut = tone_curve_lut()
    rows: list[Row] = []
    img = f"{size} photo"
    rep = cv2.BORDER_REPLICATE if cv_ok else None

    def affine_row(op: str, filt: str, spec: str, A3: np.ndarray, o3: np.ndarray, computes: str, details: str):
        """An 8-bit colour row whose maths is one affine map on encoded RGB: cv2.transform (3×3 when there is
        no offset, else 3×4), pyvips recomb (+ linear for the offset) + cast, Pillow convert(matrix)."""
        m = to_bgr(A3, o3, 255.0) if cv_ok else None
        if m is not None and not np.any(o3):
            m = np.ascontiguousarray(m[:, :3])
        pm = tuple(float(x) for x in np.hstack([A3, (o3 * 255)[:, None]]).ravel())

        def vips_affine():
            x = vimg.recomb(A3.tolist())
            if np.any(o3):
                x = x.linear([1, 1, 1], (o3 * 255).tolist())
            return x.cast("uchar").copy_memory()
        rows.append(Row(G_CI_COLOUR, op, img, computes, details=details, filters=(filt,), tools=have(
            sfumato=F("none", "rgba8", spec),
            opencv=cv_ok and (lambda: cv2.transform(bgr, m)) or None,
            libvips=vips_ok and vips_affine or None,
            pillow=pil_ok and (lambda: pim.convert("RGB", matrix=pm)) or None)))

    # ---- Core Image: colour -------------------------------------------------------------------
    colour_details = ("Core Image colour filters on their own, 8-bit, `none rgba8` (encoded values; Sfumato compiles "
                      "a lone 8-bit point filter to a 4×4 matrix or one 256-entry table per channel). A colour "
                      "matrix is cv2.transform (3×3, or 3×4 with an offset; BGR order), pyvips recomb (+ linear for "
                      "the offset) + cast uchar, Pillow convert('RGB', matrix); a per-channel function is cv2.LUT, "
                      "pyvips maplut (faster here than `** p` on a float image) and Pillow point, with a table "
                      "computed in Python. The peers clip to 0..255 as Sfumato does. Checked against `sfumato apply` on the test photo: "
                      "OpenCV's results match Sfumato's within 1 level (matrices) or exactly (tables).")
    Ah, oh = pencil_affine(angle=1.0, saturation=1.0, brightness=0.0, contrast=1.0, ev=0.0)
    affine_row("Hue adjust, angle 1", "CIHueAdjust", "CIHueAdjust:inputAngle=1", Ah, oh,
               "8-bit; rotation about the grey axis = one 3×3 matrix; RGBA vs RGB", colour_details)
    Ac, oc = pencil_affine(angle=0.0, saturation=2.0, brightness=0.1, contrast=1.2, ev=0.0)
    affine_row("Colour controls (sat 2, bright 0.1, contrast 1.2)", "CIColorControls",
               "CIColorControls:inputSaturation=2,inputBrightness=0.1,inputContrast=1.2", Ac, oc,
               "8-bit; saturation about Rec.709 luma, brightness add, contrast about 0.5 = one 3×4 matrix; RGBA vs RGB",
               colour_details)
    ev = 2 ** 0.5
    rows.append(Row(G_CI_COLOUR, "Exposure, EV 0.5", img,
                    "8-bit; ×2^0.5 per channel; OpenCV a 3×3 diagonal cv2.transform, vips linear, Pillow a table; "
                    "RGBA vs RGB",
                    details="Exposure: Sfumato CIExposureAdjust EV 0.5 (`none rgba8`: one table per channel). "
                    "cv2.transform with the diagonal 3×3 matrix 2^0.5·I (as fast as convertScaleAbs here, faster "
                    "than cv2.LUT); pyvips linear(2^0.5, 0) + cast uchar (faster than recomb or linear(uchar=True) "
                    "here); Pillow point with the 256-entry table.", filters=("CIExposureAdjust",), tools=have(
        sfumato=F("none", "rgba8", "CIExposureAdjust:inputEV=0.5"),
        opencv=cv_ok and (lambda m=(np.eye(3, dtype=np.float32) * np.float32(ev)): cv2.transform(bgr, m)) or None,
        libvips=vips_ok and (lambda: vimg.linear(ev, 0).cast("uchar").copy_memory()) or None,
        pillow=pil_ok and (lambda t=[min(255, round(v * ev)) for v in range(256)] * 3: pim.point(t)) or None)))
    rows.append(Row(G_CI_COLOUR, "Gamma, power 1.5", img,
                    "8-bit; v^1.5 per channel; peers one 256-entry table on RGB",
                    details=colour_details, filters=("CIGammaAdjust",), tools=have(
        sfumato=F("none", "rgba8", "CIGammaAdjust:inputPower=1.5"),
        opencv=cv_ok and (lambda: cv2.LUT(bgr, glut)) or None,
        libvips=vips_ok and (lambda: vimg.maplut(vglut).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.point(list(glut) * 3)) or None)))
    vtlut = pyvips.Image.new_from_array(tlut.reshape(1, 256).tolist()) if vips_ok else None
    rows.append(Row(G_CI_COLOUR, "Tone curve (5 points)", img,
                    "8-bit; Sfumato CIToneCurve on RGBA; peers the same 256-entry table on RGB",
                    details="Tone curve: Sfumato CIToneCurve through (0,0) (.25,.35) (.5,.6) (.75,.85) (1,1), "
                    "`none rgba8` (it compiles an 8-bit source to one 256-entry table per channel). The peers apply a "
                    "table computed in Python (natural cubic spline f, q = f(√v), out = q²; identical to Sfumato's "
                    "output on the test photo): cv2.LUT, pyvips maplut, Pillow point.", filters=("CIToneCurve",),
                    tools=have(
        sfumato=F("none", "rgba8", TONE_SPEC),
        opencv=cv_ok and (lambda: cv2.LUT(bgr, tlut)) or None,
        libvips=vips_ok and (lambda: vimg.maplut(vtlut).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.point(list(tlut) * 3)) or None)))
    affine_row("Colour matrix (sepia + bias)", "CIColorMatrix", COLOR_MATRIX_SPEC, SEPIA, SEPIA_BIAS,
               "8-bit; 3×3 sepia matrix + bias = one 3×4 matrix (alpha row identity); RGBA vs RGB",
               "Colour matrix: CIColorMatrix with the rows R [.393 .769 .189 0], G [.349 .686 .168 0], "
               "B [.272 .534 .131 0] (sepia), A identity, bias [.02 .01 −.02 0] (with a bias Sfumato takes its general "
               "affine path, not the bias-free linear one); the peers as for the other colour matrices.")
    # Filters with an image parameter: sfumato-bench's `filter` spec can't name a second image, so
    # these are timed as whole `sfumato apply` processes, with and without the filter.
    out_jpg = str(WORK / "cli-out.jpg")
    base_cmd = [str(cli_bin), "apply", str(jpg), "-o", out_jpg, "--working-space", "none"]
    rows.append(Row(G_CI_COLOUR, "Source over", f"{size} JPEG over itself",
                    "not timed in memory: sfumato-bench can't load the background image",
                    details="Source over: sfumato-bench's `filter` specs take no image parameters, so "
                    "CISourceOverCompositing is timed as a whole process, `sfumato apply IN.jpg -o OUT.jpg "
                    "-f source-over:background=IN.jpg --working-space none`, against the same command without the "
                    "filter; the difference is the background's decode plus the composite (the foreground is "
                    "opaque, so the result is the foreground; the per-pixel work is the same). No peer is timed: "
                    "with no Sfumato time in memory there is nothing to rank.", filters=("CISourceOverCompositing",),
                    cli={"with": base_cmd + ["-f", f"source-over:background={jpg}"], "without": base_cmd}))
    rows.append(Row(G_CI_COLOUR, "PencilController chain, 8-bit", img,
                    "8-bit, encoded values; Sfumato fused float point pass on RGBA; peers one 3×4 matrix "
                    "(saturates to 0..255) then gamma LUT on RGB",
                    details="PencilController chain (CIHueAdjust angle 1, CIColorControls saturation 2 / brightness "
                    "0.1 / contrast 1.2, CIExposureAdjust EV 0.5, CIGammaAdjust power 1.5), 8-bit: Sfumato `none "
                    "rgba8` fuses the four filters into one float point pass and rounds once. The peers get the "
                    "first five steps folded into one 3×4 matrix (hue rotation about the grey axis, saturation about "
                    "Rec.709 luma, brightness add, contrast about 0.5, ×2^EV; permuted for OpenCV's BGR): "
                    "cv2.transform, which saturates to 0..255 *before* the gamma, then cv2.LUT; vips recomb + linear "
                    "+ cast uchar (clips) + maplut; Pillow convert('RGB', matrix) (clips) + point(LUT). The fused "
                    "OpenCV result matches Sfumato's within 2 levels.",
                    filters=("CIHueAdjust", "CIColorControls", "CIExposureAdjust", "CIGammaAdjust"), tools=have(
        sfumato=F("none", "rgba8", PENCIL_SPECS),
        opencv=cv_ok and (lambda: cv2.LUT(cv2.transform(bgr, m8), glut)) or None,
        libvips=vips_ok and (lambda: vimg.recomb(A.tolist()).linear([1, 1, 1], (o * 255).tolist())
                             .cast("uchar").maplut(vglut).copy_memory()) or None,
        pillow=pil_ok and (lambda pm=tuple(float(x) for x in np.hstack([A, (o * 255)[:, None]]).ravel()):
                           pim.convert("RGB", matrix=pm).point(list(glut) * 3)) or None)))
    unfused_details = ("PencilController chain, fusion off: Sfumato only. The same four filters and render as the "
                       "fused row above it, after sfumato-bench `fusion off` (sent before each render, `fusion on` "
                       "after): each point filter is its own pass (as `sfumato apply --no-fusion`), so the "
                       "difference between the two rows is what fusion saves.")
    rows.append(Row(G_CI_COLOUR, "PencilController chain, 8-bit, fusion off", img,
                    "Sfumato only: the same chain as four separate point passes (`fusion off`); compare with the row above",
                    details=unfused_details, needs={"fusion"}, pair="PencilController chain, 8-bit",
                    filters=("CIHueAdjust", "CIColorControls", "CIExposureAdjust", "CIGammaAdjust"),
                    tools={"sfumato": unfused("none", "rgba8", PENCIL_SPECS)}))
    rows.append(Row(G_CI_COLOUR, "PencilController chain, float", img,
                    "float32 in/out, no clamping; Sfumato linear-light premultiplied RGBA; peers encoded RGB/255",
                    details="PencilController chain, float: Sfumato `linear float` takes and returns premultiplied "
                    "linear-light RGBA Float32 (its float copy of the image is linear, so no transfer functions run; "
                    "matrix, unpremultiply, pow). libvips: one recomb + linear (the offset) + pow 1.5 on a 3-band "
                    "float image of the *encoded* values / 255 (not linearised; pow gives NaN below 0). OpenCV: "
                    "cv2.transform with the 3×4 float matrix + cv2.pow (|x|^1.5) on the same 3-channel float image.",
                    filters=("CIHueAdjust", "CIColorControls", "CIExposureAdjust", "CIGammaAdjust"), tools=have(
        sfumato=F("linear", "float", PENCIL_SPECS),
        opencv=cv_ok and (lambda: cv2.pow(cv2.transform(f32, mf), 1.5)) or None,
        libvips=vips_ok and (lambda: (vfloat.recomb(A.tolist()).linear([1, 1, 1], o.tolist()) ** 1.5)
                             .copy_memory()) or None),
        notes=["Pillow has no multi-band float images."]))
    rows.append(Row(G_CI_COLOUR, "PencilController chain, float, fusion off", img,
                    "Sfumato only: the same float chain as four separate point passes (`fusion off`); compare with "
                    "the row above", details=unfused_details, needs={"fusion"}, pair="PencilController chain, float",
                    filters=("CIHueAdjust", "CIColorControls", "CIExposureAdjust", "CIGammaAdjust"),
                    tools={"sfumato": unfused("linear", "float", PENCIL_SPECS)}))

    # ---- Core Image: blur ---------------------------------------------------------------------
    r2 = 6  # 3σ for σ = 2
    rows.append(Row(G_CI_BLUR, "Gaussian blur σ=2, Core Image edges", img,
                    "8-bit; transparent outside (CI rule); Sfumato RGBA (alpha falls off at the edges), OpenCV & "
                    "vips zero outside on RGB, Pillow clamps",
                    details="CIGaussianBlur: the Core Image name keeps Core Image's edge rule (transparent outside, "
                    "the extent grows by 3σ; rendered over the input's rectangle, so the edge pixels turn partly "
                    "transparent), where the gallery's `gaussian-blur` clamps. Sfumato `CIGaussianBlur:inputRadius=2` "
                    "in `none rgba8`; cv2.GaussianBlur(σ 2, BORDER_CONSTANT) (zero outside, which is the "
                    "premultiplied colour of CI's result, without its alpha); pyvips embed 6 px of black + gaussblur "
                    "+ crop; Pillow GaussianBlur(2), which has no zero-edge option (edges as the clamp rows).",
                    filters=("CIGaussianBlur",), tools=have(
        sfumato=F("none", "rgba8", "CIGaussianBlur:inputRadius=2"),
        opencv=cv_ok and (lambda: cv2.GaussianBlur(bgr, (0, 0), 2, borderType=cv2.BORDER_CONSTANT)) or None,
        libvips=vips_ok and (lambda: vimg.embed(r2, r2, w + 2 * r2, h + 2 * r2).gaussblur(2)
                             .crop(r2, r2, w, h).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.GaussianBlur(radius=2))) or None)))
    median_details = ("Median: Sfumato `median:diameter=D` and CIMedianFilter (3×3, clamped edges); cv2.medianBlur "
                      "(replicated border); pyvips median (rank); Pillow MedianFilter (single-threaded).")
    rows.append(Row(G_CI_BLUR, "Median 3×3, Core Image", img,
                    "8-bit per channel, clamp; RGBA vs RGB", details=median_details, filters=("CIMedianFilter",),
                    quick_skip={"libvips": "the same call is timed in the Median 3×3 row",
                                "pillow": "the same call is timed in the Median 3×3 row"}, tools=have(
        sfumato=F("none", "rgba8", "CIMedianFilter"),
        opencv=cv_ok and (lambda: cv2.medianBlur(bgr, 3)) or None,
        libvips=vips_ok and (lambda: vimg.median(3).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.MedianFilter(3))) or None)))

    # ---- Gallery filters ----------------------------------------------------------------------
    for sigma in (2, 10):
        rows.append(Row(G_GALLERY, f"Gaussian blur σ={sigma}", img,
                        "8-bit, clamp; Sfumato & OpenCV ±3σ, vips ±1.8σ integer taps, Pillow box approx.; RGBA vs RGB",
                        details="Gaussian blur: Sfumato `gaussian-blur` in `none rgba8` (separable, radius 3σ, "
                        "float taps, clamped edges); cv2.GaussianBlur(ksize=(0,0), σ, BORDER_REPLICATE) (radius 3σ "
                        "for 8-bit); pyvips gaussblur(σ): integer taps and the kernel cut where it falls below "
                        "min_ampl 0.2 (about ±1.8σ), so it does less work and blurs less far; edges copied. Pillow "
                        "GaussianBlur(radius=σ) approximates the Gaussian with extended box blurs.",
                        filters=("gaussian-blur",), tools=have(
            sfumato=F("none", "rgba8", f"gaussian-blur:radius={sigma}"),
            opencv=cv_ok and (lambda s=sigma: cv2.GaussianBlur(bgr, (0, 0), s, borderType=rep)) or None,
            libvips=vips_ok and (lambda s=sigma: vimg.gaussblur(s).copy_memory()) or None,
            pillow=pil_ok and (lambda s=sigma: pim.filter(ImageFilter.GaussianBlur(radius=s))) or None)))
    for d in (3, 5, 7):
        rows.append(Row(G_GALLERY, f"Median {d}×{d}", img,
                        "8-bit per channel, clamp; RGBA vs RGB", details=median_details, filters=("median",),
                        tools=have(
            sfumato=F("none", "rgba8", f"median:diameter={d}"),
            opencv=cv_ok and (lambda d=d: cv2.medianBlur(bgr, d)) or None,
            libvips=vips_ok and (lambda d=d: vimg.median(d).copy_memory()) or None,
            pillow=pil_ok and (lambda d=d: pim.filter(ImageFilter.MedianFilter(d))) or None)))

    def cv_sobel(src):
        gx = cv2.Sobel(src, cv2.CV_32F, 1, 0, ksize=3, borderType=rep)
        gy = cv2.Sobel(src, cv2.CV_32F, 0, 1, ksize=3, borderType=rep)
        return cv2.convertScaleAbs(cv2.magnitude(gx, gy))

    rows.append(Row(G_GALLERY, "Sobel magnitude, per channel", img,
                    "8-bit, √(Gx²+Gy²) per channel, clamp; RGBA vs RGB",
                    details="Sobel: Sfumato `sobel` = sqrt(Gx²+Gy²) with the 3×3 kernels per channel on RGBA (alpha "
                    "kept), on a Gray8 image for the grey row (`sobel:grey=true` computes BT.601 luma of RGBA inside "
                    "the same pass instead). OpenCV: cv2.Sobel dx and dy "
                    "(CV_32F, BORDER_REPLICATE) + cv2.magnitude + convertScaleAbs, on 3 channels or on a "
                    "pre-converted grey image (how the issue's targets were quoted). pyvips sobel (libvips' 8-bit "
                    "low-precision path). Pillow has no Sobel.", filters=("sobel",), tools=have(
        sfumato=F("none", "rgba8", "sobel"),
        opencv=cv_ok and (lambda: cv_sobel(bgr)) or None,
        libvips=vips_ok and (lambda: vimg.sobel().copy_memory()) or None),
        notes=["Pillow has no Sobel (FIND_EDGES is a different kernel)."]))
    rows.append(Row(G_GALLERY, "Sobel magnitude, grey", f"{img}, 1-channel grey",
                    "8-bit; Sfumato Gray8 in and out, OpenCV & vips the same grey image",
                    filters=("sobel",), tools=have(
        sfumato=G("sobel"),
        opencv=cv_ok and (lambda: cv_sobel(gray)) or None,
        libvips=vips_ok and (lambda: vgray.sobel().copy_memory()) or None)))
    lap = [[0, 1, 0], [1, -4, 1], [0, 1, 0]]
    vlap = pyvips.Image.new_from_array(lap) if vips_ok else None
    rows.append(Row(G_GALLERY, "Laplacian 3×3, per channel", img,
                    "8-bit, negatives → 0, clamp; RGBA vs RGB",
                    details="Laplacian: kernel [0 1 0; 1 −4 1; 0 1 0], negatives saturate to 0. Sfumato `laplacian` "
                    "(per channel, RGBA); cv2.Laplacian(ksize=1, ddepth CV_8U, BORDER_REPLICATE) on 3 channels or on "
                    "grey (the issue's target); pyvips conv (integer); Pillow ImageFilter.Kernel.",
                    filters=("laplacian",), tools=have(
        sfumato=F("none", "rgba8", "laplacian"),
        opencv=cv_ok and (lambda: cv2.Laplacian(bgr, cv2.CV_8U, ksize=1, borderType=rep)) or None,
        libvips=vips_ok and (lambda: vimg.conv(vlap, precision="integer").copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.Kernel((3, 3), sum(lap, []), scale=1))) or None)))
    rows.append(Row(G_GALLERY, "Laplacian 3×3, grey", f"{img}, 1-channel grey",
                    "8-bit; Sfumato Gray8 in and out, OpenCV a 1-channel grey image", filters=("laplacian",), tools=have(
        sfumato=G("laplacian"),
        opencv=cv_ok and (lambda: cv2.Laplacian(gray, cv2.CV_8U, ksize=1, borderType=rep)) or None)))
    k_sharp = np.array(SHARPEN, np.float32).reshape(3, 3)
    vsharp = pyvips.Image.new_from_array((np.array(SHARPEN) * 2).reshape(3, 3).astype(int).tolist(), scale=2) if vips_ok else None
    spec_sharp = "convolution:width=3,height=3,weights=[" + ";".join(f"{x:g}" for x in SHARPEN) + "]"
    rows.append(Row(G_GALLERY, "Sharpen 3×3 convolution", img,
                    "8-bit, clamp; RGBA vs RGB",
                    details="Sharpen: weights [−.5 −1 −.5; −1 7 −1; −.5 −1 −.5]. Sfumato `convolution`; cv2.filter2D "
                    "(float kernel, BORDER_REPLICATE); pyvips conv precision=integer with the mask ×2 and scale 2 "
                    "(exact); Pillow ImageFilter.Kernel.", filters=("convolution",), tools=have(
        sfumato=F("none", "rgba8", spec_sharp),
        opencv=cv_ok and (lambda: cv2.filter2D(bgr, -1, k_sharp, borderType=rep)) or None,
        libvips=vips_ok and (lambda: vimg.conv(vsharp, precision="integer").copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.Kernel((3, 3), SHARPEN, scale=1))) or None)))
    thr_table = [255 if v > 127 else 0 for v in range(256)]
    rows.append(Row(G_GALLERY, "Threshold binary, luma 0.5", f"{img} (peers: grey out)",
                    "8-bit; BT.601 luma > 0.5 → white else black; Sfumato RGBA out, peers 1-channel grey out",
                    details="Threshold binary: Sfumato `threshold-binary` (luma with weights .299 .587 .114 > 0.5 → "
                    "1, else 0, alpha kept; one point pass on RGBA). OpenCV cvtColor BGR2GRAY (the same BT.601 "
                    "weights, faster than a 1×3 cv2.transform) + cv2.threshold(127, 255, THRESH_BINARY); pyvips "
                    "recomb [.299 .587 .114] + relational > 127.5 (uchar 0/255); Pillow convert('L') (BT.601) + "
                    "point(table). OpenCV's result equals Sfumato's except a few pixels in a million (luma rounding at the cut).", filters=("threshold-binary",),
                    tools=have(
        sfumato=F("none", "rgba8", "threshold-binary:threshold=0.5"),
        opencv=cv_ok and (lambda: cv2.threshold(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), 127, 255,
                                                cv2.THRESH_BINARY)[1]) or None,
        libvips=vips_ok and (lambda: (vimg.recomb([[0.299, 0.587, 0.114]]) > 127.5).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.convert("L").point(thr_table)) or None)))

    # morphology
    vdisc = pyvips.Image.new_from_array(np.where(DISC > 0, 255, 128).tolist()) if vips_ok else None
    rows.append(Row(G_GALLERY, "Dilate, 15×15 disc (Dilate Bokeh), grey", f"{img}, 1-channel grey",
                    "8-bit max over the disc; Sfumato Gray8, OpenCV grey; vips binary morph (†)",
                    details="Dilate and erode: the 15×15 structuring element has tap (row i, column j) when "
                    "hypot(i − 7.5, j − 7.5) < 7 (an off-centre disc); Sfumato `preset:dilate-bokeh` (`dilate` with "
                    "that probe: 0 on the taps, 1 elsewhere) and `erode` with the same probe, on RGBA or Gray8; cv2.dilate / "
                    "cv2.erode with the same element, anchor (7, 7), on a grey image (the issue's target) and on 3 "
                    "channels. libvips' morph is binary morphology (any non-zero under the mask → 255), so its time "
                    "is shown but not ranked; neither libvips nor Pillow has grey-level dilation by a disc. cv2.erode with the disc "
                    "equals Sfumato's erode exactly on the test photo.",
                    filters=("dilate",), tools=have(
        sfumato=G("preset:dilate-bokeh"),
        opencv=cv_ok and (lambda: cv2.dilate(gray, DISC, anchor=(7, 7), borderType=rep)) or None,
        libvips=vips_ok and (lambda: vgray.morph(vdisc, "dilate").copy_memory()) or None),
        excluded={"libvips"},
        notes=["Pillow has no non-rectangular grey-level dilation."]))
    rows.append(Row(G_GALLERY, "Dilate, 15×15 disc, OpenCV 3-channel", img,
                    "8-bit max over the disc; RGBA vs RGB", filters=("dilate",), tools=have(
        sfumato=F("none", "rgba8", "preset:dilate-bokeh"),
        opencv=cv_ok and (lambda: cv2.dilate(bgr, DISC, anchor=(7, 7), borderType=rep)) or None)))
    disc_probe = "[" + ";".join("0" if t else "1" for t in DISC.ravel()) + "]"
    rows.append(Row(G_GALLERY, "Erode, 15×15 disc", img,
                    "8-bit min over the disc; RGBA vs RGB", filters=("erode",), tools=have(
        sfumato=F("none", "rgba8", f"erode:width=15,height=15,probe={disc_probe}"),
        opencv=cv_ok and (lambda: cv2.erode(bgr, DISC, anchor=(7, 7), borderType=rep)) or None),
        notes=["libvips and Pillow have no grey-level erosion by a disc (vips morph is binary)."]))
    k3 = np.ones((3, 3), np.uint8)
    rows.append(Row(G_GALLERY, "Erode 3×3, flat probe", img,
                    "8-bit min over 3×3, clamp; RGBA vs RGB",
                    details="Erode 3×3: Sfumato `erode` with its default probe (nine 0s: a flat 3×3 square); "
                    "cv2.erode with a 3×3 rectangle; pyvips rank(3, 3, 0); Pillow MinFilter(3).",
                    filters=("erode",), tools=have(
        sfumato=F("none", "rgba8", "erode"),
        opencv=cv_ok and (lambda: cv2.erode(bgr, k3, borderType=rep)) or None,
        libvips=vips_ok and (lambda: vimg.rank(3, 3, 0).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.MinFilter(3))) or None)))
    rect_details = ("Rectangle max / min (area max, area min, closing, opening): Sfumato `area-max`, `area-min` "
                    "(running max / min, any size), `closing` (area max then area min), `opening` (area min then "
                    "area max); cv2.dilate / cv2.erode / cv2.morphologyEx MORPH_CLOSE / MORPH_OPEN with a k×k "
                    "rectangle (its default border ignores outside pixels, which equals clamping for max/min); "
                    "pyvips rank (index k²−1 = max, 0 = min); Pillow MaxFilter / MinFilter (single-threaded, slow: "
                    "stopped at the time budget). OpenCV's area max / min / opening equal Sfumato's exactly on the "
                    "test photo.")
    k = 9
    kern9 = np.ones((k, k), np.uint8)
    vmax = (lambda x: x.rank(k, k, k * k - 1))
    vmin = (lambda x: x.rank(k, k, 0))
    rows.append(Row(G_GALLERY, f"Area max {k}×{k}", img,
                    "8-bit per channel max over the rectangle, clamp; RGBA vs RGB", details=rect_details,
                    filters=("area-max",), quick_skip={"pillow": "about 5 s a call at this size"}, tools=have(
        sfumato=F("none", "rgba8", f"area-max:width={k},height={k}"),
        opencv=cv_ok and (lambda: cv2.dilate(bgr, kern9)) or None,
        libvips=vips_ok and (lambda: vmax(vimg).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.MaxFilter(k))) or None)))
    rows.append(Row(G_GALLERY, f"Area min {k}×{k}", img,
                    "8-bit per channel min over the rectangle, clamp; RGBA vs RGB", details=rect_details,
                    filters=("area-min",), quick_skip={"pillow": "about 5 s a call at this size"}, tools=have(
        sfumato=F("none", "rgba8", f"area-min:width={k},height={k}"),
        opencv=cv_ok and (lambda: cv2.erode(bgr, kern9)) or None,
        libvips=vips_ok and (lambda: vmin(vimg).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.MinFilter(k))) or None)))
    for kk in (9, 5):
        kern = np.ones((kk, kk), np.uint8)
        rows.append(Row(G_GALLERY, f"Closing {kk}×{kk}", img,
                        "8-bit per channel, max then min, clamp; RGBA vs RGB", details=rect_details,
                        filters=("closing",), tools=have(
            sfumato=F("none", "rgba8", f"closing:width={kk},height={kk}"),
            opencv=cv_ok and (lambda kern=kern: cv2.morphologyEx(bgr, cv2.MORPH_CLOSE, kern)) or None,
            libvips=vips_ok and (lambda kk=kk: vimg.rank(kk, kk, kk * kk - 1).rank(kk, kk, 0).copy_memory()) or None,
            pillow=pil_ok and (lambda kk=kk: pim.filter(ImageFilter.MaxFilter(kk)).filter(ImageFilter.MinFilter(kk)))
            or None)))
    kern5 = np.ones((5, 5), np.uint8)
    rows.append(Row(G_GALLERY, "Closing 5×5, grey", f"{img}, 1-channel grey",
                    "8-bit max then min, clamp; Sfumato Gray8, peers 1-channel grey", details=rect_details,
                    filters=("closing",), tools=have(
        sfumato=G("closing:width=5,height=5"),
        opencv=cv_ok and (lambda: cv2.morphologyEx(gray, cv2.MORPH_CLOSE, kern5)) or None,
        libvips=vips_ok and (lambda: vgray.rank(5, 5, 24).rank(5, 5, 0).copy_memory()) or None,
        pillow=pil_ok and (lambda: pgray.filter(ImageFilter.MaxFilter(5)).filter(ImageFilter.MinFilter(5))) or None)))
    rows.append(Row(G_GALLERY, f"Opening {k}×{k}", img,
                    "8-bit per channel, min then max, clamp; RGBA vs RGB", details=rect_details,
                    filters=("opening",), quick_skip={"libvips": "about 2.5 s a call at this size",
                                                      "pillow": "about 11 s a call at this size"}, tools=have(
        sfumato=F("none", "rgba8", f"opening:width={k},height={k}"),
        opencv=cv_ok and (lambda: cv2.morphologyEx(bgr, cv2.MORPH_OPEN, kern9)) or None,
        libvips=vips_ok and (lambda: vmax(vmin(vimg)).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.MinFilter(k)).filter(ImageFilter.MaxFilter(k))) or None)))

    # histograms
    rows.append(Row(G_GALLERY, "Histogram equalization, per channel", img,
                    "8-bit, each channel's own histogram; RGBA vs RGB",
                    details="Histogram equalization: Sfumato `histogram-equalization` (equalizeHist convention, "
                    "two passes: count, then map); cv2.equalizeHist on each of split(B, G, R) + merge; pyvips "
                    "hist_equal (bands independently); Pillow ImageOps.equalize.", filters=("histogram-equalization",),
                    tools=have(
        sfumato=F("none", "rgba8", "histogram-equalization"),
        opencv=cv_ok and (lambda: cv2.merge([cv2.equalizeHist(c) for c in cv2.split(bgr)])) or None,
        libvips=vips_ok and (lambda: vimg.hist_equal().copy_memory()) or None,
        pillow=pil_ok and (lambda: ImageOps.equalize(pim)) or None)))
    rows.append(Row(G_GALLERY, "Histogram equalization, grey", f"{img}, 1-channel grey",
                    "8-bit; Sfumato Gray8 in and out, the peers the same grey image", filters=("histogram-equalization",),
                    tools=have(
        sfumato=G("histogram-equalization"),
        opencv=cv_ok and (lambda: cv2.equalizeHist(gray)) or None,
        libvips=vips_ok and (lambda: vgray.hist_equal().copy_memory()) or None,
        pillow=pil_ok and (lambda: ImageOps.equalize(pgray)) or None)))
    ref = reference_image(jpg)
    rows.append(Row(G_GALLERY, "Histogram specification", f"{size} JPEG, {size} JPEG reference",
                    "not timed in memory: sfumato-bench can't load the reference image",
                    details="Histogram specification: sfumato-bench's `filter` specs take no image parameters, so "
                    "`histogram-specification` is timed as a whole process, `sfumato apply IN.jpg -o OUT.jpg -f "
                    "histogram-specification:reference=REF.jpg --working-space none` (REF: the photo through a gamma "
                    "0.6 table, so its histogram differs), against the same command without the filter; the "
                    "difference is the reference's decode plus the filter (two histograms, then one table per "
                    "channel). No peer is timed (OpenCV, libvips and Pillow have no histogram matching; it is a "
                    "numpy CDF lookup + cv2.LUT by hand).", filters=("histogram-specification",),
                    cli={"with": base_cmd + ["-f", f"histogram-specification:reference={ref}"], "without": base_cmd}))

    # ---- Codecs -------------------------------------------------------------------------------
    rows.append(Row(G_CODECS, "Decode JPEG (q90)", f"{size} JPEG, {len(jpg_bytes) / 1e6:.1f} MB",
                    "bytes in memory → 8-bit pixels; Sfumato RGBA, peers RGB",
                    details="Decoding: from bytes already in memory. Sfumato `decode` (RGBA8 out); cv2.imdecode "
                    "IMREAD_COLOR (BGR); pyvips new_from_buffer(access=sequential).copy_memory(); Pillow "
                    "Image.open + load.", tools=have(
        sfumato=S("decode jpg"),
        opencv=cv_ok and (lambda: cv2.imdecode(np.frombuffer(jpg_bytes, np.uint8), cv2.IMREAD_COLOR)) or None,
        libvips=vips_ok and (lambda: pyvips.Image.new_from_buffer(jpg_bytes, "", access="sequential").copy_memory()) or None,
        pillow=pil_ok and (lambda: Image.open(io.BytesIO(jpg_bytes)).load()) or None)))
    rows.append(Row(G_CODECS, "Encode JPEG q90", img,
                    "8-bit → JPEG q90 4:2:0 in memory; Sfumato from RGBA, peers from RGB",
                    details="JPEG encoding: quality 90, 4:2:0, no optimised Huffman tables, into memory. "
                    "cv2.imencode; pyvips jpegsave_buffer(Q=90, subsample_mode=on) (libvips' default turns "
                    "chroma subsampling off at Q ≥ 90); Pillow save(quality=90).", tools=have(
        sfumato=S("encode-jpeg img 90"),
        opencv=cv_ok and (lambda: cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])) or None,
        libvips=vips_ok and (lambda: vimg.jpegsave_buffer(Q=90, subsample_mode="on")) or None,
        pillow=pil_ok and (lambda: pim.save(io.BytesIO(), "JPEG", quality=90)) or None)))
    rows.append(Row(G_CODECS, "Decode PNG", f"{size} PNG (8-bit RGB), {len(png_bytes) / 1e6:.1f} MB",
                    "bytes in memory → 8-bit pixels; Sfumato RGBA, peers RGB", tools=have(
        sfumato=S("decode png"),
        opencv=cv_ok and (lambda: cv2.imdecode(np.frombuffer(png_bytes, np.uint8), cv2.IMREAD_COLOR)) or None,
        libvips=vips_ok and (lambda: pyvips.Image.new_from_buffer(png_bytes, "", access="sequential").copy_memory()) or None,
        pillow=pil_ok and (lambda: Image.open(io.BytesIO(png_bytes)).load()) or None)))
    assert [r.group for r in rows] == sorted((r.group for r in rows), key=GROUPS.index), "rows out of group order"
    return rows


def check_fusion(srv: SfumatoBench, rows: list[Row]) -> None:
    """Rows that time unfused renders need sfumato-bench's `fusion on|off`: fail at once, clearly, without it."""
    names = [r.op for r in rows if "fusion" in r.needs]
    if not names:
        return
    try:
        srv.command("fusion off")
    except SfumatoFailure as e:
        if "unknown command" not in str(e):
            raise
        raise SfumatoFailure(
            f"{srv.binary} does not know the `fusion on|off` command (it answered `{str(e).split(' -> ', 1)[-1]}`), "
            f"which these rows need: {'; '.join(names)}.\nRebuild it (swift build -c release --product sfumato-bench) "
            f"and run again, or leave those rows out with --only.") from None
    plan = srv.explain(f"explain img none {PENCIL_SPECS}")
    srv.command("fusion on")
    first = plan.splitlines()[0] if plan else ""
    if "fusion off" not in first:
        raise SfumatoFailure(f"{srv.binary} accepted `fusion off` but its render plan still says: {first!r}")


def sfumato_filters(cli_bin: Path) -> list[tuple[str, ...]]:
    """Every filter `sfumato filters` lists, as its names: ("CIHueAdjust", "hue-adjust"), ("median",), ..."""
    for attempt in range(10):
        wait_for_binary(cli_bin)
        try:
            out = subprocess.run([str(cli_bin), "filters"], capture_output=True, text=True, timeout=60)
            break
        except OSError:
            if attempt == 9:
                raise
            time.sleep(3)
    if out.returncode != 0:
        raise SfumatoFailure(f"`{cli_bin} filters` exited {out.returncode}: {out.stderr.strip()[-300:]}")
    filters = []
    for line in out.stdout.splitlines():
        if line and not line[0].isspace() and " (" in line:
            filters.append(tuple(n.strip() for n in line.split(" (", 1)[0].split(",")))
    if not filters:
        raise SfumatoFailure(f"`{cli_bin} filters` listed no filters")
    return filters


def uncovered(filters: list[tuple[str, ...]], rows: list[Row]) -> list[str]:
    have = {n for r in rows for n in r.filters}
    known = {n for names in filters for n in names}
    for r in rows:
        for n in set(r.filters) - known:
            log(f"warning: row “{r.op}” names a filter `{n}` that `sfumato filters` does not list")
    return [" / ".join(names) for names in filters if not have.intersection(names)]


def run_cli(row: Row, warmup: int, rounds: int) -> None:
    """Times the row's whole-process `sfumato apply` commands, interleaved round by round (wall ms)."""
    row.cli_samples = {k: [] for k in row.cli}
    for r in range(warmup + rounds):
        for k, cmd in row.cli.items():
            for attempt in range(10):  # the binary may be mid-rebuild: wait for it, retry
                wait_for_binary(Path(cmd[0]))
                t0 = time.perf_counter()
                try:
                    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True, timeout=600)
                except OSError as e:  # ETXTBSY while the linker writes it
                    if attempt == 9:
                        raise SfumatoFailure(f"{row.op}: cannot run {cmd[0]}: {e}") from e
                    time.sleep(3)
                    continue
                ms = (time.perf_counter() - t0) * 1000
                if p.returncode != 0:
                    raise SfumatoFailure(f"{row.op}: `{' '.join(cmd)}` exited {p.returncode}: "
                                         f"{p.stderr.strip()[-500:]}")
                break
            if r >= warmup:
                row.cli_samples[k].append(ms)
    try:
        os.remove(WORK / "cli-out.jpg")
    except FileNotFoundError:
        pass


def run_row(row: Row, warmup: int, rounds: int, budget_s: float) -> None:
    if row.cli:
        run_cli(row, warmup, rounds)
    for t in TOOLS:
        if t not in row.tools and t in _import_errors:
            row.failed[t] = _import_errors[t]
    samples = {t: [] for t in row.tools}
    spent = {t: 0.0 for t in row.tools}
    for r in range(warmup + rounds):
        for t in TOOLS:
            fn = row.tools.get(t)
            if fn is None or t in row.failed:
                continue
            # A very slow tool stops early (it keeps at least one measured sample).
            if samples[t] and spent[t] > budget_s * 1000:
                continue
            if r < warmup and r > 0 and spent[t] > budget_s * 500:
                continue  # one warm-up is enough for a slow one
            try:
                if t == "sfumato":
                    ms = fn()
                else:
                    t0 = time.perf_counter()
                    fn()
                    ms = (time.perf_counter() - t0) * 1000
            except SfumatoFailure:
                raise
            except Exception as e:
                if t == "sfumato":
                    raise SfumatoFailure(f"{row.op}: {e}") from e
                row.failed[t] = f"{type(e).__name__}: {e}".splitlines()[0][:200]
                continue
            spent[t] += ms
            # A call slower than half the budget needs no warming: it counts as a measured sample.
            if r >= warmup or ms > budget_s * 500:
                samples[t].append(ms)
    row.samples = samples


# ---------------------------------------------------------------------------------------------
# End to end (whole processes)

CV_SCRIPT = """import sys, cv2
im = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)
out = cv2.GaussianBlur(im, (0, 0), 2, borderType=cv2.BORDER_REPLICATE)
cv2.imwrite(sys.argv[2], out, [cv2.IMWRITE_JPEG_QUALITY, 90])
"""
PIL_SCRIPT = """import sys
from PIL import Image, ImageFilter
Image.open(sys.argv[1]).filter(ImageFilter.GaussianBlur(2)).save(sys.argv[2], quality=90)
"""


# Peak RSS comes from wait4's rusage. A child spawned straight from this (big) process would
# inherit this process's memory high-water mark at exec, so the runs are spawned by a small,
# fresh launcher process instead (its own ~10 MB is the floor of what can be measured).
LAUNCHER = r"""
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    try:
        fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
              (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
              (os.POSIX_SPAWN_OPEN, 2, req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
        t0 = time.perf_counter()
        pid = os.posix_spawnp(req["cmd"][0], req["cmd"], req["env"], file_actions=fa)
        _, status, ru = os.wait4(pid, 0)
        out = {"wall": time.perf_counter() - t0, "rc": os.waitstatus_to_exitcode(status), "maxrss_kb": ru.ru_maxrss}
    except OSError as e:
        out = {"error": f"{type(e).__name__}: {e}"}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Launcher:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-S", "-c", LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        fd, self.errpath = tempfile.mkstemp(prefix="bench-e2e-", suffix=".err")
        os.close(fd)

    def run(self, cmd: list[str], env: dict) -> tuple[float, float]:
        """Runs a command; returns (wall s, peak RSS MiB) of that one child."""
        for attempt in range(10):
            self.proc.stdin.write(json.dumps({"cmd": cmd, "env": env, "stderr": self.errpath}) + "\n")
            self.proc.stdin.flush()
            reply = json.loads(self.proc.stdout.readline() or '{"error": "launcher died"}')
            if "error" not in reply:
                break
            if attempt == 9 or "launcher died" in reply["error"]:
                raise RuntimeError(f"cannot run {cmd[0]}: {reply['error']}")
            log(f"retrying {cmd[0]}: {reply['error']}")  # e.g. the binary is being rebuilt
            time.sleep(3)
        if reply["rc"] != 0:
            err = Path(self.errpath).read_text(errors="replace")[-500:].strip()
            raise RuntimeError(f"exit {reply['rc']}: {err}")
        return reply["wall"], reply["maxrss_kb"] / 1024.0

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
        try:
            os.remove(self.errpath)
        except OSError:
            pass


@dataclass
class E2E:
    image: str
    path: Path
    runs: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


E2E_TOOLS = ["sfumato-none", "sfumato-linear", "opencv", "libvips", "pillow"]
E2E_LABEL = {"sfumato-none": "Sfumato (none)", "sfumato-linear": "Sfumato (linear)", "opencv": "OpenCV (Python)",
             "libvips": "vips CLI", "pillow": "Pillow (Python)"}
E2E_COMMANDS = {  # (command, comment)
    "sfumato-none": ("sfumato apply IN -o OUT.jpg -f gaussian-blur:radius=2 --working-space none",
                     "encoded values, like the peers"),
    "sfumato-linear": ("sfumato apply IN -o OUT.jpg -f gaussian-blur:radius=2", "linear light, Sfumato's default"),
    "opencv": ("cv2.imread(IN); cv2.GaussianBlur(im, (0, 0), 2, borderType=cv2.BORDER_REPLICATE); "
               "cv2.imwrite(OUT, out, [cv2.IMWRITE_JPEG_QUALITY, 90])", "a Python script"),
    "libvips": ("vips gaussblur IN 'OUT.jpg[Q=90,subsample_mode=on]' 2", "Debian's vips command"),
    "pillow": ("Image.open(IN).filter(ImageFilter.GaussianBlur(2)).save(OUT, quality=90)", "a Python script"),
}


def run_e2e(e: E2E, sfumato: Path, warmup: int, rounds: int, launcher: Launcher) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "e2e_opencv.py").write_text(CV_SCRIPT)
    (WORK / "e2e_pillow.py").write_text(PIL_SCRIPT)
    vips_cli = shutil.which("vips")
    env = dict(os.environ, VIPS_CONCURRENCY=str(CORES))
    out = lambda t: str(WORK / f"e2e-out-{t}.jpg")  # noqa: E731
    cmds = {
        "sfumato-none": [str(sfumato), "apply", str(e.path), "-o", out("sfn"), "-f", "gaussian-blur:radius=2",
                         "--working-space", "none"],
        "sfumato-linear": [str(sfumato), "apply", str(e.path), "-o", out("sfl"), "-f", "gaussian-blur:radius=2"],
        "opencv": [sys.executable, str(WORK / "e2e_opencv.py"), str(e.path), out("cv")] if cv2 else None,
        "libvips": [vips_cli, "gaussblur", str(e.path), out("vips") + "[Q=90,subsample_mode=on]", "2"] if vips_cli else None,
        "pillow": [sys.executable, str(WORK / "e2e_pillow.py"), str(e.path), out("pil")] if PIL else None,
    }
    if not vips_cli:
        e.failed["libvips"] = "Debian's `vips` command not found"
    if not cv2:
        e.failed["opencv"] = _import_errors["opencv"]
    if not PIL:
        e.failed["pillow"] = _import_errors["pillow"]
    e.runs = {t: [] for t in E2E_TOOLS}
    for r in range(warmup + rounds):
        for t in E2E_TOOLS:
            cmd = cmds[t]
            if cmd is None or t in e.failed:
                continue
            if t.startswith("sfumato"):
                wait_for_binary(sfumato)
            try:
                wall, mb = launcher.run(cmd, env)
            except Exception as ex:
                if t.startswith("sfumato"):
                    raise SfumatoFailure(f"end to end {e.image}: {' '.join(cmd)}: {ex}") from ex
                e.failed[t] = str(ex).splitlines()[0][:200]
                continue
            if r >= warmup:
                e.runs[t].append((wall, mb))
    for t in ("sfn", "sfl", "cv", "vips", "pil"):
        try:
            os.remove(out(t))
        except FileNotFoundError:
            pass


# ---------------------------------------------------------------------------------------------
# Report


def cmd_out(args: list[str]) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=30).stdout.strip()
    except Exception:
        return ""


def machine() -> dict:
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    debian = ""
    try:
        debian = Path("/etc/debian_version").read_text().strip()
    except OSError:
        pass
    try:
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        load = None
    return {"cpu": model or platform.processor() or "unknown", "cores": CORES, "memory": mem, "loadavg_at_start": load,
            "os": f"{platform.system()} {platform.release()}" + (f", Debian {debian}" if debian else "")}


def versions(bench_bin: Path, cli_bin: Path) -> dict:
    v = {"python": platform.python_version(), "numpy": np.__version__}
    v["opencv"] = cv2.__version__ if cv2 else None
    if pyvips:
        v["libvips"] = f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}"
        v["pyvips"] = getattr(pyvips, "__version__", "?")
    else:
        v["libvips"] = None
    v["pillow"] = PIL.__version__ if PIL else None
    v["vips_cli"] = cmd_out(["vips", "--version"]) or None
    commit = cmd_out(["git", "rev-parse", "--short", "HEAD"])
    dirty = cmd_out(["git", "status", "--porcelain", "--untracked-files=no"])
    v["sfumato_commit"] = (commit + (" (+ uncommitted changes)" if dirty else "")) if commit else None
    first = cmd_out([str(cli_bin), "--help"]).splitlines()
    v["sfumato"] = first[0].split(":")[0] if first else None
    return v


def med(xs):
    return statistics.median(xs) if xs else None


def fmt_ms(x) -> str:
    if x is None:
        return "—"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def row_result(row: Row, rounds: int) -> dict:
    medians = {t: med(row.samples.get(t, [])) for t in TOOLS}
    ranked = {t: medians[t] for t in PEERS if medians[t] is not None and t not in row.excluded}
    fastest = min(ranked, key=ranked.get) if ranked else None
    ratio = (medians["sfumato"] / ranked[fastest]) if fastest else None
    notes = list(row.notes)
    for t, why in row.failed.items():
        notes.append(f"{LABEL[t]} failed: {why}")
    for t in TOOLS:
        n = len(row.samples.get(t, []))
        if 0 < n < rounds:
            notes.append(f"{LABEL[t]}: {n} of {rounds} rounds (slow; stopped at the time budget)")
    cli = {k: med(v) for k, v in row.cli_samples.items()}
    return {"group": row.group, "operation": row.op, "filters": list(row.filters), "image": row.image,
            "computes": row.computes, "details": row.details,
            "cli_ms": cli or None,
            "cli_commands": {k: " ".join(c).replace(f"{ROOT}/", "") for k, c in row.cli.items()} or None,
            "cli_samples_ms": {k: [round(x, 3) for x in v] for k, v in row.cli_samples.items()} or None,
            "ms": medians, "samples_ms": {t: [round(x, 3) for x in row.samples.get(t, [])] for t in TOOLS},
            "excluded_from_ranking": sorted(row.excluded), "fastest_peer": fastest,
            "fastest_peer_ms": ranked.get(fastest) if fastest else None,
            "ratio_sfumato_over_fastest": ratio, "notes": notes}


def e2e_result(e: E2E) -> dict:
    tools = {}
    for t in E2E_TOOLS:
        runs = e.runs.get(t, [])
        tools[t] = {"wall_s": med([w for w, _ in runs]), "peak_mib": max((m for _, m in runs), default=None),
                    "runs": [{"wall_s": round(w, 4), "peak_mib": round(m, 1)} for w, m in runs],
                    "command": E2E_COMMANDS[t][0], "failed": e.failed.get(t)}
    peers = {t: tools[t] for t in ("opencv", "libvips", "pillow") if tools[t]["wall_s"] is not None}
    fastest = min(peers, key=lambda t: peers[t]["wall_s"]) if peers else None
    leanest = min(peers, key=lambda t: peers[t]["peak_mib"]) if peers else None
    s = tools["sfumato-none"]
    return {"image": e.image, "path": str(e.path.relative_to(ROOT)) if e.path.is_relative_to(ROOT) else str(e.path),
            "tools": tools, "fastest_peer": fastest, "leanest_peer": leanest,
            "wall_ratio_sfumato_none_over_fastest": (s["wall_s"] / peers[fastest]["wall_s"]) if fastest and s["wall_s"] else None,
            "peak_ratio_sfumato_none_over_leanest": (s["peak_mib"] / peers[leanest]["peak_mib"]) if leanest and s["peak_mib"] else None}


def ratio_cell(r) -> str:
    if r is None:
        return "—"
    return f"**{r:.2f}**" if r > 1 else f"{r:.2f}"


def markdown(meta: dict, rows: list[dict], e2e: list[dict]) -> str:
    m, v, th = meta["machine"], meta["versions"], meta["threads"]
    out = [f"# Sfumato benchmarks{' (quick)' if meta['mode'] == 'quick' else ''}", "",
           f"Produced by `{meta['command']}` on {meta['date']} in {meta['duration_s']:.0f} s.", "",
           "## Machine and tools", "",
           f"- **CPU:** {m['cpu']}, {m['cores']} cores; **memory:** {m['memory']}; {m['os']}"
           + (f"; load average before the run {m['loadavg_at_start']}" if m.get("loadavg_at_start") else ""),
           f"- **Sfumato:** {v.get('sfumato') or '?'} at commit `{v.get('sfumato_commit') or '?'}` (release build)",
           f"- **OpenCV** {v.get('opencv') or '—'} (opencv-python-headless), **libvips** {v.get('libvips') or '—'} "
           f"(pyvips {v.get('pyvips', '—')}, pyvips-binary), **Pillow** {v.get('pillow') or '—'}, "
           f"**numpy** {v.get('numpy')}, **Python** {v.get('python')}",
           f"- **Debian vips CLI** (end-to-end rows): {v.get('vips_cli') or '—'}",
           f"- **Threads:** Sfumato {th['sfumato']} (= cores), OpenCV {th['opencv']} (cv2.getNumThreads), "
           f"libvips {th['libvips']} (concurrency), Pillow 1 (its filters are single-threaded)",
           f"- **Rounds:** {meta['warmup']} warm-up + {meta['rounds']} measured, interleaved per round "
           f"(Sfumato, OpenCV, libvips, Pillow); each cell is the median in milliseconds.", "",
           "## Operations", "",
           f"Input: {meta['source_photo']} resampled with Pillow LANCZOS to {meta['size']}; every tool gets the same "
           f"pixels (from the PNG). **Sfumato processes 4 channels (RGBA) where OpenCV, libvips and Pillow get "
           f"3-channel images**; in the rows marked grey every tool, Sfumato included (Gray8), works on the same "
           f"1-channel grey image (OpenCV's BT.601 conversion of the photo). Sfumato / fastest > 1 (bold) means "
           f"Sfumato is slower than the fastest peer.", "",
           "| operation | image | what each computes | Sfumato ms | OpenCV ms | libvips ms | Pillow ms | fastest peer | Sfumato / fastest |",
           "|---|---|---|---:|---:|---:|---:|---|---:|"]
    group = None
    for r in rows:
        if r["group"] != group:
            group = r["group"]
            out.append(f"| **{group}** |" + " |" * 8)
        cells = []
        for t in TOOLS:
            c = fmt_ms(r["ms"][t])
            if t in r["excluded_from_ranking"] and r["ms"][t] is not None:
                c += " †"
            n = len(r["samples_ms"][t])
            if 0 < n < meta["rounds"]:
                c += f" (n={n})"
            cells.append(c)
        slower = r["ratio_sfumato_over_fastest"] is not None and r["ratio_sfumato_over_fastest"] > 1
        if slower:
            cells[0] = f"**{cells[0]}**"
        fp = LABEL[r["fastest_peer"]] if r["fastest_peer"] else "—"
        op = r["operation"] + (f" · `{r['filters'][0]}`" if len(r.get("filters") or []) == 1 else "")
        computes = r["computes"]
        if r.get("cli_ms"):
            computes += ("; whole process (`sfumato apply`, start-up and codecs included): "
                         + ", ".join(f"{fmt_ms(v)} ms {k} the filter" for k, v in r["cli_ms"].items()))
        out.append(f"| {op} | {r['image']} | {computes} | " + " | ".join(cells) +
                   f" | {fp} | {ratio_cell(r['ratio_sfumato_over_fastest'])} |")
    out += ["", "† computes something different in kind (see the row): shown for reference, not ranked.", ""]

    if e2e:
        out += ["## End to end (whole process)", "",
                "Load a JPEG, Gaussian blur σ 2, save JPEG q90, one process per run (start-up, decode, filter, "
                "encode, file I/O). Wall time is the median; peak is the largest peak RSS over the runs, in MiB "
                "(wait4 rusage of the process, spawned by a small launcher so that the harness's own memory does "
                "not leak into it; about 10 MiB is the floor). Ratios compare Sfumato (none) with the fastest / leanest peer.", "",
                "| image | runs | " + " | ".join(E2E_LABEL[t] for t in E2E_TOOLS) +
                " | fastest peer | Sfumato wall / fastest | Sfumato peak / leanest |",
                "|---|---:|" + "---:|" * len(E2E_TOOLS) + "---|---:|---:|"]
        for e in e2e:
            cells = []
            for t in E2E_TOOLS:
                x = e["tools"][t]
                cells.append("—" if x["wall_s"] is None else f"{x['wall_s']:.2f} s · {x['peak_mib']:.0f} MiB")
            n = max(len(x["runs"]) for x in e["tools"].values())
            fp = E2E_LABEL[e["fastest_peer"]] if e["fastest_peer"] else "—"
            out.append(f"| {e['image']} | {n} | " + " | ".join(cells) + f" | {fp} | "
                       f"{ratio_cell(e['wall_ratio_sfumato_none_over_fastest'])} | "
                       f"{ratio_cell(e['peak_ratio_sfumato_none_over_leanest'])} |")
        out += ["", "Commands:", ""]
        out += [f"- {E2E_LABEL[t]}, {E2E_COMMANDS[t][1]}: `{E2E_COMMANDS[t][0]}`" for t in E2E_TOOLS]
        out.append("")

    fl = meta.get("filters") or {}
    if fl.get("without_row"):
        coverage = (f"- **Coverage.** `sfumato filters` lists {len(fl['listed'])} filters; **no row for: "
                    f"{', '.join(fl['without_row'])}**.")
    elif fl.get("listed"):
        coverage = (f"- **Coverage.** Each of the {len(fl['listed'])} filters that `sfumato filters` lists has a row "
                    f"(the filter name follows the operation; a row without one runs a chain of several): "
                    f"{', '.join(fl['listed'])}. CISourceOverCompositing and histogram-specification take a second "
                    f"image, which sfumato-bench's `filter` command can't load, so their rows give whole-process "
                    f"`sfumato apply` times instead of in-memory ones.")
    else:
        coverage = None
    out += ["## Notes", ""] + ([coverage] if coverage else []) + [
            "- **Like for like.** Sfumato renders RGBA (4 channels) where the peers get RGB (3): it moves a third "
            "more bytes. Rows marked “grey” follow the issue's OpenCV targets, which were quoted for grey images: "
            "there Sfumato renders a Gray8 bitmap to Gray8, a byte a pixel, as the peers do.",
            "- **Where it is timed.** Sfumato is timed inside `sfumato-bench` (monotonic clock) around "
            "`RenderContext.render`, which allocates the output bitmap; the filter graph is built before the clock "
            "starts. Its pixel memory keeps the last two large freed blocks and gives one to the next render of the "
            "same size without clearing it (the render writes every byte), so from the second round on the kernel "
            "no longer zeroes fresh pages for Sfumato's output; the peers' allocators hand large outputs back to the "
            "kernel and get fresh (zeroed) pages each call. Peers are timed in Python with `time.perf_counter()` "
            "around one call that allocates its output (a few µs of Python overhead); vips pipelines are forced "
            "with `copy_memory()`, and libvips' operation cache is off.",
            "- **Working space.** 8-bit rows use Sfumato's `none` working space (maths on the sRGB-encoded values, "
            "as OpenCV, vips and Pillow do). Sfumato's default is linear light, which costs a decode/encode of the "
            "transfer function per pixel (compare the two Sfumato end-to-end columns).",
            "- **Codecs.** All the JPEG codecs are libjpeg-turbo based (Sfumato links Debian's libturbojpeg; "
            "opencv-python-headless and pyvips-binary bundle their own builds).",
            "- **Pillow** is single-threaded for these filters; OpenCV, libvips and Sfumato use every core. A tool "
            "that runs past the per-row time budget stops early with fewer samples (shown as n=).",
            "- **End to end** includes process start-up: Python and `import cv2` / PIL for the script rows, the "
            "Debian libvips (not pyvips-binary) for the vips CLI row. Peak RSS of the Python rows includes the "
            "interpreter and libraries.",
            ]
    details = list(dict.fromkeys(r["details"] for r in rows if r["details"]))
    if details:
        out += ["", "What each row runs:", ""] + [f"- {d}" for d in details]
    extra = [f"- {r['operation']}: {n}" for r in rows for n in r["notes"]]
    extra += [f"- End to end {e['image']}: {E2E_LABEL[t]} failed: {x['failed']}"
              for e in e2e for t, x in e["tools"].items() if x["failed"]]
    if extra:
        out += ["", "Per-row notes:", ""] + extra
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1920x1280 images, 3 rounds, 25 MP end to end")
    ap.add_argument("--rounds", type=int, help="measured rounds (default 7, quick 3)")
    ap.add_argument("--warmup", type=int, help="warm-up rounds (default 2, quick 1)")
    ap.add_argument("--only", help="regex: run only matching operations")
    ap.add_argument("--no-e2e", action="store_true", help="skip the end-to-end runs")
    ap.add_argument("--bin", default=os.environ.get("SFUMATO_BIN_DIR", str(ROOT / ".build" / "release")),
                    help="folder with sfumato and sfumato-bench")
    ap.add_argument("--markdown", default=str(ROOT / "BENCHMARKS.md"))
    ap.add_argument("--json", default=str(ROOT / "Benchmarks" / "results.json"))
    ap.add_argument("--command", default=None, help="command line to record in the report")
    args = ap.parse_args()

    quick = args.quick
    w, h = (1920, 1280) if quick else (6000, 4000)
    rounds = args.rounds or (3 if quick else 7)
    warmup = args.warmup if args.warmup is not None else (1 if quick else 2)
    budget_s = 4.0 if quick else 45.0
    bins = Path(args.bin)
    bench_bin, cli_bin = bins / "sfumato-bench", bins / "sfumato"
    started = time.monotonic()
    mach = machine()  # before the run, for its load average

    if PIL is None:
        log("Pillow is needed to make the test images: " + _import_errors["pillow"])
        return 2
    if cv2 is not None:
        cv2.setNumThreads(CORES)
    if pyvips is not None:
        pyvips.cache_set_max(0)
        pyvips.cache_set_max_mem(0)
        if hasattr(pyvips, "concurrency_set"):
            pyvips.concurrency_set(CORES)
    for t, why in _import_errors.items():
        log(f"warning: {LABEL[t]} unavailable ({why}); its column will be blank")

    src = source_photo()
    jpg, png = make_image(src, w, h)
    big_wh = (6120, 4080) if quick else (12240, 8160)
    big_jpg = None
    if not args.no_e2e:
        big_jpg, _ = make_image(src, *big_wh, png=False)

    try:
        wait_for_binary(bench_bin)
        wait_for_binary(cli_bin)
        srv = SfumatoBench(bench_bin, CORES)
        try:
            rows = build_rows(srv, cli_bin, jpg, png, w, h)
            listed = sfumato_filters(cli_bin)
            missing = uncovered(listed, rows)
            if missing:
                log(f"warning: no row for these filters of `sfumato filters`: {', '.join(missing)}")
            if args.only:
                rows = [r for r in rows if re.search(args.only, r.op, re.I)]
            check_fusion(srv, rows)
            if quick:
                for r in rows:
                    for t, why in r.quick_skip.items():
                        if r.tools.pop(t, None) is not None:
                            r.notes.append(f"{LABEL[t]} left out of quick runs ({why}); the full run times it.")
            for i, row in enumerate(rows, 1):
                t0 = time.monotonic()
                run_row(row, warmup, rounds, budget_s)
                meds = "  ".join(f"{LABEL[t]} {fmt_ms(med(row.samples.get(t, [])))}" for t in TOOLS if t in row.tools)
                meds += "  ".join(f"sfumato apply {k} the filter {fmt_ms(med(v))}" for k, v in row.cli_samples.items())
                log(f"[{i}/{len(rows)}] {row.op}: {meds}  ({time.monotonic() - t0:.1f} s)")
        finally:
            srv.close()
        by_op = {r.op: r for r in rows}
        for r in rows:
            other = by_op.get(r.pair) if r.pair else None
            a, b = med(r.samples.get("sfumato", [])), med(other.samples.get("sfumato", [])) if other else None
            if a and b:
                r.notes.append(f"{a / b:.2f}× the time of “{other.op}” ({fmt_ms(a)} vs {fmt_ms(b)} ms).")

        e2es: list[E2E] = []
        if not args.no_e2e:
            plan = [(E2E(f"{w}×{h} JPEG", jpg), 1, 3 if quick else 5),
                    (E2E(f"{big_wh[0]}×{big_wh[1]} JPEG ({big_wh[0] * big_wh[1] / 1e6:.0f} MP)", big_jpg), 0, 2)]
            launcher = Launcher()
            for e, wu, n in plan:
                t0 = time.monotonic()
                try:
                    run_e2e(e, cli_bin, wu, n, launcher)
                except SfumatoFailure:
                    launcher.close()
                    raise
                log(f"end to end {e.image}: " + "  ".join(
                    f"{E2E_LABEL[t]} {med([x for x, _ in e.runs[t]]) or 0:.2f}s/"
                    f"{max((m for _, m in e.runs[t]), default=0):.0f}MiB" for t in E2E_TOOLS) +
                    f"  ({time.monotonic() - t0:.1f} s)")
                e2es.append(e)
            launcher.close()
    except SfumatoFailure as e:
        log(f"\nbench: Sfumato failed, aborting:\n{e}")
        return 1

    meta = {
        "mode": "quick" if quick else "full",
        "command": args.command or ("scripts/bench" + (" --quick" if quick else "")),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "duration_s": time.monotonic() - started,
        "machine": mach,
        "versions": versions(bench_bin, cli_bin),
        "threads": {"sfumato": CORES, "opencv": cv2.getNumThreads() if cv2 else None,
                    "libvips": pyvips.concurrency_get() if pyvips and hasattr(pyvips, "concurrency_get")
                    else os.environ.get("VIPS_CONCURRENCY")},
        "size": f"{w}×{h}", "source_photo": str(src.relative_to(ROOT)) if src.is_relative_to(ROOT) else src.name,
        "warmup": warmup, "rounds": rounds, "time_budget_per_tool_per_row_s": budget_s,
    }
    meta["filters"] = {"listed": [" / ".join(n) for n in listed], "without_row": missing}
    rows_out = [row_result(r, rounds) for r in rows]
    e2e_out = [e2e_result(e) for e in e2es]
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"meta": meta, "rows": rows_out, "end_to_end": e2e_out}, indent=2,
                                          ensure_ascii=False) + "\n")
    Path(args.markdown).write_text(markdown(meta, rows_out, e2e_out))
    log(f"wrote {Path(args.markdown).relative_to(ROOT) if Path(args.markdown).is_relative_to(ROOT) else args.markdown} "
        f"and {Path(args.json).relative_to(ROOT) if Path(args.json).is_relative_to(ROOT) else args.json} "
        f"in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
