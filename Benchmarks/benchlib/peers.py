"""The maths shared by the peers' calls (so every tool computes the same thing)."""
from __future__ import annotations

import math

from .common import np

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


