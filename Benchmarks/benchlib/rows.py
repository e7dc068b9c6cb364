"""The rows: each operation, with Sfumato and each peer that computes the same thing."""
from __future__ import annotations

import io
import os
from pathlib import Path
from types import SimpleNamespace

from .common import PIL, WORK, Image, ImageFilter, ImageOps, SfumatoFailure, _import_errors, cv2, log, np, pyvips
from .everyday import G_EVERYDAY, everyday_rows
from .everyday_more import everyday_more_rows
from .harness import _KEEPALIVE, Row, SfumatoBench
from .peers import DISC, PENCIL_SPECS, SHARPEN, TONE_SPEC, gamma_lut, pencil_affine, to_bgr, tone_curve_lut

# Row groups, in table order.
G_CI_COLOUR, G_CI_BLUR, G_GALLERY, G_CODECS = "Core Image: colour", "Core Image: blur", "Gallery filters", "Codecs"
GROUPS = [G_CI_COLOUR, G_CI_BLUR, G_EVERYDAY, G_GALLERY, G_CODECS]

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


def load(srv: SfumatoBench, cli_bin: Path, jpg: Path, png: Path, w: int, h: int) -> SimpleNamespace:
    """The images loaded into every tool, and the helpers the rows are made with."""
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

    return SimpleNamespace(**locals())


def colour_rows(t) -> None:
    """Core Image's colour filters and the PencilController chain."""
    cli_bin, jpg, size, bgr, vimg, vfloat, pim, f32, F, unfused, have, cv_ok, vips_ok, pil_ok, A, o, m8, mf, glut, vglut, tlut, rows, img, affine_row = (t.cli_bin, t.jpg, t.size, t.bgr, t.vimg, t.vfloat, t.pim, t.f32, t.F, t.unfused, t.have, t.cv_ok, t.vips_ok, t.pil_ok, t.A, t.o, t.m8, t.mf, t.glut, t.vglut, t.tlut, t.rows, t.img, t.affine_row,)
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
    t.base_cmd = base_cmd   # the gallery's histogram specification times the same way
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


def blur_rows(t) -> None:
    """Core Image's blurs."""
    w, h, bgr, vimg, pim, F, have, cv_ok, vips_ok, pil_ok, rows, img = (t.w, t.h, t.bgr, t.vimg, t.pim, t.F, t.have, t.cv_ok, t.vips_ok, t.pil_ok, t.rows, t.img,)
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
    t.median_details = median_details   # the gallery's medians share it
    rows.append(Row(G_CI_BLUR, "Median 3×3, Core Image", img,
                    "8-bit per channel, clamp; RGBA vs RGB", details=median_details, filters=("CIMedianFilter",),
                    quick_skip={"libvips": "the same call is timed in the Median 3×3 row",
                                "pillow": "the same call is timed in the Median 3×3 row"}, tools=have(
        sfumato=F("none", "rgba8", "CIMedianFilter"),
        opencv=cv_ok and (lambda: cv2.medianBlur(bgr, 3)) or None,
        libvips=vips_ok and (lambda: vimg.median(3).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.MedianFilter(3))) or None)))


def gallery_rows(t) -> None:
    """The MetalImageFilters gallery set."""
    base_cmd, median_details = t.base_cmd, t.median_details
    jpg, size, bgr, gray, vimg, vgray, pim, pgray, F, G, have, cv_ok, vips_ok, pil_ok, rows, img, rep = (t.jpg, t.size, t.bgr, t.gray, t.vimg, t.vgray, t.pim, t.pgray, t.F, t.G, t.have, t.cv_ok, t.vips_ok, t.pil_ok, t.rows, t.img, t.rep,)
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


def codec_rows(t) -> None:
    """Decoding and encoding."""
    size, jpg_bytes, png_bytes, bgr, vimg, pim, S, have, cv_ok, vips_ok, pil_ok, rows, img = (t.size, t.jpg_bytes, t.png_bytes, t.bgr, t.vimg, t.pim, t.S, t.have, t.cv_ok, t.vips_ok, t.pil_ok, t.rows, t.img,)
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
                    "8-bit → JPEG q90 4:2:0 in memory; Sfumato from RGBA, bands compressed on every core and joined by restart markers; peers from RGB, one thread",
                    details="JPEG encoding: quality 90, 4:2:0, no optimised Huffman tables, into memory. Sfumato "
                    "cuts the image into bands of whole MCU rows, one per core, compresses each with its own libjpeg "
                    "and joins them with restart markers: the pixels of one scan, two bytes a band. "
                    "cv2.imencode; pyvips jpegsave_buffer(Q=90, subsample_mode=on) (libvips' default turns "
                    "chroma subsampling off at Q ≥ 90); Pillow save(quality=90).", tools=have(
        sfumato=S("encode-jpeg img 90"),
        opencv=cv_ok and (lambda: cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])) or None,
        libvips=vips_ok and (lambda: vimg.jpegsave_buffer(Q=90, subsample_mode="on")) or None,
        pillow=pil_ok and (lambda: pim.save(io.BytesIO(), "JPEG", quality=90)) or None)))
    rows.append(Row(G_CODECS, "Encode PNG level 6", img,
                    "8-bit → PNG in memory, zlib level 6, every row filtered; Sfumato from RGBA (writes RGB), peers from RGB",
                    details="PNG encoding: zlib level 6 with row filters, into memory. Sfumato: libspng with Debian's zlib, "
                    "Paeth on every row (8.1 MB for the photo). pyvips pngsave_buffer(compression=6, filter='all') "
                    "(libvips' default, filter none, is about twice as fast and writes a file 2.4 times as large); "
                    "cv2.imencode with IMWRITE_PNG_COMPRESSION 6 (OpenCV's default strategy, run-length only); Pillow "
                    "save(compress_level=6) (adaptive filtering). The pip wheels of OpenCV and libvips bundle their own "
                    "zlib (libvips' is zlib-ng); their file sizes differ.", tools=have(
        sfumato=S("encode-png img 6"),
        opencv=cv_ok and (lambda: cv2.imencode(".png", bgr, [cv2.IMWRITE_PNG_COMPRESSION, 6])) or None,
        libvips=vips_ok and (lambda: vimg.pngsave_buffer(compression=6, filter="all")) or None,
        pillow=pil_ok and (lambda: pim.save(io.BytesIO(), "PNG", compress_level=6)) or None)))
    rows.append(Row(G_CODECS, "Decode PNG", f"{size} PNG (8-bit RGB), {len(png_bytes) / 1e6:.1f} MB",
                    "bytes in memory → 8-bit pixels; Sfumato RGB8 (`DecodeOptions.packRGB`), peers RGB",
                    notes=["PNG decoding, where the time goes (`perf record` on sfumato-bench's `decode`, 2026-12-05): "
                           "libspng's row unfiltering 58 %, zlib's inflate about 35 %. Debian 12's libspng 0.7.3 and "
                           "libpng 1.6.39 are built without SIMD unfiltering (no SSE instructions in either library's "
                           "code) and its zlib is 1.2.13; the libvips wheel bundles libspng built with SSE and zlib-ng. "
                           "Sfumato skips the zlib stream's Adler-32 as libvips and OpenCV do with libspng (the chunks' "
                           "CRC-32s are still checked): 361 to 343 ms; decoding straight to RGB8 saves the widening to "
                           "RGBA: 337 to 328 ms (in process, medians of 5)."], tools=have(
        sfumato=S("decode png rgb8"),
        opencv=cv_ok and (lambda: cv2.imdecode(np.frombuffer(png_bytes, np.uint8), cv2.IMREAD_COLOR)) or None,
        libvips=vips_ok and (lambda: pyvips.Image.new_from_buffer(png_bytes, "", access="sequential").copy_memory()) or None,
        pillow=pil_ok and (lambda: Image.open(io.BytesIO(png_bytes)).load()) or None)))


def build_rows(srv: SfumatoBench, cli_bin: Path, jpg: Path, png: Path, w: int, h: int) -> list[Row]:
    """Every row, in table order."""
    t = load(srv, cli_bin, jpg, png, w, h)
    for make in (colour_rows, blur_rows, everyday_rows, everyday_more_rows, gallery_rows, codec_rows):
        make(t)
    rows = t.rows
    assert [r.group for r in rows] == sorted((r.group for r in rows), key=GROUPS.index), "rows out of group order"
    return rows
