"""More rows for Core Image's everyday filters: colour, compositing and blend modes, generators, geometry, stylize
and reductions (the filters everyday.py leaves out). Same group, same backdrop, same style."""
from __future__ import annotations

import math

import numpy as np

from .common import Image, ImageChops, ImageFilter, ImageOps, cv2, pyvips
from .everyday import G_EVERYDAY
from .harness import _KEEPALIVE, Row


def rgb_to_bgr3(m: np.ndarray) -> np.ndarray:
    """A 3×3 RGB matrix as cv2.transform wants it for BGR pixels."""
    p = [2, 1, 0]
    return np.ascontiguousarray(m[np.ix_(p, p)]).astype(np.float32)


def homography(src, dst) -> np.ndarray:
    """The 3×3 projective map taking the four points src to dst (h33 = 1)."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        b += [u, v]
    return np.append(np.linalg.solve(np.array(a, float), np.array(b, float)), 1.0).reshape(3, 3)


def everyday_more_rows(t) -> None:
    srv, w, h, bgr, vimg, pim, F, have, cv_ok, vips_ok, pil_ok, rows, img = (
        t.srv, t.w, t.h, t.bgr, t.vimg, t.pim, t.F, t.have, t.cv_ok, t.vips_ok, t.pil_ok, t.rows, t.img)
    bgr2, vimg2, pim2 = t.bgr2, t.vimg2, t.pim2  # the photo upside down (everyday.py), loaded as `bg`
    gray, pgray = t.gray, t.pgray  # the photo's BT.601 grey (OpenCV's), the mask of CIBlendWithMask
    vmask = None
    if vips_ok:  # the same grey for vips (t.vgray is vips' own b-w conversion, a little different)
        _KEEPALIVE.append(gray)
        vmask = pyvips.Image.new_from_memory(gray.data, w, h, 1, "uchar")
    srv.command(f"load mask {t.gray_png}")
    rep = cv2.BORDER_REPLICATE if cv_ok else None
    details = ("More everyday Core Image filters, 8-bit, `none rgba8`, as the everyday rows above. A point filter "
               "whose 8-bit result is a function of each channel alone is given to the peers as one 256-entry table "
               "per channel, computed in Python from the filter's definition (cv2.LUT, pyvips maplut, Pillow point); "
               "a colour matrix as cv2.transform (BGR order) / pyvips recomb + cast uchar / Pillow "
               "convert('RGB', matrix). The peers' 8-bit results were checked against `sfumato apply` on a "
               "600×400 copy of the photo (within 1–2 levels where the row says nothing else). Two-image filters "
               "take the photo as the source and the photo upside down as the backdrop (both opaque); "
               "CIBlendWithMask's mask is the photo's BT.601 grey. Generators ignore the photo and fill its frame. "
               "A row with only a Sfumato time has no peer with the operation.")

    def row(op, computes, filt, sfumato, excluded=(), notes=(), image=None, **peers):
        rows.append(Row(G_EVERYDAY, op, image or img, computes, details=details, filters=(filt,),
                        excluded=set(excluded), notes=list(notes), tools=have(sfumato=sfumato, **peers)))

    def spec(name, **params):
        """NAME:key=value,... with vectors as [a;b;c] (the bench line protocol splits words on spaces)."""
        def fmt(v):
            return "[" + ";".join(f"{x:g}" for x in v) + "]" if isinstance(v, (list, tuple, np.ndarray)) else f"{v:g}"
        return F("none", "rgba8", name + (":" + ",".join(f"{k}={fmt(v)}" for k, v in params.items()) if params else ""))

    def table_peers(lut):
        """Peers for a per-channel table: lut is (256,) for every channel or (3, 256) in R, G, B order."""
        lut = np.asarray(lut, np.uint8)
        per = lut.reshape(-1, 256) if lut.ndim == 2 else np.stack([lut] * 3)
        cvl = np.ascontiguousarray(per[::-1].T.reshape(1, 256, 3)) if cv_ok else None  # BGR
        vbuf = np.ascontiguousarray(per.T.reshape(1, 256, 3))
        _KEEPALIVE.append(vbuf)  # vips reads the table from this memory
        vl = pyvips.Image.new_from_array(vbuf) if vips_ok else None
        pl = [int(x) for x in per.ravel()]
        return dict(opencv=cv_ok and (lambda: cv2.LUT(bgr, cvl)) or None,
                    libvips=vips_ok and (lambda: vimg.maplut(vl).copy_memory()) or None,
                    pillow=pil_ok and (lambda: pim.point(pl)) or None)

    def matrix_peers(m):
        """Peers for a 3×3 matrix on RGB (no offset)."""
        mc = rgb_to_bgr3(m) if cv_ok else None
        ml = m.tolist()
        pm = tuple(float(x) for x in np.hstack([m, np.zeros((3, 1))]).ravel())
        return dict(opencv=cv_ok and (lambda: cv2.transform(bgr, mc)) or None,
                    libvips=vips_ok and (lambda: vimg.recomb(ml).cast("uchar").copy_memory()) or None,
                    pillow=pil_ok and (lambda: pim.convert("RGB", matrix=pm)) or None)

    def levels(f):
        """A table from f on 0...1 values, clamped and rounded to 8 bits."""
        return np.clip(np.round(255 * f(np.arange(256) / 255.0)), 0, 255).astype(np.uint8)

    luma709 = np.array([0.2125, 0.7154, 0.0721])

    # ---- colour
    row("Colour invert", "8-bit; 255 − v per channel, alpha kept; cv2.bitwise_not, vips invert, Pillow ImageOps.invert",
        "CIColorInvert", spec("CIColorInvert"),
        opencv=cv_ok and (lambda: cv2.bitwise_not(bgr)) or None,
        libvips=vips_ok and (lambda: vimg.invert().copy_memory()) or None,
        pillow=pil_ok and (lambda: ImageOps.invert(pim)) or None)
    sepia = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
    row("Sepia tone, intensity 1", "8-bit; the W3C sepia matrix (3×3); peers the same matrix", "CISepiaTone",
        spec("CISepiaTone", inputIntensity=1), **matrix_peers(sepia))
    tint = np.array([0.6, 0.45, 0.3])
    row("Colour monochrome (0.6 0.45 0.3), intensity 1", "8-bit; K × Rec.709 luma = one rank-1 3×3 matrix; peers "
        "the same matrix", "CIColorMonochrome", spec("CIColorMonochrome", inputColor=tint, inputIntensity=1),
        **matrix_peers(np.outer(tint, luma709)))
    row("Colour posterize, 6 levels", "8-bit; round(v·5)/5 per channel (6 levels, black to white); peers the same "
        "table (Pillow's ImageOps.posterize keeps the top bits instead: not this)", "CIColorPosterize",
        spec("CIColorPosterize", inputLevels=6), **table_peers(levels(lambda v: np.round(v * 5) / 5)))
    lo, hi = 0.0627, 0.9216
    row("Colour clamp to 16…235", "8-bit; min(max(v, 16), 235) per colour channel (video levels), alpha 0…1; "
        "peers the same table", "CIColorClamp",
        spec("CIColorClamp", inputMinComponents=[lo, lo, lo, 0], inputMaxComponents=[hi, hi, hi, 1]),
        **table_peers(levels(lambda v: np.clip(v, lo, hi))))
    poly = {"Red": [0, 0.5, 1.5, -1], "Green": [0, 0.6, 1.2, -0.8], "Blue": [0, 0.7, 0.9, -0.6]}
    row("Colour polynomial (cubic S-curves)", "8-bit; a0 + a1 c + a2 c² + a3 c³ per channel (R 0 .5 1.5 −1, "
        "G 0 .6 1.2 −.8, B 0 .7 .9 −.6); peers the same three tables", "CIColorPolynomial",
        spec("CIColorPolynomial", **{f"input{c}Coefficients": a for c, a in poly.items()}),
        **table_peers(np.stack([levels(lambda v, a=a: a[0] + a[1] * v + a[2] * v * v + a[3] * v ** 3)
                                for a in poly.values()])))
    for name, filt, cvf, vindex, pilf in [
        ("Maximum component", "CIMaximumComponent", cv2 and cv2.max, 2, ImageChops and ImageChops.lighter),
        ("Minimum component", "CIMinimumComponent", cv2 and cv2.min, 0, ImageChops and ImageChops.darker),
    ]:
        row(name, f"8-bit; grey = {name.split()[0].lower()}(R, G, B); Sfumato RGBA out, peers one grey channel "
            "(cv2.split + two cv2.max/min, vips bandrank, Pillow split + two ImageChops)", filt, spec(filt),
            opencv=cv_ok and (lambda f=cvf: (lambda b, g, r: f(f(b, g), r))(*cv2.split(bgr))) or None,
            libvips=vips_ok and (lambda i=vindex: vimg[0].bandrank([vimg[1], vimg[2]], index=i).copy_memory()) or None,
            pillow=pil_ok and (lambda f=pilf: (lambda r, g, b: f(f(r, g), b))(*pim.split())) or None)
    row("Vibrance 0.5", "8-bit; GPUImage's vibrance (saturation weighted by max − mean); no peer has it",
        "CIVibrance", spec("CIVibrance", inputAmount=0.5))
    white = np.array([1, 0.95, 0.85])

    def dec(v):
        return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)

    def enc(v):
        v = np.clip(v, 0, 1)
        return np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)
    row("White point adjust (1 0.95 0.85)", "8-bit; C × W in linear light (decoded, scaled, encoded: one curve per "
        "channel); peers the same three tables", "CIWhitePointAdjust",
        spec("CIWhitePointAdjust", inputColor=[*white, 1]),
        **table_peers(np.stack([levels(lambda v, k=k: enc(dec(v) * dec(k))) for k in white])))
    row("Temperature and tint, 5000 K → 6500 K", "8-bit; Bradford adaptation between Planckian whites on linear "
        "sRGB (a 3×3 in linear light); no peer has it", "CITemperatureAndTint",
        spec("CITemperatureAndTint", inputNeutral=[5000, 0], inputTargetNeutral=[6500, 0]))
    row("Highlight / shadow (shadow 0.5, highlight 0.8)", "8-bit; C (1 + s (1 − L)²)(1 − (1 − h) L²) from each "
        "pixel's luminance (radius 0); no peer has it", "CIHighlightShadowAdjust",
        spec("CIHighlightShadowAdjust", inputRadius=0, inputShadowAmount=0.5, inputHighlightAmount=0.8))
    row("Colour cube 33³", "8-bit; trilinear lookup in the 3D LUT row's 33³ table on encoded values (the working "
        "space is `none`); Pillow Color3DLUT", "CIColorCube",
        F("none", "rgba8", f"CIColorCube:inputCubeDimension={t.cube_n},inputCubeData=[{t.cube_data}]"),
        pillow=pil_ok and (lambda: pim.filter(t.cube_plut)) or None)
    row("Vignette, intensity 0.5", "8-bit; C (1 − 0.5 min(1, d²)), d the distance to the centre in half-diagonals; "
        "no peer has a vignette", "CIVignette", spec("CIVignette", inputIntensity=0.5, inputRadius=1))
    row("Vignette effect", f"8-bit; black outside a circle of radius {round(0.3 * w)} at the centre, smoothstep "
        "fade over ±50 %; no peer has it", "CIVignetteEffect",
        spec("CIVignetteEffect", inputCenter=[w / 2, h / 2], inputRadius=round(0.3 * w), inputIntensity=1,
             inputFalloff=0.5))

    # ---- compositing (opaque over opaque)
    for name, filt, vmode, what in [
        ("Source atop", "CISourceAtopCompositing", "atop", "S·Da + D (1 − Sa): the source, both being opaque"),
        ("Source in", "CISourceInCompositing", "in", "S·Da: the source, both being opaque"),
        ("Source out", "CISourceOutCompositing", "out", "S (1 − Da): transparent black, both being opaque"),
    ]:
        row(name, f"8-bit; {what}; vips composite2 '{vmode}' (float inside); OpenCV and Pillow have no such operator",
            filt, F("none", "rgba8", f"{filt}:inputBackgroundImage=@bg"),
            libvips=vips_ok and (lambda v=vmode: vimg2.composite2(vimg, v).cast("uchar").copy_memory()) or None)
    row("Multiply compositing", "8-bit; S·D, alpha too (opaque: the multiply blend); cv2.multiply(scale 1/255), vips "
        "composite2 multiply, Pillow ImageChops.multiply", "CIMultiplyCompositing",
        F("none", "rgba8", "CIMultiplyCompositing:inputBackgroundImage=@bg"),
        opencv=cv_ok and (lambda: cv2.multiply(bgr, bgr2, scale=1 / 255)) or None,
        libvips=vips_ok and (lambda: vimg2.composite2(vimg, "multiply").cast("uchar").copy_memory()) or None,
        pillow=pil_ok and (lambda: ImageChops.multiply(pim, pim2)) or None)
    wm = gray.astype(np.float32) / 255 if cv_ok else None
    wm1 = (1 - wm) if cv_ok else None
    row("Blend with mask", "8-bit; S m + D (1 − m), m the mask's grey (Rec.709 luma of a grey = the grey); "
        "cv2.blendLinear (given the float weights m and 1 − m, made before the timing), vips ifthenelse(blend), "
        "Pillow Image.composite", "CIBlendWithMask",
        F("none", "rgba8", "CIBlendWithMask:inputBackgroundImage=@bg,inputMaskImage=@mask"),
        opencv=cv_ok and (lambda: cv2.blendLinear(bgr, bgr2, wm, wm1)) or None,
        libvips=vips_ok and (lambda: vmask.ifthenelse(vimg, vimg2, blend=True).copy_memory()) or None,
        pillow=pil_ok and (lambda: Image.composite(pim, pim2, pgray)) or None)

    # ---- blend modes (opaque over opaque: co = B(Cb, Cs); Cs the photo, Cb the backdrop)
    lin_burn = dict(opencv=cv_ok and (lambda: cv2.addWeighted(bgr, 1, bgr2, 1, -255)) or None,
                    libvips=vips_ok and (lambda: (vimg + vimg2).linear(1, -255).cast("uchar").copy_memory()) or None,
                    pillow=pil_ok and (lambda: ImageChops.add(pim, pim2, 1, -255)) or None)
    for name, filt, how, peers, excluded in [
        ("soft light", "CISoftLightBlendMode", "W3C soft light; vips composite2 (the W3C formula, float inside); "
         "Pillow's soft_light is another formula (not ranked)",
         dict(libvips="soft-light", pillow=lambda: ImageChops.soft_light(pim2, pim)), ("pillow",)),
        ("hard light", "CIHardLightBlendMode", "W3C hard light (the source decides); vips composite2; Pillow "
         "hard_light (÷127 in integers)", dict(libvips="hard-light", pillow=lambda: ImageChops.hard_light(pim2, pim)), ()),
        ("darken", "CIDarkenBlendMode", "min(Cb, Cs); cv2.min, vips composite2, Pillow darker",
         dict(opencv=lambda: cv2.min(bgr, bgr2), libvips="darken", pillow=lambda: ImageChops.darker(pim, pim2)), ()),
        ("lighten", "CILightenBlendMode", "max(Cb, Cs); cv2.max, vips composite2, Pillow lighter",
         dict(opencv=lambda: cv2.max(bgr, bgr2), libvips="lighten", pillow=lambda: ImageChops.lighter(pim, pim2)), ()),
        ("exclusion", "CIExclusionBlendMode", "Cb + Cs − 2 Cb Cs; vips composite2", dict(libvips="exclusion"), ()),
        ("colour dodge", "CIColorDodgeBlendMode", "min(1, Cb / (1 − Cs)); vips composite2 (which gives 1, not 0, "
         "where Cb = 0 and Cs = 1)", dict(libvips="colour-dodge"), ()),
        ("colour burn", "CIColorBurnBlendMode", "1 − min(1, (1 − Cb) / Cs); vips composite2 (which gives 0, not 1, "
         "where Cb = 1 and Cs = 0)", dict(libvips="colour-burn"), ()),
        ("linear dodge", "CILinearDodgeBlendMode", "min(1, Cb + Cs); cv2.add, vips add + cast, Pillow ImageChops.add",
         dict(opencv=lambda: cv2.add(bgr, bgr2), libvips=lambda: (vimg + vimg2).cast("uchar").copy_memory(),
              pillow=lambda: ImageChops.add(pim, pim2)), ()),
        ("linear burn", "CILinearBurnBlendMode", "max(0, Cb + Cs − 1); cv2.addWeighted(1, 1, −255), vips add + "
         "linear + cast, Pillow ImageChops.add(offset −255)", lin_burn, ()),
        ("subtract", "CISubtractBlendMode", "max(0, Cb − Cs); cv2.subtract, vips subtract + cast, Pillow "
         "ImageChops.subtract",
         dict(opencv=lambda: cv2.subtract(bgr2, bgr), libvips=lambda: (vimg2 - vimg).cast("uchar").copy_memory(),
              pillow=lambda: ImageChops.subtract(pim2, pim)), ()),
        ("divide", "CIDivideBlendMode", "min(1, Cb / Cs), Cs = 0 → 1 (0 where Cb = 0 too); cv2.divide(scale 255) "
         "gives 0 where Cs = 0 (not ranked)", dict(opencv=lambda: cv2.divide(bgr2, bgr, scale=255)), ("opencv",)),
        ("pin light", "CIPinLightBlendMode", "Cs ≤ ½ ? min(Cb, 2Cs) : max(Cb, 2Cs − 1); no peer has it", {}, ()),
        ("vivid light", "CIVividLightBlendMode", "colour burn by 2Cs or colour dodge by 2Cs − 1; no peer has it", {}, ()),
        ("hue", "CIHueBlendMode", "W3C non-separable hue (SetLum, SetSat, ClipColor); no peer has it", {}, ()),
        ("saturation", "CISaturationBlendMode", "W3C non-separable saturation; no peer has it", {}, ()),
        ("colour", "CIColorBlendMode", "W3C non-separable colour; no peer has it", {}, ()),
        ("luminosity", "CILuminosityBlendMode", "W3C non-separable luminosity; no peer has it", {}, ()),
    ]:
        tools = {}
        for k, v in peers.items():
            ok = {"opencv": cv_ok, "libvips": vips_ok, "pillow": pil_ok}[k]
            if isinstance(v, str):  # a vips composite2 mode
                tools[k] = ok and (lambda m=v: vimg2.composite2(vimg, m).cast("uchar").copy_memory()) or None
            else:
                tools[k] = ok and v or None
        row(f"Blend mode: {name}", f"8-bit; {how}", filt, F("none", "rgba8", f"{filt}:inputBackgroundImage=@bg"),
            excluded=excluded, **tools)

    # ---- generators (the photo's frame; colours straight sRGB)
    row("Constant colour (0.2 0.4 0.6)", "8-bit; one colour everywhere; vips new_from_image, Pillow Image.new "
        "(OpenCV images are numpy arrays: no OpenCV call)", "CIConstantColorGenerator",
        spec("CIConstantColorGenerator", inputColor=[0.2, 0.4, 0.6, 1]),
        libvips=vips_ok and (lambda: vimg.new_from_image([51, 102, 153]).copy_memory()) or None,
        pillow=pil_ok and (lambda: Image.new("RGB", (w, h), (51, 102, 153))) or None)
    c0, c1 = np.array([1, 0.6, 0.2]), np.array([0.1, 0.2, 0.6])
    gd, gb = ((c1 - c0) * 255).tolist(), (c0 * 255 + 0.5).tolist()  # + 0.5: vips' cast truncates
    row("Linear gradient, left to right", "8-bit; orange to blue across the width, t = (x + ½)/width; vips grey "
        "(t = x/(width − 1)) + linear to 3 bands + cast (within one level); OpenCV and Pillow have no "
        "gradient of this size", "CILinearGradient",
        spec("CILinearGradient", inputPoint0=[0, h / 2], inputPoint1=[w, h / 2], inputColor0=[*c0, 1],
             inputColor1=[*c1, 1]),
        libvips=vips_ok and (lambda: pyvips.Image.grey(w, h).linear(gd, gb).cast("uchar").copy_memory()) or None)
    row("Radial gradient", f"8-bit; white to black from radius {round(w / 12)} to {round(0.6 * w)} about the centre; "
        "no peer has it", "CIRadialGradient",
        spec("CIRadialGradient", inputCenter=[w / 2, h / 2], inputRadius0=round(w / 12), inputRadius1=round(0.6 * w),
             inputColor0=[1, 1, 1, 1], inputColor1=[0, 0, 0, 1]))
    row("Checkerboard, 80 px squares", "8-bit; black and white squares, hard edges; no peer has it",
        "CICheckerboardGenerator", spec("CICheckerboardGenerator", inputCenter=[0, 0], inputWidth=80, inputSharpness=1))
    row("Random (uniform noise)", "8-bit; uniform noise in every channel (Sfumato a hash of the pixel's position, "
        "RGBA; cv2.randu into a new 3-channel array: another generator, the same distribution); vips gaussnoise and "
        "Pillow effect_noise make Gaussian noise in one band (not timed)", "CIRandomGenerator",
        spec("CIRandomGenerator"),
        opencv=cv_ok and (lambda: cv2.randu(np.empty((h, w, 3), np.uint8), 0, 256)) or None)

    # ---- geometry
    x0, y0, cw, ch = w // 4, h // 4, w // 2, h // 2
    row(f"Crop to the centre {cw}×{ch}", "8-bit; the pixels of the rectangle, copied; Sfumato RGB8 to RGB8 (a copy "
        "moves the bytes a pixel, so each tool its 3); OpenCV a numpy slice + copy (OpenCV images are numpy arrays), "
        "vips crop, Pillow crop", "CICrop",
        F("none", "rgb8", f"CICrop:inputRectangle=[{x0};{y0};{cw};{ch}]"),
        opencv=cv_ok and (lambda: bgr[y0:y0 + ch, x0:x0 + cw].copy()) or None,
        libvips=vips_ok and (lambda: vimg.crop(x0, y0, cw, ch).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.crop((x0, y0, x0 + cw, y0 + ch))) or None)
    a = 0.05
    s = abs(math.cos(a)) + max(w / h, h / w) * abs(math.sin(a))
    ca, sa = math.cos(a) * s, math.sin(a) * s
    # Forward map (input → output) about the centre, counter-clockwise as seen (y down): pixel-centre
    # coordinates for OpenCV and vips (centre (w − 1)/2), pixel-corner ones for Pillow (its inverse map).
    mc = np.array([[ca, sa, 0.0], [-sa, ca, 0.0]])
    cx, cy = (w - 1) / 2, (h - 1) / 2
    mc[:, 2] = [cx - ca * cx - sa * cy, cy + sa * cx - ca * cy]
    ic, isn = math.cos(a) / s, math.sin(a) / s
    pil_aff = (ic, -isn, w / 2 - ic * w / 2 + isn * h / 2, isn, ic, h / 2 - isn * w / 2 - ic * h / 2)
    vbil = pyvips.Interpolate.new("bilinear") if vips_ok else None
    row("Straighten 0.05 rad, bilinear", f"8-bit; turn about the centre, enlarged ×{s:.3f} to fill the frame, "
        "bilinear; cv2.warpAffine, vips affine (output area the frame), Pillow transform AFFINE", "CIStraightenFilter",
        F("none", "rgba8", f"CIStraightenFilter:inputAngle={a},inputSampling=bilinear"),
        opencv=cv_ok and (lambda: cv2.warpAffine(bgr, mc, (w, h), flags=cv2.INTER_LINEAR, borderMode=rep)) or None,
        libvips=vips_ok and (lambda: vimg.affine([ca, sa, -sa, ca], interpolate=vbil, oarea=[0, 0, w, h],
                                                 odx=mc[0, 2], ody=mc[1, 2], extend="copy").copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.transform((w, h), Image.AFFINE, pil_aff, Image.BILINEAR)) or None)
    # Every Jacobian row of the output → input map is shorter than 1 over the frame: no kernel widening.
    corners = [(-0.1 * w, -0.1 * h), (1.1 * w, -0.1 * h), (1.05 * w, 1.1 * h), (-0.05 * w, 1.1 * h)]
    frame = [(0, 0), (w, 0), (w, h), (0, h)]
    hcv = homography([(x - 0.5, y - 0.5) for x, y in frame], [(x - 0.5, y - 0.5) for x, y in corners])
    hpil = homography(corners, frame)  # Pillow wants the output → input map, pixel-corner coordinates
    pil_persp = tuple(float(x) for x in (hpil / hpil[2, 2]).ravel()[:8])
    row("Perspective (keystone), bilinear", "8-bit; the frame's corners moved out (top 10 % each way, bottom 5 % "
        "sideways, 10 % down): one projective map that enlarges everywhere (no widened kernel), bilinear; "
        "cv2.warpPerspective, Pillow transform PERSPECTIVE; vips has no perspective warp", "CIPerspectiveTransform",
        F("none", "rgba8", "CIPerspectiveTransform:" + ",".join(
            f"input{k}=[{x:g};{y:g}]" for k, (x, y) in zip(("TopLeft", "TopRight", "BottomRight", "BottomLeft"), corners))
          + ",inputSampling=bilinear"),
        opencv=cv_ok and (lambda: cv2.warpPerspective(bgr, hcv, (w, h), flags=cv2.INTER_LINEAR, borderMode=rep)) or None,
        pillow=pil_ok and (lambda: pim.transform((w, h), Image.PERSPECTIVE, pil_persp, Image.BILINEAR)) or None)

    # ---- blurs and stylize
    vbox = pyvips.Image.new_from_array([[1] * 41], scale=41) if vips_ok else None
    row("Motion blur r=20, angle 0", "8-bit; the mean of 41 samples along x (at whole pixels: a 41×1 box), edges "
        "clamped; cv2.blur (41, 1), vips conv 41×1 (integer), Pillow BoxBlur((20, 0))", "CIMotionBlur",
        spec("CIMotionBlur", inputRadius=20, inputAngle=0),
        opencv=cv_ok and (lambda: cv2.blur(bgr, (41, 1), borderType=rep)) or None,
        libvips=vips_ok and (lambda: vimg.conv(vbox, precision="integer").copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.filter(ImageFilter.BoxBlur((20, 0)))) or None)
    zx, zy, zw, zh = 3 * w // 8, 3 * h // 8, w // 4, h // 4
    row("Zoom blur 20 %, centre crop", f"8-bit; a {zw}×{zh} crop of the photo's centre, each pixel the mean of "
        "bilinear samples 20 % of the way to the centre (up to ~180 samples; the whole photo takes minutes); no peer "
        "has it", "CIZoomBlur",
        F("none", "rgba8", f"CICrop:inputRectangle=[{zx};{zy};{zw};{zh}] "
          f"CIZoomBlur:inputCenter=[{w / 2:g};{h / 2:g}],inputAmount=20"),
        image=f"{zw}×{zh} centre of the {w}×{h} photo")
    row("Sharpen luminance 0.4, σ 1.69", "8-bit; I + 0.4 (L(I) − L(G₁.₆₉(I))) on R, G, B (Rec.709 luma); no peer "
        "sharpens a linear luma this way (vips sharpen works on CIELAB L* with a non-linear gain)",
        "CISharpenLuminance", spec("CISharpenLuminance", inputSharpness=0.4, inputRadius=1.69))
    row("Noise reduction 0.02, sharpness 0.4", "8-bit; G₁(I) + 1.4 × soft-threshold(I − G₁(I), 0.02); no peer has it",
        "CINoiseReduction", spec("CINoiseReduction", inputNoiseLevel=0.02, inputSharpness=0.4))
    half = [min(255, round(v / 2)) for v in range(256)] * 3
    gloom_t = [min(255, round(127.5 + v / 2)) for v in range(256)] * 3
    row("Bloom σ=10, 0.5", "8-bit; screen(I, 0.5 G₁₀(I)), edges clamped; cv2 GaussianBlur + convertScaleAbs + screen "
        "by bitwise_not/multiply (8-bit steps); vips gaussblur + linear + composite2 screen; Pillow GaussianBlur + point "
        "+ ImageChops.screen (vips' and Pillow's Gaussians are approximations: up to 4 and 7 levels off, 98 % of "
        "pixels within 1)", "CIBloom", spec("CIBloom", inputRadius=10, inputIntensity=0.5),
        opencv=cv_ok and (lambda: cv2.bitwise_not(cv2.multiply(cv2.bitwise_not(bgr), cv2.bitwise_not(cv2.convertScaleAbs(
            cv2.GaussianBlur(bgr, (0, 0), 10, borderType=rep), alpha=0.5)), scale=1 / 255))) or None,
        libvips=vips_ok and (lambda: vimg.composite2(vimg.gaussblur(10).linear(0.5, 0), "screen").cast("uchar")
                             .copy_memory()) or None,
        pillow=pil_ok and (lambda: ImageChops.screen(pim, pim.filter(ImageFilter.GaussianBlur(10)).point(half))) or None)
    row("Gloom σ=10, 0.5", "8-bit; I (0.5 + 0.5 G₁₀(I)), edges clamped; cv2 GaussianBlur + convertScaleAbs + "
        "multiply; vips gaussblur + linear + multiply + cast; Pillow GaussianBlur + point + ImageChops.multiply "
        "(their approximate Gaussians: up to 7 and 11 levels off, 99 % of pixels within 1)",
        "CIGloom", spec("CIGloom", inputRadius=10, inputIntensity=0.5),
        opencv=cv_ok and (lambda: cv2.multiply(bgr, cv2.convertScaleAbs(cv2.GaussianBlur(bgr, (0, 0), 10, borderType=rep),
                                                                        alpha=0.5, beta=127.5), scale=1 / 255)) or None,
        libvips=vips_ok and (lambda: (vimg * vimg.gaussblur(10).linear(0.5 / 255, 0.5)).cast("uchar").copy_memory())
        or None,
        pillow=pil_ok and (lambda: ImageChops.multiply(pim, pim.filter(ImageFilter.GaussianBlur(10)).point(gloom_t)))
        or None)
    k = 8
    row(f"Pixellate {k}×{k}", f"8-bit; each {k}×{k} cell (grid from the top-left corner) its mean; cv2.resize "
        "INTER_AREA down + INTER_NEAREST up, vips shrink + zoom, Pillow reduce + resize NEAREST", "CIPixellate",
        spec("CIPixellate", inputCenter=[0, 0], inputScale=k),
        opencv=cv_ok and (lambda: cv2.resize(cv2.resize(bgr, (w // k, h // k), interpolation=cv2.INTER_AREA), (w, h),
                                             interpolation=cv2.INTER_NEAREST)) or None,
        libvips=vips_ok and (lambda: vimg.shrink(k, k).zoom(k, k).copy_memory()) or None,
        pillow=pil_ok and (lambda: pim.reduce(k).resize((w, h), Image.NEAREST)) or None)

    def cv_sobel(src):
        gx = cv2.Sobel(src, cv2.CV_32F, 1, 0, ksize=3, borderType=rep)
        gy = cv2.Sobel(src, cv2.CV_32F, 0, 1, ksize=3, borderType=rep)
        return cv2.convertScaleAbs(cv2.magnitude(gx, gy))
    row("Edges, intensity 1", "8-bit; √(Gx² + Gy²) per channel with the 3×3 Sobel kernels, edges clamped; "
        "cv2.Sobel ×2 + magnitude + convertScaleAbs (equal to Sfumato's); vips sobel computes |Gx| + |Gy| "
        "(up to 76 levels higher; not ranked)", "CIEdges", spec("CIEdges", inputIntensity=1), excluded=("libvips",),
        opencv=cv_ok and (lambda: cv_sobel(bgr)) or None,
        libvips=vips_ok and (lambda: vimg.sobel().copy_memory()) or None)

    # ---- reductions
    for name, filt, cvk, vop in [("Area maximum", "CIAreaMaximum", 1, "max"), ("Area minimum", "CIAreaMinimum", 0, "min")]:
        row(name, f"the {vop}imum of every channel over the whole image (one pixel out); Sfumato reads RGB8; "
            f"cv2.minMaxLoc per channel, vips {vop} per band, Pillow getextrema (both)", filt, F("none", "rgb8", filt),
            opencv=cv_ok and (lambda i=cvk: [cv2.minMaxLoc(c)[i] for c in cv2.split(bgr)]) or None,
            libvips=vips_ok and (lambda o=vop: [getattr(vimg.extract_band(b), o)() for b in range(3)]) or None,
            pillow=pil_ok and (lambda: pim.getextrema()) or None)
