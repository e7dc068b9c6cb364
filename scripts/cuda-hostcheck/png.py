"""Minimal 8-bit PNG reading and writing (zlib only), for scripts/cuda-kernels-hostcheck."""
import struct
import zlib

import numpy as np


def read(path):
    """The image as a uint8 array (height, width, channels), channels 1, 2, 3 or 4."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', path
    pos, idat, palette = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and interlace == 0, (path, depth, interlace)
        elif kind == b'PLTE':
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    raw = zlib.decompress(b''.join(idat))
    stride = width * channels
    out = np.zeros((height, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int32)
        if f == 0:
            cur = line
        elif f == 2:
            cur = (line + prev) & 255
        else:
            cur = np.zeros(stride, np.int32)
            for i in range(stride):
                a = cur[i - channels] if i >= channels else 0
                b = prev[i]
                c = prev[i - channels] if i >= channels else 0
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) >> 1
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[i] = (line[i] + p) & 255
        out[y] = cur
        prev = cur
    img = out.astype(np.uint8).reshape(height, width, channels)
    if colour == 3:
        img = palette[img[:, :, 0]]
    return img


def write(path, img):
    """Writes a uint8 array (height, width, channels 1, 3 or 4) as PNG."""
    height, width, channels = img.shape
    colour = {1: 0, 3: 2, 4: 6}[channels]
    raw = b''.join(b'\x00' + img[y].tobytes() for y in range(height))

    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xFFFFFFFF)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n')
        f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, colour, 0, 0, 0)))
        f.write(chunk(b'IDAT', zlib.compress(raw, 6)))
        f.write(chunk(b'IEND', b''))


def rgba(img):
    """Any 8-bit image as RGBA."""
    h, w, c = img.shape
    if c == 4:
        return img
    if c == 3:
        return np.concatenate([img, np.full((h, w, 1), 255, np.uint8)], axis=2)
    if c == 2:
        return np.concatenate([img[:, :, :1]] * 3 + [img[:, :, 1:]], axis=2)
    return np.concatenate([img] * 3 + [np.full((h, w, 1), 255, np.uint8)], axis=2)


def premultiply(img):
    """Straight RGBA to the CPU's premultiplied bytes (`_mul255`: round(x a / 255) exactly)."""
    x = img.astype(np.uint32)
    a = x[:, :, 3:4]
    t = x[:, :, :3] * a + 128
    c = (t + (t >> 8)) >> 8
    return np.concatenate([c, a], axis=2).astype(np.uint8)


def unpremultiply(img):
    """Premultiplied RGBA to straight as the CPU stores it (`_Convert.storeBytes`)."""
    x = img.astype(np.uint32)
    a = x[:, :, 3:4]
    safe = np.maximum(a, 1)
    c = np.minimum(255, (x[:, :, :3] * 255 + safe // 2) // safe)
    c = np.where(a == 255, x[:, :, :3], c)
    out = np.concatenate([c, a], axis=2)
    out = np.where(a == 0, 0, out)
    return out.astype(np.uint8)
