"""The twelve MetalImageFilters presets, as written by `sfumato gallery`, against OpenCV,
scipy.ndimage and NumPy computing the same definitions on the same 8-bit sRGB-encoded values
(docs/spec/FILTERS.md and docs/spec/SEEDS.md). Tolerance: one level, except where a definition has a
knife edge (threshold luma exactly at 0.5)."""
import math
import subprocess

import cv2
import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

from conftest import PHOTOS, real_photo

BORDER = cv2.BORDER_REPLICATE


@pytest.fixture(scope="module")
def gallery(sfumato, tmp_path_factory):
    out = tmp_path_factory.mktemp("gallery")
    photo = real_photo()
    reference = PHOTOS / "coffee.png"
    subprocess.run([sfumato, "gallery", str(photo), "-o", str(out), "--reference", str(reference)], check=True,
                   capture_output=True)
    src = np.asarray(Image.open(photo).convert("RGB"))
    ref = np.asarray(Image.open(reference).convert("RGB"))

    def result(slug):
        im = Image.open(out / f"{slug}.png")
        return np.asarray(im.convert("RGBA"))

    return src, ref, result


def assert_close(got, want, tolerance=1, mask=None, what=""):
    got = got.astype(np.int32)
    want = np.asarray(want).astype(np.int32)
    diff = np.abs(got - want)
    if mask is not None:
        diff = diff[mask]
    worst = int(diff.max()) if diff.size else 0
    assert worst <= tolerance, f"{what}: worst difference {worst} levels ({int((diff > tolerance).sum())} values over)"


def to8(x):
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)


def test_all_twelve_written(gallery):
    src, _, result = gallery
    for slug in ["pass-through", "gaussian-blur", "median", "laplacian", "sobel", "threshold-binary", "convolution-emboss",
                 "convolution-sharpen", "dilate-bokeh", "morphology-closing", "histogram-equalization",
                 "histogram-specification"]:
        assert result(slug).shape[:2] == src.shape[:2], slug


def test_pass_through(gallery):
    src, _, result = gallery
    assert_close(result("pass-through")[..., :3], src, 0, what="pass through")


def test_gaussian_blur_sigma5_transparent_edges(gallery):
    # Edges read as transparent black: blur premultiplied colour and alpha with zeros outside,
    # then the PNG stores straight colour = blurred colour / blurred alpha.
    src, _, result = gallery
    got = result("gaussian-blur").astype(np.float64)
    rgb = src.astype(np.float64)
    alpha = np.ones(src.shape[:2])
    def blur(a):
        return ndimage.gaussian_filter(a, sigma=5, mode="constant", cval=0.0, truncate=3.0)
    a = blur(alpha)
    assert_close(got[..., 3], to8(a * 255), what="blur alpha")
    mask = a >= 0.25
    for c in range(3):
        assert_close(got[..., c], to8(blur(rgb[..., c]) / np.maximum(a, 1e-9)), mask=mask, what=f"blur channel {c}")


def test_median_5x5(gallery):
    src, _, result = gallery
    assert_close(result("median")[..., :3], cv2.medianBlur(src, 5), 0, what="median 5x5")


def filter2d(src, kernel, bias=0.0):
    return to8(cv2.filter2D(src.astype(np.float64), -1, np.array(kernel, np.float64), borderType=BORDER) + bias * 255)


def test_laplacian(gallery):
    src, _, result = gallery
    assert_close(result("laplacian")[..., :3], filter2d(src, [[0, 1, 0], [1, -4, 1], [0, 1, 0]]), what="laplacian")
    assert (result("laplacian")[..., 3] == 255).all()


def test_sobel_per_channel(gallery):
    src, _, result = gallery
    f = src.astype(np.float64) / 255
    gx = cv2.Sobel(f, cv2.CV_64F, 1, 0, ksize=3, borderType=BORDER)
    gy = cv2.Sobel(f, cv2.CV_64F, 0, 1, ksize=3, borderType=BORDER)
    assert_close(result("sobel")[..., :3], to8(np.sqrt(gx * gx + gy * gy) * 255), what="sobel")
    assert (result("sobel")[..., 3] == 255).all()


def test_threshold_binary(gallery):
    src, _, result = gallery
    f = src.astype(np.float64) / 255
    luma = 0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]
    want = np.where(luma > 0.5, 255, 0)
    knife = np.abs(luma - 0.5) < 1e-6
    for c in range(3):
        assert_close(result("threshold-binary")[..., c], want, 0, mask=~knife, what="threshold")


def test_convolutions(gallery):
    src, _, result = gallery
    assert_close(result("convolution-emboss")[..., :3], filter2d(src, [[-2, 0, 0], [0, 1, 0], [0, 0, 2]]), what="emboss")
    sharpen = [[-0.5, -1, -0.5], [-1, 7, -1], [-0.5, -1, -0.5]]
    assert_close(result("convolution-sharpen")[..., :3], filter2d(src, sharpen), what="sharpen")


def test_dilate_bokeh_disc(gallery):
    src, _, result = gallery
    disc = np.array([[1 if math.hypot(i - 7.5, j - 7.5) < 7 else 0 for j in range(15)] for i in range(15)], np.uint8)
    want = cv2.dilate(src, disc, anchor=(7, 7), borderType=BORDER)
    assert_close(result("dilate-bokeh")[..., :3], want, 0, what="dilate disc")


def test_morphology_closing_9x9(gallery):
    src, _, result = gallery
    want = cv2.morphologyEx(src, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8), borderType=BORDER)
    assert_close(result("morphology-closing")[..., :3], want, 0, what="closing")


def test_histogram_equalization(gallery):
    src, _, result = gallery
    want = np.dstack([cv2.equalizeHist(np.ascontiguousarray(src[..., c])) for c in range(3)])
    assert_close(result("histogram-equalization")[..., :3], want, 0, what="equalization")


def test_histogram_specification(gallery):
    # Each level s maps to the smallest level d with CDF_ref(d) >= CDF_src(s), per channel.
    src, ref, result = gallery
    got = result("histogram-specification")
    for c in range(3):
        cs = np.cumsum(np.bincount(src[..., c].ravel(), minlength=256)) / src[..., c].size
        cr = np.cumsum(np.bincount(ref[..., c].ravel(), minlength=256)) / ref[..., c].size
        lut = np.array([int(np.argmax(cr >= v - 1e-12)) for v in cs], np.uint8)
        assert_close(got[..., c], lut[src[..., c]], 0, what=f"specification channel {c}")


def test_gray_images_match_opencv(sfumato, tmp_path):
    """`sfumato apply --gray` (Gray8, a byte a pixel): the luminance, then the Laplacian, the
    disc dilation, the Sobel magnitude and a 5x5 closing on it, against OpenCV on that same grey
    image."""
    photo = real_photo()

    def apply(name, *filters):
        out = tmp_path / f"{name}.png"
        args = [sfumato, "apply", str(photo), "-o", str(out), "--gray", "--working-space", "none"]
        for f in filters:
            args += ["-f", f]
        subprocess.run(args, check=True, capture_output=True)
        im = Image.open(out)
        assert im.mode == "L", f"{name}: written as {im.mode}, not greyscale"
        return np.asarray(im)

    gray = apply("gray")
    src = np.asarray(Image.open(photo).convert("RGB")).astype(np.float64)
    luminance = 0.2126 * src[..., 0] + 0.7152 * src[..., 1] + 0.0722 * src[..., 2]
    assert_close(gray, to8(luminance), what="Rec. 709 luminance of the encoded values")
    assert_close(apply("laplacian", "laplacian"), filter2d(gray, [[0, 1, 0], [1, -4, 1], [0, 1, 0]]), 0, what="grey laplacian")
    disc = np.array([[1 if math.hypot(i - 7.5, j - 7.5) < 7 else 0 for j in range(15)] for i in range(15)], np.uint8)
    probe = " ".join("0" if t else "1" for t in disc.ravel())
    assert_close(apply("dilate", f"dilate:width=15,height=15,probe=[{probe}]"),
                 cv2.dilate(gray, disc, anchor=(7, 7), borderType=BORDER), 0, what="grey disc dilation")
    f = gray.astype(np.float64) / 255
    gx = cv2.Sobel(f, cv2.CV_64F, 1, 0, ksize=3, borderType=BORDER)
    gy = cv2.Sobel(f, cv2.CV_64F, 0, 1, ksize=3, borderType=BORDER)
    assert_close(apply("sobel", "sobel"), to8(np.sqrt(gx * gx + gy * gy) * 255), what="grey sobel")
    assert_close(apply("closing", "closing:width=5,height=5"),
                 cv2.morphologyEx(gray, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8), borderType=BORDER), 0, what="grey closing")


def test_wide_vectors_give_the_baseline_bytes(sfumato, tmp_path):
    """The AVX-512 twins (used where /proc/cpuinfo lists AVX-512) and the baseline code, chosen
    by SFUMATO_SIMD, write the same files for a real photo, and `--explain` names the route."""
    import os
    photo = real_photo()
    flags = open("/proc/cpuinfo").read()
    has_avx512 = " avx512vbmi " in flags and " avx512bw " in flags
    chains = {"gaussian-10": ["gaussian-blur:radius=10,edges=clamp"], "gaussian-2": ["gaussian-blur:radius=2"],
              "median": ["median:diameter=3"], "hue": ["CIHueAdjust:inputAngle=1"]}
    for name, filters in chains.items():
        outputs = []
        for mode in ("default", "baseline"):
            env = dict(os.environ)
            env.pop("SFUMATO_SIMD", None)
            if mode == "baseline":
                env["SFUMATO_SIMD"] = "baseline"
            out = tmp_path / f"{name}-{mode}.png"
            args = [sfumato, "apply", str(photo), "-o", str(out), "--working-space", "none", "--explain"]
            for f in filters:
                args += ["-f", f]
            explained = subprocess.run(args, check=True, capture_output=True, text=True, env=env).stdout
            wide = mode == "default" and has_avx512
            assert ("vectors AVX-512" in explained) == wide, f"{name} ({mode}): {explained.splitlines()[0]}"
            outputs.append(np.asarray(Image.open(out)))
        assert np.array_equal(outputs[0], outputs[1]), f"{name}: {np.count_nonzero(outputs[0] != outputs[1])} values differ"


def test_avx512_code_stays_in_its_module(sfumato):
    """The SfumatoAVX512 module is compiled for AVX-512 and entered only on processors that have
    it. Any other function of the binary with AVX code (a value witness or a generic
    specialisation the linker took from that module instead of the baseline copy) would crash
    on an older processor, whatever SFUMATO_SIMD says. objdump lists every function's
    instructions; VEX/EVEX ones start with 'v' or use mask registers."""
    import re
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", sfumato], check=True, capture_output=True,
                             text=True).stdout
    offenders, wide_instructions, current = {}, 0, None
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if header:
            current = header.group(1)
            continue
        parts = line.split("\t")
        if current is None or len(parts) < 2:
            continue
        mnemonic = parts[1].split()[0] if parts[1].split() else ""
        if mnemonic.startswith("v") or re.search(r"%k[0-7]\b|%[yz]mm", line):
            if current.startswith("$s13SfumatoAVX512"):
                wide_instructions += 1
            else:
                offenders.setdefault(current, line.strip())
    assert wide_instructions > 0, "no AVX code found in SfumatoAVX512: was the module compiled for AVX-512?"
    assert not offenders, f"AVX instructions outside SfumatoAVX512: {list(offenders.items())[:5]}"
