"""`sfumato apply`'s geometry against OpenCV's warpAffine and Pillow's LANCZOS resize, on a real photo,
in the encoded working space (what both peers compute on). Sfumato maps pixel centres (a pixel's centre
at index + 0.5) and leaves transparent what comes from outside the image; OpenCV maps indices, so its
matrix is conjugated by the half-pixel shift, and only pixels whose whole kernel lies inside the photo
are compared (edges differ by definition: transparent here, replicated there; Pillow renormalizes).
Tolerances: OpenCV's 8-bit warps quantize coordinates to 1/32 pixel and weights to 11 bits: within 1
level, 0.05 on average (measured: 1 and 0.002); Pillow's resize rounds its first pass to 8 bits: within 2
levels, 0.25 on average (measured: 2 and 0.11...0.19)."""
import math
import subprocess

import cv2
import numpy as np
import pytest
from PIL import Image

from conftest import PHOTOS

PHOTO = PHOTOS / "chelsea.png"


def bounding_box(m, w, h):
    """Sfumato's extent of the transformed image: the mapped corners' bounding box in whole pixels."""
    xs, ys = [], []
    for x, y in ((0, 0), (w, 0), (0, h), (w, h)):
        xs.append(m[0] * x + m[2] * y + m[4])
        ys.append(m[1] * x + m[3] * y + m[5])

    def snap(v):
        return round(v) if abs(v - round(v)) < 1e-6 else v
    return math.floor(snap(min(xs))), math.floor(snap(min(ys))), math.ceil(snap(max(xs))), math.ceil(snap(max(ys)))


def run_apply(sfumato, tmp_path, filt):
    out = tmp_path / "out.png"
    subprocess.run([sfumato, "apply", str(PHOTO), "-o", str(out), "--working-space", "none", "-f", filt], check=True,
                   capture_output=True)
    return np.asarray(Image.open(out).convert("RGBA")).astype(np.int32)


def summary(got, want, mask):
    diff = np.abs(got - want)[mask]
    return int(diff.max()), float(diff.mean())


@pytest.mark.parametrize("sampling,flag", [("bilinear", cv2.INTER_LINEAR), ("bicubic", cv2.INTER_CUBIC)])
def test_affine_matches_warp_affine(sfumato, tmp_path, sampling, flag):
    src = np.asarray(Image.open(PHOTO).convert("RGB"))
    h, w = src.shape[:2]
    angle, scale = 0.35, 1.25
    c, s = math.cos(angle) * scale, math.sin(angle) * scale
    m = [c, s, -s, c, 40.0, -25.0]  # x' = a x + c y + tx, y' = b x + d y + ty
    got = run_apply(sfumato, tmp_path, f"affine:transform=[{' '.join(map(str, m))}],sampling={sampling}")
    x0, y0, x1, y1 = bounding_box(m, w, h)
    assert got.shape[:2] == (y1 - y0, x1 - x0)
    # OpenCV maps output index (i, j) to input index M^-1 (i, j): conjugate Sfumato's centre-based map by the
    # half-pixel shift and move the output's origin to the extent's corner.
    a = np.array([[m[0], m[2]], [m[1], m[3]]])
    t = np.array([m[4], m[5]]) + a @ [0.5, 0.5] - [0.5, 0.5] - [x0, y0]
    cv = cv2.warpAffine(src, np.hstack([a, t[:, None]]), (x1 - x0, y1 - y0), flags=flag, borderMode=cv2.BORDER_REPLICATE)
    # Pixels whose source point lies 3 pixels or more inside the photo.
    jj, ii = np.mgrid[0:y1 - y0, 0:x1 - x0]
    inv = np.linalg.inv(a)
    px = inv[0, 0] * (ii + x0 + 0.5 - m[4]) + inv[0, 1] * (jj + y0 + 0.5 - m[5])
    py = inv[1, 0] * (ii + x0 + 0.5 - m[4]) + inv[1, 1] * (jj + y0 + 0.5 - m[5])
    inside = (px > 3) & (px < w - 3) & (py > 3) & (py < h - 3)
    assert inside.sum() > 0.5 * w * h
    assert (got[..., 3][inside] == 255).all()
    worst, mean = summary(got[..., :3], cv.astype(np.int32), inside)
    print(f"{sampling}: worst {worst}, mean {mean:.3f}")
    assert worst <= 1 and mean <= 0.05, f"{sampling}: worst {worst} levels, mean {mean:.3f} from cv2.warpAffine"


@pytest.mark.parametrize("scale", [0.23, 0.5, 1.7])
def test_lanczos_scale_matches_pillow(sfumato, tmp_path, scale):
    im = Image.open(PHOTO).convert("RGB")
    w, h = im.size
    got = run_apply(sfumato, tmp_path, f"lanczos-scale:scale={scale}")
    ow, oh = max(1, round(w * scale)), max(1, round(h * scale))
    assert got.shape[:2] == (oh, ow)
    want = np.asarray(im.resize((ow, oh), Image.LANCZOS)).astype(np.int32)
    # Away from the edges by the widened kernel's reach (Pillow renormalizes there, Sfumato extends).
    margin = int(math.ceil(3 / min(scale, 1) * scale)) + 2
    mask = np.zeros((oh, ow), bool)
    mask[margin:oh - margin, margin:ow - margin] = True
    worst, mean = summary(got[..., :3], want, mask)
    print(f"lanczos {scale}: worst {worst}, mean {mean:.3f}")
    assert worst <= 2 and mean <= 0.25, f"scale {scale}: worst {worst} levels, mean {mean:.3f} from Pillow's LANCZOS"


def test_crop_and_orientation_are_exact(sfumato, tmp_path):
    src = np.asarray(Image.open(PHOTO).convert("RGBA")).astype(np.int32)
    got = run_apply(sfumato, tmp_path, "crop:rectangle=[17 9 200 120]")
    assert (got == src[9:129, 17:217]).all()
    # A quarter turn through the affine filter with nearest sampling is an exact pixel move.
    h, w = src.shape[:2]
    got = run_apply(sfumato, tmp_path, f"affine:transform=[0 1 -1 0 {h} 0],sampling=nearest")
    assert (got == np.rot90(src, -1)).all()
