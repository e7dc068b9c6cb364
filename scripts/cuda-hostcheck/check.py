#!/usr/bin/env python3
"""Runs gallery.cu's kernels on the host (the harness) and the release CLI on the same photos,
and compares the bytes. usage: check.py HARNESS SFUMATO WORKDIR [PHOTO...]"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import png  # noqa: E402

HARNESS, SFUMATO, WORK = sys.argv[1:4]
PHOTOS = sys.argv[4:]
os.makedirs(WORK, exist_ok=True)
results = []


def raw_write(path, img):
    h, w, c = img.shape
    with open(path, 'wb') as f:
        f.write(np.array([w, h, c], '<i4').tobytes())
        f.write(np.ascontiguousarray(img).tobytes())


def raw_read(path):
    data = open(path, 'rb').read()
    w, h, c = np.frombuffer(data[:12], '<i4')
    return np.frombuffer(data[12:], np.uint8).reshape(h, w, c)


def cli(args, out):
    subprocess.run([SFUMATO] + args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return png.read(out)


TRACE = os.environ.get('SF_TRACE_DIR')
traces = [0]


def run_harness(argv):
    """Runs the harness; with SF_TRACE_DIR set, each run also records its launches there."""
    env = dict(os.environ)
    if TRACE:
        traces[0] += 1
        env['SF_TRACE_NAME'] = f'{traces[0]:03d}-' + '-'.join(str(a) for a in argv[:1] + argv[3:])[:60].replace('/', '_').replace(' ', '_')
    subprocess.run([HARNESS] + argv, check=True, stderr=subprocess.PIPE, env=env)


def harness(cmd, src, args):
    out = os.path.join(WORK, 'h.raw')
    run_harness([cmd, src, out] + [str(a) for a in args])
    return raw_read(out)


def compare(name, cpu, gpu, inset=(0, 0), opaque_only=False, alpha=None):
    """Counts differing bytes, inside the image inset by (dx, dy)."""
    h, w = cpu.shape[:2]
    dx, dy = inset
    a, b = cpu[dy:h - dy, dx:w - dx].astype(int), gpu[dy:h - dy, dx:w - dx].astype(int)
    diff = a != b
    if opaque_only and alpha is not None:
        diff = diff & (alpha[dy:h - dy, dx:w - dx] == 255)[:, :, None]
    n = int(diff.sum())
    worst = int(np.abs(a - b)[diff].max()) if n else 0
    where = ''
    if n:
        ys, xs, cs = np.nonzero(diff)
        where = f' first at x={xs[0] + dx} y={ys[0] + dy} c={cs[0]} cpu={a[ys[0], xs[0], cs[0]]} gpu={b[ys[0], xs[0], cs[0]]}'
    region = f' (inset {dx},{dy})' if dx or dy else ''
    region += ' (opaque pixels)' if opaque_only else ''
    status = 'EXACT' if n == 0 else 'DIFF'
    line = f'{status:5} {name}{region}: {n} of {diff.size} bytes differ, max {worst}{where}'
    print(line, flush=True)
    results.append((status, name))


def rgba_cpu(path):
    return png.rgba(png.read(path))


def run_rgba(tag, base_png, straight):
    """Every RGBA test on one photo (`straight` its straight RGBA pixels)."""
    pre = png.premultiply(straight)
    src = os.path.join(WORK, f'{tag}.raw')
    raw_write(src, pre)
    alpha = straight[:, :, 3]
    out = os.path.join(WORK, 'cpu.png')

    def apply(*filters):
        args = ['apply', base_png, '-o', out, '--working-space', 'none', '--strip']
        for f in filters:
            args += ['-f', f]
        return png.rgba(cli(args, out))

    def gpu(cmd, *args):
        return png.unpremultiply(harness(cmd, src, list(args)))

    for sigma, interp in ((2, False), (5, False), (10, True), (19.5, True)):
        r = int(np.ceil(3 * sigma))
        compare(f'{tag} gaussian sigma {sigma} clamp', apply(f'gaussian-blur:radius={sigma}'), gpu('gaussian', sigma, 0))
        # Zero edges: the CPU recomputes the border band (whose window reaches outside) in float.
        compare(f'{tag} gaussian sigma {sigma} zero', apply(f'gaussian-blur:radius={sigma},edges=zero'), gpu('gaussian', sigma, 1),
                inset=(r, r + (3 if interp else 0)))
    compare(f'{tag} median-filter 3x3 (sfumato_median3)', apply('median-filter'), gpu('median', 3, 'net', 0))
    for d in (3, 5, 7):
        cpu = apply(f'median:diameter={d}')
        if d > 3:
            compare(f'{tag} median {d} (sfumato_median{d})', cpu, gpu('median', d, 'net', 0))
        compare(f'{tag} median {d} (sfumato_median)', cpu, gpu('median', d, 'hist', 0))
    for d in (9, 21):
        compare(f'{tag} median {d} (sfumato_median)', apply(f'median:diameter={d}'), gpu('median', d, 'hist', 0))
    compare(f'{tag} laplacian', apply('laplacian'), gpu('conv3', 0, 0, 1, 0, 1, 0, 1, -4, 1, 0, 1, 0))
    compare(f'{tag} laplacian bias 0.2', apply('laplacian:bias=0.2'), gpu('conv3', 0, 51, 1, 0, 1, 0, 1, -4, 1, 0, 1, 0))
    compare(f'{tag} emboss', apply('convolution:width=3,height=3,weights=[-2 0 0 0 1 0 0 0 2]'),
            gpu('conv3', 0, 0, 0, -2, 0, 0, 0, 1, 0, 0, 0, 2))
    compare(f'{tag} sharpen', apply('convolution:width=3,height=3,weights=[-0.5 -1 -0.5 -1 7 -1 -0.5 -1 -0.5]'),
            gpu('conv3', 1, 0, 0, -1, -2, -1, -2, 14, -2, -1, -2, -1))
    compare(f'{tag} sobel', apply('sobel'), gpu('sobel'))
    compare(f'{tag} sobel grey', apply('sobel:grey=true'), gpu('sobelluma', 0.299, 0.587, 0.114))
    direct = [0.1, 0.2, 0.1, 0.2, 0.3, 0.2, 0.1, 0.2, 0.1]
    compare(f'{tag} convolution float direct', apply('convolution:width=3,height=3,weights=[' + ' '.join(map(str, direct)) + ']'),
            gpu('convf', 3, 3, 0, 0, *direct), opaque_only=True, alpha=alpha)
    sep = [round(a * b, 6) for a in (0.25, 0.5, 0.25) for b in (0.3, 0.5, 0.3)]
    compare(f'{tag} convolution float separable', apply('convolution:width=3,height=3,weights=[' + ' '.join(map(str, sep)) + ']'),
            gpu('convf', 3, 3, 0, 0, *sep), opaque_only=True, alpha=alpha)
    compare(f'{tag} area-max 9x5', apply('area-max:width=9,height=5'), gpu('rect', 9, 5, 1))
    compare(f'{tag} area-min 4x7', apply('area-min:width=4,height=7'), gpu('rect', 4, 7, 0))
    compare(f'{tag} area-max 40x33', apply('area-max:width=40,height=33'), gpu('rect', 40, 33, 1))
    compare(f'{tag} closing 9x9', apply('closing:width=9,height=9'), gpu('closing', 9, 9))
    probe = [0.5, 0.2, 0.5, 0.2, 0, 0.2, 0.5, 0.2, 0.5]
    compare(f'{tag} dilate general probe', apply('dilate:width=3,height=3,probe=[' + ' '.join(map(str, probe)) + ']'),
            gpu('probe', 3, 3, 1, *probe))
    compare(f'{tag} erode general probe', apply('erode:width=3,height=3,probe=[' + ' '.join(map(str, probe)) + ']'),
            gpu('probe', 3, 3, 0, *probe))
    compare(f'{tag} histogram-equalization', apply('histogram-equalization'), gpu('equalize'), opaque_only=True, alpha=alpha)
    compare(f'{tag} threshold-binary', apply('threshold-binary'), gpu('threshold', 0.5, 1, 0.299, 0.587, 0.114),
            opaque_only=True, alpha=alpha)
    compare(f'{tag} threshold-binary 0.3 max 0.5', apply('threshold-binary:threshold=0.3,maximum=0.5'),
            gpu('threshold', 0.3, 0.5, 0.299, 0.587, 0.114), opaque_only=True, alpha=alpha)
    # The gallery presets themselves.
    gal = os.path.join(WORK, 'gallery')
    subprocess.run([SFUMATO, 'gallery', base_png, '-o', gal], check=True, stdout=subprocess.DEVNULL)
    g = lambda name: png.rgba(png.read(os.path.join(gal, name + '.png')))  # noqa: E731
    compare(f'{tag} gallery gaussian-blur', g('gaussian-blur'), gpu('gaussian', 5, 1), inset=(15, 15))
    compare(f'{tag} gallery median', g('median'), gpu('median', 5, 'net', 0))
    compare(f'{tag} gallery laplacian', g('laplacian'), gpu('conv3', 0, 0, 1, 0, 1, 0, 1, -4, 1, 0, 1, 0))
    compare(f'{tag} gallery sobel', g('sobel'), gpu('sobel'))
    compare(f'{tag} gallery threshold-binary', g('threshold-binary'), gpu('threshold', 0.5, 1, 0.299, 0.587, 0.114),
            opaque_only=True, alpha=alpha)
    compare(f'{tag} gallery convolution-emboss', g('convolution-emboss'), gpu('conv3', 0, 0, 0, -2, 0, 0, 0, 1, 0, 0, 0, 2))
    compare(f'{tag} gallery convolution-sharpen', g('convolution-sharpen'), gpu('conv3', 1, 0, 0, -1, -2, -1, -2, 14, -2, -1, -2, -1))
    compare(f'{tag} gallery dilate-bokeh (spans)', g('dilate-bokeh'), gpu('disc', 15, 7, 'spans'))
    compare(f'{tag} gallery dilate-bokeh (probe)', g('dilate-bokeh'), gpu('disc', 15, 7, 'probe'))
    compare(f'{tag} gallery morphology-closing', g('morphology-closing'), gpu('closing', 9, 9))
    compare(f'{tag} gallery histogram-equalization', g('histogram-equalization'), gpu('equalize'), opaque_only=True, alpha=alpha)
    # The histogram itself, against numpy over the same premultiplied bytes.
    counts = np.loadtxt(harness_hist(src)).astype(int)
    a = pre[:, :, 3].astype(np.int64)
    expect = []
    for c in range(3):
        u = pre[:, :, c].astype(np.int64)
        v = np.where(a == 255, u, np.minimum(255, (u * 255 + a // 2) // np.maximum(a, 1)))
        v = np.where(a == 0, 0, v)
        expect.append(np.bincount(v.ravel(), minlength=256))
    expect.append(np.bincount(a.ravel(), minlength=256))
    bad = int((np.concatenate(expect) != counts).sum())
    print(f'{"EXACT" if bad == 0 else "DIFF":5} {tag} histogram counts: {bad} of 1024 bins differ', flush=True)
    results.append(('EXACT' if bad == 0 else 'DIFF', f'{tag} histogram'))


def harness_hist(src):
    out = os.path.join(WORK, 'hist.txt')
    run_harness(['hist', src, out])
    return out


def run_gray(tag, base_png, grey):
    src = os.path.join(WORK, f'{tag}.raw')
    raw_write(src, grey[:, :, None])
    out = os.path.join(WORK, 'cpu.png')

    def apply(*filters):
        args = ['apply', base_png, '-o', out, '--working-space', 'none', '--strip', '--gray']
        for f in filters:
            args += ['-f', f]
        img = cli(args, out)
        return img[:, :, :1]

    def gpu(cmd, *args):
        return harness(cmd, src, list(args))

    for sigma in (2, 10):
        compare(f'{tag} gaussian sigma {sigma} clamp', apply(f'gaussian-blur:radius={sigma}'), gpu('gaussian', sigma, 0))
        compare(f'{tag} gaussian sigma {sigma} zero', apply(f'gaussian-blur:radius={sigma},edges=zero'), gpu('gaussian', sigma, 1))
    for d in (3, 5, 7):
        cpu = apply(f'median:diameter={d}')
        compare(f'{tag} median {d} (net)', cpu, gpu('median', d, 'net', 0))
        compare(f'{tag} median {d} (sfumato_median)', cpu, gpu('median', d, 'hist', 0))
    compare(f'{tag} laplacian', apply('laplacian'), gpu('conv3', 0, 0, 1, 0, 1, 0, 1, -4, 1, 0, 1, 0))
    compare(f'{tag} sobel', apply('sobel'), gpu('sobel'))
    compare(f'{tag} area-max 9x5', apply('area-max:width=9,height=5'), gpu('rect', 9, 5, 1))
    compare(f'{tag} area-min 4x7', apply('area-min:width=4,height=7'), gpu('rect', 4, 7, 0))
    compare(f'{tag} closing 9x9', apply('closing:width=9,height=9'), gpu('closing', 9, 9))
    probe = [0.5, 0.2, 0.5, 0.2, 0, 0.2, 0.5, 0.2, 0.5]
    compare(f'{tag} erode general probe', apply('erode:width=3,height=3,probe=[' + ' '.join(map(str, probe)) + ']'),
            gpu('probe', 3, 3, 0, *probe))


def run_chained(tag, base_png, straight):
    """Kernels on premultiplied bytes with transparency: the CPU's byte route meets partial alpha
    only on 8-bit intermediates (a straight PNG with alpha is read as floats), so each filter runs
    after a Gaussian with zero edges, whose 8-bit output (computed whole, the border included, as an
    intermediate) fades to transparent at the edges."""
    src = os.path.join(WORK, f'{tag}.raw')
    raw_write(src, png.premultiply(straight))
    out = os.path.join(WORK, 'cpu.png')

    def apply(*filters):
        args = ['apply', base_png, '-o', out, '--working-space', 'none', '--strip']
        for f in filters:
            args += ['-f', f]
        return png.rgba(cli(args, out))

    def gpu_raw(cmd, source, *args):
        out = os.path.join(WORK, f'chain-{cmd}.raw')
        run_harness([cmd, source, out] + [str(a) for a in args])
        return out

    for sigma in (3, 5, 10):
        blurred = gpu_raw('gaussian', src, sigma, 1)
        first = f'gaussian-blur:radius={sigma},edges=zero'

        def gpu(cmd, *args, blurred=blurred):
            return png.unpremultiply(raw_read(gpu_raw(cmd, blurred, *args)))

        name = f'{tag} after zero-edge gaussian {sigma}:'
        compare(f'{name} gaussian itself, whole image (area-max 1x1 after it)', apply(first, 'area-max:width=1,height=1'),
                png.unpremultiply(raw_read(blurred)))
        if sigma != 3:
            continue
        compare(f'{name} median 3', apply(first, 'median:diameter=3'), gpu('median', 3, 'net', 0))
        compare(f'{name} median 5', apply(first, 'median:diameter=5'), gpu('median', 5, 'net', 0))
        compare(f'{name} median 7 (sfumato_median)', apply(first, 'median:diameter=7'), gpu('median', 7, 'hist', 0))
        compare(f'{name} median 11', apply(first, 'median:diameter=11'), gpu('median', 11, 'hist', 0))
        compare(f'{name} laplacian', apply(first, 'laplacian'), gpu('conv3', 0, 0, 1, 0, 1, 0, 1, -4, 1, 0, 1, 0))
        compare(f'{name} emboss', apply(first, 'convolution:width=3,height=3,weights=[-2 0 0 0 1 0 0 0 2]'),
                gpu('conv3', 0, 0, 0, -2, 0, 0, 0, 1, 0, 0, 0, 2))
        compare(f'{name} sharpen', apply(first, 'convolution:width=3,height=3,weights=[-0.5 -1 -0.5 -1 7 -1 -0.5 -1 -0.5]'),
                gpu('conv3', 1, 0, 0, -1, -2, -1, -2, 14, -2, -1, -2, -1))
        compare(f'{name} sobel', apply(first, 'sobel'), gpu('sobel'))
        compare(f'{name} sobel grey', apply(first, 'sobel:grey=true'), gpu('sobelluma', 0.299, 0.587, 0.114))
        compare(f'{name} area-max 9x5', apply(first, 'area-max:width=9,height=5'), gpu('rect', 9, 5, 1))
        compare(f'{name} closing 9x9', apply(first, 'closing:width=9,height=9'), gpu('closing', 9, 9))
        disc = ','.join(['width=15', 'height=15', 'probe=[' + ' '.join(
            '0' if np.hypot(k // 15 - 7.5, k % 15 - 7.5) < 7 else '1' for k in range(225)) + ']'])
        compare(f'{name} dilate disc 15', apply(first, 'dilate:' + disc), gpu('disc', 15, 7, 'spans'))
        probe = [0.5, 0.2, 0.5, 0.2, 0, 0.2, 0.5, 0.2, 0.5]
        compare(f'{name} erode general probe', apply(first, 'erode:width=3,height=3,probe=[' + ' '.join(map(str, probe)) + ']'),
                gpu('probe', 3, 3, 0, *probe))


for photo in PHOTOS:
    size = None
    if '@' in photo:
        photo, size = photo.split('@')
    img = png.read(photo)
    if size:
        cw, ch = map(int, size.split('x'))
        img = np.ascontiguousarray(img[:ch, :cw])
    tag = os.path.splitext(os.path.basename(photo))[0]
    if img.shape[2] == 1:
        base = os.path.join(WORK, f'{tag}-grey.png')
        png.write(base, img)
        run_gray(f'{tag}-grey', base, img[:, :, 0])
        # The same grey photo as RGBA.
        img = png.rgba(img)
    base = os.path.join(WORK, f'{tag}.png')
    straight = png.rgba(img)
    png.write(base, straight[:, :, :3])
    run_rgba(tag, base, straight)
    run_chained(tag, base, straight)

exact = sum(1 for s, _ in results if s == 'EXACT')
print(f'{exact} of {len(results)} comparisons exact')
sys.exit(0 if exact == len(results) else 1)
