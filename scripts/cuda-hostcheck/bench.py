#!/usr/bin/env python3
"""On a CUDA machine: times the gallery kernels on a 6000x4000 photo (a tile of PHOTO.npy, RGBA) with
CUDA events. usage: bench.py PTX PHOTO.npy [--gauss-only]  (needs CuPy)"""
import math
import sys

import cupy as cp
import numpy as np

module = cp.RawModule(path=sys.argv[1])
photo = np.load(sys.argv[2])
W, H = 6000, 4000
reps = (H + photo.shape[0] - 1) // photo.shape[0], (W + photo.shape[1] - 1) // photo.shape[1]
img = np.ascontiguousarray(np.tile(photo, (reps[0], reps[1], 1))[:H, :W])
i32, f32 = np.int32, np.float32
GAUSS_ONLY = '--gauss-only' in sys.argv
K = {}


def k(name):
    if name not in K:
        K[name] = module.get_function(name)
    return K[name]


def cdiv(a, b):
    return (a + b - 1) // b


def fixed_weights(sigma):
    """_GaussianKernel.fixedWeights (as the host harness computes them)."""
    r = max(1, math.ceil(3 * sigma))
    w = [math.exp(-float(j * j) / (2 * sigma * sigma)) for j in range(r + 1)]
    tail = 0.0
    for j in range(1, r + 1):
        tail += w[j]
    s = w[0] + 2 * tail
    wf = [np.float32(x / s) for x in w]
    ft = np.float32(0)
    for j in range(1, r + 1):
        ft = np.float32(ft + wf[j])
    total = np.float32(wf[0] + np.float32(2) * ft)
    return cp.asarray(np.array([min(65535, math.floor(float(np.float32(x / total)) * 65535 + 0.5)) for x in wf], np.uint16)), r


def timed(label, fn, n=20, bytes_moved=None):
    for _ in range(3):
        fn()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    for _ in range(n):
        fn()
    end.record()
    end.synchronize()
    ms = cp.cuda.get_elapsed_time(start, end) / n
    extra = f'  ({bytes_moved / ms / 1e9:.2f} TB/s)' if bytes_moved else ''
    print(f'{label:58s} {ms:8.4f} ms{extra}', flush=True)
    return ms


def run(channels):
    c = channels
    if c == 4:
        host = img
    else:
        host = np.ascontiguousarray(((img[:, :, 0].astype(np.uint32) * 77 + img[:, :, 1].astype(np.uint32) * 150
                                      + img[:, :, 2].astype(np.uint32) * 29) >> 8).astype(np.uint8))
    pitch = (W * c + 15) & ~15
    buf = np.zeros((H, pitch), np.uint8)
    buf[:, :W * c] = host.reshape(H, W * c)
    src = cp.asarray(buf.reshape(-1))
    dst = cp.empty_like(src)
    mid = cp.empty_like(src)
    words = cp.empty(2 * pitch * (H + 8), np.uint8)
    n = W * H * c
    tag = 'RGBA8' if c == 4 else 'grey8'
    args = (src, dst, i32(W), i32(H), i32(pitch), i32(c))
    timed(f'{tag} device copy (read + write)', lambda: dst.__setitem__(slice(None), src), bytes_moved=2 * n)
    b32 = (32, 8, 1)
    pix = (cdiv(W, 32), cdiv(H, 8), 1)
    quads = (cdiv(cdiv(W, 4), 32), cdiv(H, 8), 1)
    groups = cdiv(W * c, 4)
    for sigma, edge in ((2, 0), (5, 1), (7, 0), (10, 0), (16, 0)):
        wts, r = fixed_weights(sigma)
        interp = 1 if sigma >= 8 else 0
        rows = (H + 4) // 2 + 1 if interp else H

        def vert():
            k('sfumato_gaussian_vertical')((cdiv(groups, 32), cdiv(rows, 32), 1), b32,
                                           (src, words, i32(W), i32(H), i32(pitch), i32(c), i32(edge), wts, i32(r), i32(interp), i32(0)))

        def horiz():
            k('sfumato_gaussian_horizontal')((cdiv(W * c, 512), cdiv(H, 40), 1), b32,
                                             (words, dst, i32(W), i32(H), i32(pitch), i32(c), i32(edge), wts, i32(r), i32(interp), i32(0)))
        timed(f'{tag} gaussian sigma {sigma} (r {r}{", interp" if interp else ""}) vertical', vert)
        timed(f'{tag} gaussian sigma {sigma} horizontal', horiz)
        timed(f'{tag} gaussian sigma {sigma} both passes', lambda: (vert(), horiz()))
        if not interp:
            timed(f'{tag} gaussian sigma {sigma} fused (sfumato_gaussian)', lambda: k('sfumato_gaussian')(
                (cdiv(W * c, 512), cdiv(H, 16), 1), b32, (src, dst, i32(W), i32(H), i32(pitch), i32(c), i32(edge), wts, i32(r))))
    if GAUSS_ONLY:
        return
    timed(f'{tag} median 3x3 (sfumato_median3)', lambda: k('sfumato_median3')(quads, b32, args + (i32(0),)))
    timed(f'{tag} median 5x5 (sfumato_median5)', lambda: k('sfumato_median5')(quads, b32, args + (i32(0),)))
    timed(f'{tag} median 7x7 (sfumato_median7)', lambda: k('sfumato_median7')(quads, b32, args + (i32(0),)))
    for d in (5, 15, 63):
        timed(f'{tag} median {d}x{d} (sfumato_median, histograms)',
              lambda: k('sfumato_median')((cdiv(W * c, 64), cdiv(H, 64), 1), (64, 1, 1), args + (i32(0), i32(d))), n=3 if d > 15 else 10)
    lap = [0, 1, 0, 1, -4, 1, 0, 1, 0]
    timed(f'{tag} laplacian (sfumato_convolve3x3)',
          lambda: k('sfumato_convolve3x3')(pix, b32, args + (i32(0),) + tuple(i32(v) for v in lap) + (i32(0), i32(0), i32(1))))
    sharpen = [-1, -2, -1, -2, 14, -2, -1, -2, -1]
    timed(f'{tag} sharpen (sfumato_convolve3x3)',
          lambda: k('sfumato_convolve3x3')(pix, b32, args + (i32(0),) + tuple(i32(v) for v in sharpen) + (i32(1), i32(0), i32(0))))
    timed(f'{tag} sobel', lambda: k('sfumato_sobel')(pix, b32, args + (i32(0),)))
    timed(f'{tag} sobel luma', lambda: k('sfumato_sobel_luma')(pix, b32, args + (i32(0), f32(0.299), f32(0.587), f32(0.114))))
    fw = cp.asarray(np.array([0.1, 0.2, 0.1, 0.2, 0.3, 0.2, 0.1, 0.2, 0.1], np.float32))
    timed(f'{tag} convolution float 3x3 direct', lambda: k('sfumato_convolve_float')(
        pix, b32, args + (i32(0), i32(3), i32(3), fw, fw, fw, i32(0), f32(0), i32(0))))
    units = W if c == 4 else cdiv(W, 4)
    rowsg = (cdiv(units, 32), cdiv(H, 8), 1)
    colsg = (cdiv(cdiv(W * c, 4), 32), cdiv(H, 8), 1)

    def rect(s, d, w, h, mx):
        k('sfumato_extreme_rows')(rowsg, b32, (s, mid, i32(W), i32(H), i32(pitch), i32(c), i32(0), i32(w), i32(-(w // 2)), i32(mx)))
        k('sfumato_extreme_columns')(colsg, b32, (mid, d, i32(W), i32(H), i32(pitch), i32(c), i32(0), i32(h), i32(-(h // 2)), i32(mx)))
    timed(f'{tag} area max 9x9 (rows + columns)', lambda: rect(src, dst, 9, 9, 1))
    timed(f'{tag} closing 9x9 (4 passes)', lambda: (rect(src, words, 9, 9, 1), rect(words, dst, 9, 9, 0)))
    timed(f'{tag} area max 63x63 (rows + columns)', lambda: rect(src, dst, 63, 63, 1), n=5)
    d = 15
    probe = [0 if math.hypot(j // d - 7.5, j % d - 7.5) < 7 else 1 for j in range(d * d)]
    spans = []
    for i in range(d):
        row = [j for j in range(d) if probe[i * d + j] == 0]
        if row:
            spans += [i - 7, row[0] - 7, row[-1] - 7]
    sp = cp.asarray(np.array(spans, np.int32))
    timed(f'{tag} dilate disc 15 (sfumato_extreme_spans, {len(spans) // 3} spans)',
          lambda: k('sfumato_extreme_spans')(rowsg, b32, args + (i32(0), sp, i32(len(spans) // 3), i32(1))))
    q = cp.asarray(np.array([255 * p for p in probe], np.uint8))
    timed(f'{tag} dilate disc 15 (sfumato_extreme_probe)',
          lambda: k('sfumato_extreme_probe')(pix, b32, args + (i32(0), i32(d), i32(d), q, i32(1))))
    counts = cp.zeros(1024, np.uint32)

    def hist():
        counts.fill(0)
        k('sfumato_histogram')((8, 132, 1), (256, 1, 1), (src, i32(W), i32(H), i32(pitch), i32(c), counts))
    timed(f'{tag} histogram (zeroing included)', hist)
    table = cp.asarray(np.arange(768, dtype=np.uint32).astype(np.uint8)[::-1].copy())
    pt = (cdiv(cdiv(W * c, 16), 64), cdiv(H, 4), 1)
    timed(f'{tag} lookup', lambda: k('sfumato_lookup')(pt, (64, 4, 1), args + (table,)), bytes_moved=2 * n)
    timed(f'{tag} threshold', lambda: k('sfumato_threshold')(pt, (64, 4, 1), args + (f32(0.299), f32(0.587), f32(0.114), f32(0.5), i32(255), i32(0))),
          bytes_moved=2 * n)


print(cp.cuda.runtime.getDeviceProperties(0)['name'].decode(), sys.argv[1])
run(4)
if not GAUSS_ONLY:
    run(1)
