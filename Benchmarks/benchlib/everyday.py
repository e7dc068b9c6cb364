"""Rows for the everyday Core Image filters: geometry, blend modes, blurs, reductions, 3D LUTs."""
from __future__ import annotations

import math

import numpy as np

from .common import PIL, WORK, Image, ImageChops, ImageFilter, ImageStat, cv2, pyvips
from .harness import _KEEPALIVE, Row

G_EVERYDAY = "Core Image: everyday"

DETAILS = ("Everyday Core Image filters, 8-bit, `none rgba8` (encoded values, as the peers compute), the output "
           "allocated inside the timed region. Peers on the same RGB pixels; a peer whose definition differs is "
           "shown but not ranked (marked). Blend modes take the photo as the source and the photo turned upside "
           "down as the backdrop (both opaque).")


def everyday_rows(t) -> None:
    srv, png, w, h, bgr, vimg, pim, F, have, cv_ok, vips_ok, pil_ok, rows, img = (
        t.srv, t.png, t.w, t.h, t.bgr, t.vimg, t.pim, t.F, t.have, t.cv_ok, t.vips_ok, t.pil_ok, t.rows, t.img)
    # The backdrop: the photo upside down, loaded into sfumato-bench as `bg`.
    rgb = np.ascontiguousarray(bgr[:, :, ::-1]) if cv_ok else np.asarray(Image.open(png).convert("RGB"))
    flipped = np.ascontiguousarray(rgb[::-1])
    bg_png = WORK / "everyday-backdrop.png"
    Image.fromarray(flipped, "RGB").save(bg_png, compress_level=1)
    srv.command(f"load bg {bg_png}")
    bgr2 = np.ascontiguousarray(flipped[:, :, ::-1]) if cv_ok else None
    pim2 = Image.fromarray(flipped, "RGB") if PIL is not None else None
    vimg2 = None
    if vips_ok:
        buf = flipped.tobytes()
        _KEEPALIVE.append(buf)
        vimg2 = pyvips.Image.new_from_memory(buf, w, h, 3, "uchar")
    t.bgr2, t.vimg2, t.pim2 = bgr2, vimg2, pim2  # everyday_more's two-image rows use the same backdrop

    def row(op, computes, filt, sfumato, excluded=(), notes=(), **peers):
        rows.append(Row(G_EVERYDAY, op, img, computes, details=DETAILS, filters=(filt,), excluded=set(excluded),
                        notes=list(notes), tools=have(sfumato=sfumato, **peers)))

    # ---- geometry
    s = 0.25
    ow, oh = round(w * s), round(h * s)
    row("Lanczos scale ×0.25", "8-bit; Lanczos-3 widened by the shrink (Pillow LANCZOS, vips reduce); OpenCV's "
        "INTER_LANCZOS4 is an 8×8 kernel, not widened (not ranked)", "CILanczosScaleTransform",
        F("none", "rgba8", f"CILanczosScaleTransform:inputScale={s}"), excluded=("opencv",),
        opencv=cv_ok and (lambda: cv2.resize(bgr, (ow, oh), interpolation=cv2.INTER_LANCZOS4)) or None,
        libvips=vips_ok and (lambda: vimg.resize(s, kernel="lanczos3").copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.resize((ow, oh), Image.LANCZOS)) or None)
    angle = 0.17
    c, si = np.cos(angle), np.sin(angle)
    # Every tool writes the turned image's bounding box (as Sfumato and vips do by themselves):
    # the same output pixels everywhere.
    xs = [c * x - si * y for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
    ys = [si * x + c * y for x, y in ((0, 0), (w, 0), (0, h), (w, h))]
    ox, oy = math.floor(min(xs)), math.floor(min(ys))
    bw, bh = math.ceil(max(xs)) - ox, math.ceil(max(ys)) - oy
    # OpenCV's pixels sit at whole coordinates, Sfumato's and Pillow's centres at halves.
    m = np.array([[c, -si, 0.5 * c - 0.5 * si - 0.5 - ox], [si, c, 0.5 * si + 0.5 * c - 0.5 - oy]])
    row("Affine turn 0.17 rad, bilinear", f"8-bit; each output pixel mapped back and interpolated bilinearly; "
        f"every tool writes the bounding box, {bw}×{bh}", "CIAffineTransform",
        F("none", "rgba8", f"CIAffineTransform:inputTransform=[{c};{si};{-si};{c};0;0],inputSampling=bilinear"),
        opencv=cv_ok and (lambda: cv2.warpAffine(bgr, m, (bw, bh), flags=cv2.INTER_LINEAR)) or None,
        libvips=vips_ok and (lambda: vimg.affine([c, -si, si, c], interpolate=pyvips.Interpolate.new("bilinear")).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.transform((bw, bh), Image.AFFINE, (c, si, c * ox + si * oy, -si, c, -si * ox + c * oy),
                                                 Image.BILINEAR)) or None)

    # ---- blurs
    row("Box blur 9×9", "8-bit; the mean over a 9×9 square, edges clamped", "CIBoxBlur",
        F("none", "rgba8", "CIBoxBlur:inputRadius=4"),
        opencv=cv_ok and (lambda: cv2.blur(bgr, (9, 9), borderType=cv2.BORDER_REPLICATE)) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.BoxBlur(4))) or None)
    disc = np.array([[1.0 if i * i + j * j <= 64 else 0.0 for i in range(-8, 9)] for j in range(-8, 9)], np.float32)
    disc /= disc.sum()
    vdisc = pyvips.Image.new_from_array(disc.tolist()) if vips_ok else None
    row("Disc blur r=8", "8-bit; the mean over the pixels within 8 of the centre, edges clamped", "CIDiscBlur",
        F("none", "rgba8", "CIDiscBlur:inputRadius=8"),
        opencv=cv_ok and (lambda: cv2.filter2D(bgr, -1, disc, borderType=cv2.BORDER_REPLICATE)) or None,
        libvips=vips_ok and (lambda: vimg.conv(vdisc, precision="float").cast("uchar").copy_memory()) or None)
    row("Unsharp mask σ=2.5, 0.5", "8-bit; I + 0.5 (I − G_2.5(I)); OpenCV GaussianBlur + addWeighted, Pillow "
        "UnsharpMask(2.5, 50 %, 0)", "CIUnsharpMask", F("none", "rgba8", "CIUnsharpMask:inputRadius=2.5,inputIntensity=0.5"),
        opencv=cv_ok and (lambda: cv2.addWeighted(bgr, 1.5, cv2.GaussianBlur(bgr, (0, 0), 2.5, borderType=cv2.BORDER_REPLICATE), -0.5, 0)) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.UnsharpMask(2.5, 50, 0))) or None)

    # ---- blend modes (opaque over opaque: co = B(Cb, Cs))
    for name, filt, cvf, vmode, pilf in [
        ("multiply", "CIMultiplyBlendMode", lambda: cv2.multiply(bgr, bgr2, scale=1 / 255), "multiply", lambda: ImageChops.multiply(pim, pim2)),
        ("screen", "CIScreenBlendMode", None, "screen", lambda: ImageChops.screen(pim, pim2)),
        ("overlay", "CIOverlayBlendMode", None, "overlay", lambda: ImageChops.overlay(pim2, pim)),
        ("difference", "CIDifferenceBlendMode", lambda: cv2.absdiff(bgr, bgr2), "difference", lambda: ImageChops.difference(pim, pim2)),
    ]:
        row(f"Blend mode: {name}", f"8-bit; W3C {name} of two opaque photos; vips composite2 (float inside)", filt,
            F("none", "rgba8", f"{filt}:inputBackgroundImage=@bg"),
            opencv=cv_ok and cvf or None,
            libvips=vips_ok and (lambda v=vmode: vimg2.composite2(vimg, v).cast("uchar").copy_memory()) or None,
            pillow=pil_ok and pilf or None)

    # ---- reductions
    # The sums and extremes read the photo as packed RGB8 (3 bytes a pixel, as the peers' arrays):
    # they only read, so the bytes a pixel are what they cost. (Counting is bound by its
    # increments, and reads RGBA8 faster.)
    row("Area average", "the mean of every channel over the whole image; Sfumato reads RGB8", "CIAreaAverage",
        F("none", "rgb8", "CIAreaAverage"),
        notes=["Area average is one read of the image (72 MB as RGB8) at the machine's memory bandwidth, on both "
               "tools' two threads: measured apart in the harness's order (medians of 15, 2026-12-05), Sfumato "
               "1.52 ms and cv2.mean 1.51–1.60 ms cold, about 1.2 and 0.9–1.0 ms back to back (part of the image "
               "still in the 32 MB L3). Before Sfumato's render threads were bound to cores it took 2.07 ms here: "
               "after Pillow's single-threaded turn its second thread, woken onto the busy core, started about "
               "1 ms late."],
        opencv=cv_ok and (lambda: cv2.mean(bgr)) or None,
        libvips=vips_ok and (lambda: [vimg.extract_band(b).avg() for b in range(3)]) or None,
        pillow=pil_ok and (lambda: ImageStat.Stat(pim).mean) or None)
    row("Area min/max", "the minimum and maximum of every channel over the whole image; Sfumato reads RGB8", "CIAreaMinMax",
        F("none", "rgb8", "CIAreaMinMax"),
        opencv=cv_ok and (lambda: [cv2.minMaxLoc(ch) for ch in cv2.split(bgr)]) or None,
        libvips=vips_ok and (lambda: vimg.stats().copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.getextrema()) or None)
    row("Area histogram, 256 bins", "per channel, 256 bins over the whole image", "CIAreaHistogram",
        F("none", "rgba8", "CIAreaHistogram:inputCount=256"),
        opencv=cv_ok and (lambda: [cv2.calcHist([bgr], [k], None, [256], [0, 256]) for k in range(3)]) or None,
        libvips=vips_ok and (lambda: vimg.hist_find().copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.histogram()) or None)

    # ---- 3D LUT
    n = 33
    grid = np.linspace(0, 1, n)
    b_, g_, r_ = np.meshgrid(grid, grid, grid, indexing="ij")
    table = np.stack([np.clip(r_ * 1.1 + 0.02, 0, 1), g_ ** 0.9, b_ * 0.85 + 0.05 * r_], axis=-1).reshape(-1, 3)
    cube = WORK / "everyday-grade.cube"
    cube.write_text(f"LUT_3D_SIZE {n}\n" + "".join(f"{x:.6f} {y:.6f} {z:.6f}\n" for x, y, z in table))
    data = ";".join(f"{v:.6f}" for e in table for v in (*e, 1.0))
    plut = ImageFilter.Color3DLUT(n, [tuple(e) for e in table]) if PIL is not None else None
    t.cube_n, t.cube_data, t.cube_plut = n, data, plut  # and CIColorCube the same table
    row("3D LUT 33³ (.cube)", "8-bit; trilinear lookup in a 33³ table on encoded values; Pillow Color3DLUT "
        "(the only peer with one)", "CIColorCubeWithColorSpace",
        F("none", "rgba8", f"CIColorCubeWithColorSpace:inputCubeDimension={n},inputCubeData=[{data}]"),
        pillow=pil_ok and (lambda: pim.filter(plut)) or None)
