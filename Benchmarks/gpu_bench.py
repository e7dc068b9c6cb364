#!/usr/bin/env python3
"""Sfumato on the GPU against CuPy, cupyx.scipy.ndimage and torch, on the same pixels, in one run.

Run on a machine with an NVIDIA GPU and CuPy/torch (scripts/bench --gpu does it):

    python3 Benchmarks/gpu_bench.py --bin PATH/sfumato-gpu [--size 6000x4000] [--markdown BENCHMARKS-GPU.md]

Every time is the median of 20 CUDA-event timings after warm-up, with the image resident on the
device (no transfers). The limit column is one read and one write of the image at the device's
measured copy bandwidth. Sfumato's times come from `sfumato-gpu time` (its kernels, the image
resident), CuPy's and torch's from the same 6000x4000 RGBA8 photo uploaded once.
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def event_median(fn, cp, repeats=20, warmup=3):
    for _ in range(warmup):
        fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def torch_median(fn, torch, repeats=20, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return float(np.median(times))


def pencil_matrix():
    """The PencilController chain's first five steps folded into a 3x4 matrix on encoded RGB
    (hue rotation 1 rad about grey, saturation 2 about Rec.709 luma, brightness +0.1, contrast
    1.2 about 0.5, then x 2^0.5), as the CPU benchmark's peers get it."""
    a = 1.0
    c, s = np.cos(a), np.sin(a)
    k = 1 / 3
    sq = np.sqrt(k)
    hue = np.array([
        [c + (1 - c) * k, k * (1 - c) - sq * s, k * (1 - c) + sq * s],
        [k * (1 - c) + sq * s, c + k * (1 - c), k * (1 - c) - sq * s],
        [k * (1 - c) - sq * s, k * (1 - c) + sq * s, c + k * (1 - c)],
    ])
    lum = np.array([0.2126, 0.7152, 0.0722])
    sat = 2.0 * np.eye(3) + (1 - 2.0) * np.outer(np.ones(3), lum)
    m = np.eye(4)
    m[:3, :3] = sat @ hue
    bright = np.eye(4)
    bright[:3, 3] = 0.1
    contrast = np.eye(4)
    contrast[:3, :3] *= 1.2
    contrast[:3, 3] = 0.5 * (1 - 1.2)
    expo = np.eye(4) * 2 ** 0.5
    expo[3, 3] = 1
    return (expo @ contrast @ bright @ m)[:3]


def peers(image_u8, cp, ndi, torch):
    """Times of the fastest form each peer has, per Sfumato case name."""
    h, w, _ = image_u8.shape
    rgba = cp.asarray(image_u8)
    gray = cp.ascontiguousarray(rgba[:, :, 0])
    out = {}

    def best(case, label, ms):
        prev = out.get(case)
        if prev is None or ms < prev[1]:
            out[case] = (label, ms)

    # The limit: a device-to-device copy of the image (one read and one write of every byte),
    # through the driver's copy, warmed up so the clocks are up.
    copy_dst = cp.empty_like(rgba)
    d2d = lambda: cp.cuda.runtime.memcpy(copy_dst.data.ptr, rgba.data.ptr, rgba.nbytes, cp.cuda.runtime.memcpyDeviceToDevice)  # noqa: E731
    copy = event_median(d2d, cp, repeats=50, warmup=20)
    m = cp.asarray(pencil_matrix(), dtype=cp.float32)
    lut = cp.asarray(np.clip(np.round((np.arange(256) / 255.0) ** 1.5 * 255), 0, 255).astype(np.uint8))
    fused = cp.ElementwiseKernel(
        "uint8 r, uint8 g, uint8 b, raw float32 m, raw uint8 lut", "uint8 o0, uint8 o1, uint8 o2",
        """
        float x = r / 255.0f, y = g / 255.0f, z = b / 255.0f;
        float v0 = m[0]*x + m[1]*y + m[2]*z + m[3];
        float v1 = m[4]*x + m[5]*y + m[6]*z + m[7];
        float v2 = m[8]*x + m[9]*y + m[10]*z + m[11];
        o0 = lut[(int)rintf(fminf(fmaxf(v0, 0.f), 1.f) * 255.f)];
        o1 = lut[(int)rintf(fminf(fmaxf(v1, 0.f), 1.f) * 255.f)];
        o2 = lut[(int)rintf(fminf(fmaxf(v2, 0.f), 1.f) * 255.f)];
        """, "pencil_fused")
    o = cp.empty_like(rgba)
    best("PencilController chain, encoded", "CuPy fused kernel",
         event_median(lambda: fused(rgba[:, :, 0], rgba[:, :, 1], rgba[:, :, 2], m.ravel(), lut, o[:, :, 0], o[:, :, 1], o[:, :, 2]), cp))
    best("gamma-adjust", "CuPy take (LUT)", event_median(lambda: cp.take(lut, rgba), cp))

    f3 = lambda s: (s, s, 0)  # noqa: E731  (no blur across channels)
    for sigma, case in [(2, "gaussian sigma 2"), (10, "gaussian sigma 10")]:
        best(case, "cupyx gaussian_filter", event_median(lambda s=sigma: ndi.gaussian_filter(rgba, f3(s), truncate=3.0), cp))
    for d, case in [(3, "median 3x3"), (5, "median 5x5"), (7, "median 7x7"), (15, "median 15x15")]:
        best(case, "cupyx median_filter", event_median(lambda d=d: ndi.median_filter(rgba, size=(d, d, 1)), cp, repeats=5 if d > 7 else 20))
    best("CIMedianFilter", *out["median 3x3"])
    best("gallery: Gaussian Blur", "cupyx gaussian_filter", event_median(lambda: ndi.gaussian_filter(rgba, f3(5), truncate=3.0), cp))
    best("gallery: Median", *out["median 5x5"])
    lap = cp.asarray([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=cp.float32)[:, :, None]
    best("gallery: Laplacian", "cupyx correlate", event_median(lambda: ndi.correlate(rgba.astype(cp.float32), lap), cp))
    best("gallery: Sobel", "cupyx sobel x2 + hypot",
         event_median(lambda: cp.hypot(ndi.sobel(rgba.astype(cp.float32), 0), ndi.sobel(rgba.astype(cp.float32), 1)), cp))
    best("gallery: Threshold Binary", "CuPy where",
         event_median(lambda: cp.where(gray > 127, cp.uint8(255), cp.uint8(0)), cp))
    emboss = cp.asarray([[-2, 0, 0], [0, 1, 0], [0, 0, 2]], dtype=cp.float32)[:, :, None]
    sharpen = cp.asarray([[-0.5, -1, -0.5], [-1, 7, -1], [-0.5, -1, -0.5]], dtype=cp.float32)[:, :, None]
    best("gallery: Convolution Emboss", "cupyx correlate", event_median(lambda: ndi.correlate(rgba.astype(cp.float32), emboss), cp))
    best("gallery: Convolution Sharpen", "cupyx correlate", event_median(lambda: ndi.correlate(rgba.astype(cp.float32), sharpen), cp))
    yy, xx = np.mgrid[-7:8, -7:8]
    disc = cp.asarray((xx * xx + yy * yy <= 49)[:, :, None])
    best("gallery: Dilate Bokeh", "cupyx grey_dilation", event_median(lambda: ndi.grey_dilation(rgba, footprint=disc), cp, repeats=5))
    best("gallery: Morphology Closing", "cupyx grey_closing", event_median(lambda: ndi.grey_closing(rgba, size=(9, 9, 1)), cp))

    def equalize():
        res = []
        for c in range(3):
            ch = rgba[:, :, c]
            cdf = cp.cumsum(cp.bincount(ch.ravel(), minlength=256))
            table = cp.round((cdf - cdf[0]) * 255.0 / max(int(h * w) - 1, 1)).astype(cp.uint8)
            res.append(cp.take(table, ch))
        return res
    best("gallery: Histogram Equalization", "CuPy bincount + cumsum + take", event_median(equalize, cp))

    if torch is not None:
        t = torch.as_tensor(image_u8.copy(), device="cuda").permute(2, 0, 1).unsqueeze(0).float()
        import torch.nn.functional as F
        for sigma, case in [(2, "gaussian sigma 2"), (10, "gaussian sigma 10")]:
            r = int(3 * sigma)
            x = torch.arange(-r, r + 1, device="cuda", dtype=torch.float32)
            k1 = torch.exp(-x * x / (2 * sigma * sigma))
            k1 = (k1 / k1.sum())
            kh = k1.view(1, 1, 1, -1).repeat(4, 1, 1, 1)
            kv = k1.view(1, 1, -1, 1).repeat(4, 1, 1, 1)
            best(case, "torch conv2d separable (float)",
                 torch_median(lambda kh=kh, kv=kv, r=r: F.conv2d(F.conv2d(t, kh, padding=(0, r), groups=4), kv, padding=(r, 0), groups=4), torch))
        for d, case in [(3, "median 3x3"), (5, "median 5x5")]:
            def med(d=d):
                p = F.pad(t, (d // 2,) * 4, mode="replicate")
                return p.unfold(2, d, 1).unfold(3, d, 1).reshape(1, 4, h, w, d * d).median(dim=-1).values
            try:
                best(case, "torch unfold + median", torch_median(med, torch, repeats=5))
            except RuntimeError:  # out of memory for the unfolded copy
                pass
        best("gallery: Dilate Bokeh", "torch max_pool2d 15x15 (square, not disc)",
             torch_median(lambda: F.max_pool2d(t, 15, 1, 7), torch))
    return out, copy


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the sfumato-gpu binary")
    ap.add_argument("--size", default="6000x4000")
    ap.add_argument("--markdown", default=str(ROOT / "BENCHMARKS-GPU.md"))
    ap.add_argument("--photo", default=str(ROOT / "Tests" / "Fixtures" / "photos" / "rocket.jpg"))
    args = ap.parse_args()
    import cupy as cp
    import cupyx.scipy.ndimage as ndi
    try:
        import torch
    except ImportError:
        torch = None
    from PIL import Image

    w, h = (int(v) for v in args.size.split("x"))
    im = Image.open(args.photo).convert("RGB").resize((w, h), Image.LANCZOS).convert("RGBA")
    pixels = np.asarray(im)
    raw = Path(f"/tmp/sfumato-gpu-bench-{w}x{h}.rgba")
    raw.write_bytes(pixels.tobytes())
    started = time.time()
    result = subprocess.run([args.bin, "time", str(raw), str(w), str(h)], capture_output=True, text=True, check=True)
    ours = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    theirs, copy_ms = peers(pixels, cp, ndi, torch)
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    lines = [
        "# Sfumato on the GPU",
        "",
        f"Produced by `scripts/bench --gpu` on {time.strftime('%Y-%m-%d')}: {name}, a {w}x{h} RGBA8 photo (rocket.jpg, enlarged), "
        "resident on the device. Each time is the median of 20 CUDA-event timings after warm-up, in milliseconds. "
        f"Limit: one read and one write of the image at the measured device copy speed ({copy_ms:.3f} ms for {w * h * 4 / 1e6:.0f} MB, "
        f"{2 * w * h * 4 / copy_ms / 1e9:.2f} TB/s). Peer: the fastest of CuPy, cupyx.scipy.ndimage and torch for the same operation. "
        "Whole: Sfumato's in-memory render from host memory to host memory, medians of 9 (planning on the host, then the "
        "upload, kernels and download in 8 bands overlapped on 4 streams, from and to bitmaps whose pages are locked once) "
        "against the CPU route on this machine's cores, medians of 9.",
        "",
        "| case | Sfumato kernels | limit | peer | peer time | Sfumato / peer | whole render, GPU | CPU route | CPU / GPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in ours:
        if "error" in row:
            lines.append(f"| {row['case']} | {row['error']} | | | | | | | |")
            continue
        peer = theirs.get(row["case"])
        ratio = f"{row['kernel_ms'] / peer[1]:.3f}" if peer else ""
        lines.append(
            f"| {row['case']} | {row['kernel_ms']:.3f} | {copy_ms:.3f} | {peer[0] if peer else ''} | "
            f"{peer[1]:.3f} | {ratio} | {row['gpu_whole_ms']:.1f} | {row['cpu_ms']:.1f} | {row['cpu_ms'] / row['gpu_whole_ms']:.1f} |"
            if peer else
            f"| {row['case']} | {row['kernel_ms']:.3f} | {copy_ms:.3f} | | | | {row['gpu_whole_ms']:.1f} | {row['cpu_ms']:.1f} | "
            f"{row['cpu_ms'] / row['gpu_whole_ms']:.1f} |")
    lines += ["", f"Upload and download alone per render, and the host's planning time: see `sfumato-gpu time`'s JSON "
              f"(BENCHMARKS-GPU.json); the run took {time.time() - started:.0f} s.", ""]
    Path(args.markdown).write_text("\n".join(lines))
    print("\n".join(lines))
    json.dump({"sfumato": ours, "peers": {k: list(v) for k, v in theirs.items()}, "copy_ms": copy_ms},
              open(Path(args.markdown).with_suffix(".json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
