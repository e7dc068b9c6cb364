"""HEIC, AVIF and TIFF from other writers, as a user meets them: Pillow writes TIFFs in every
layout it knows (palette, 1-bit, grey, grey with alpha, RGB, RGBA, 16-bit grey, an orientation
tag, four compressions) and AVIF; heif-enc (libheif's own tool, with x265) writes HEIC at 8 and
10 bits. Sfumato reads each through `sfumato apply` and the result is compared with what the
writer was given. Files Sfumato writes are read back by Pillow."""
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from conftest import PHOTOS


def run(sfumato, *args):
    result = subprocess.run([sfumato, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result


def decoded(sfumato, path, tmp_path, mode="RGBA"):
    out = tmp_path / (path.stem + "-out.png")
    run(sfumato, "apply", path, "-o", out)
    with Image.open(out) as image:
        return np.asarray(image.convert(mode))


def photo():
    with Image.open(PHOTOS / "chelsea.png") as image:
        return image.convert("RGB")


@pytest.mark.parametrize("mode,compression", [
    ("RGB", None), ("RGB", "tiff_lzw"), ("RGB", "tiff_adobe_deflate"), ("RGB", "packbits"),
    ("RGBA", "tiff_lzw"), ("L", None), ("LA", None), ("P", "tiff_lzw"), ("1", None),
])
def test_tiff_layouts_read_exactly(sfumato, tmp_path, mode, compression):
    source = photo()
    if mode == "RGBA":
        source = source.copy()
        source.putalpha(Image.linear_gradient("L").resize(source.size))
    image = source.convert(mode) if mode != "P" else source.quantize(64)
    path = tmp_path / f"{mode}-{compression}.tif"
    image.save(path, compression=compression)
    expected = np.asarray(image.convert("RGBA"))
    got = decoded(sfumato, path, tmp_path)
    assert got.shape == expected.shape
    if mode in ("RGBA", "LA"):
        # Straight alpha: where alpha is 0 the colour is undefined; elsewhere exact.
        visible = expected[..., 3] > 0
        assert (got[..., 3] == expected[..., 3]).all()
        assert (got[visible] == expected[visible]).all()
    else:
        assert (got == expected).all(), f"{mode}/{compression}: max difference {np.abs(got.astype(int) - expected).max()}"


def test_tiff_jpeg_compressed_reads_within_its_loss(sfumato, tmp_path):
    source = photo()
    path = tmp_path / "jpeg.tif"
    source.save(path, compression="jpeg", quality=95)
    with Image.open(path) as image:
        expected = np.asarray(image.convert("RGB")).astype(int)
    got = decoded(sfumato, path, tmp_path, "RGB").astype(int)
    # Two JPEG decoders (libjpeg-turbo in both, with or without libtiff's YCbCr path) may round differently.
    assert np.abs(got - expected).mean() < 1.0 and np.abs(got - expected).max() <= 24


def test_tiff_16_bit_grey_keeps_16_bits(sfumato, tmp_path):
    ramp = (np.arange(256 * 64, dtype=np.uint32).reshape(64, 256) * 4 % 65536).astype(np.uint16)
    path = tmp_path / "deep.tif"
    Image.fromarray(ramp).save(path)  # uint16: mode I;16
    assert "16-bit" in run(sfumato, "info", path).stdout
    back = tmp_path / "deep-back.tif"
    run(sfumato, "apply", path, "-o", back)
    assert "16-bit" in run(sfumato, "info", back).stdout
    # vips reads the samples as stored: grey g becomes R = G = B = g, every bit kept.
    for x, y in [(0, 0), (3, 1), (255, 63), (100, 40)]:
        values = subprocess.run(["vips", "getpoint", back, str(x), str(y)], capture_output=True, text=True,
                                check=True).stdout.split()
        assert [int(float(v)) for v in values[:3]] == [int(ramp[y, x])] * 3, (x, y, values)


def test_tiff_orientation_tag_is_applied(sfumato, tmp_path):
    source = photo()
    path = tmp_path / "turned.tif"
    source.save(path, tiffinfo={274: 6})  # stored turned: shown a quarter turn clockwise
    got = decoded(sfumato, path, tmp_path, "RGB")
    expected = np.asarray(source.transpose(Image.Transpose.ROTATE_270))
    assert got.shape == expected.shape and (got == expected).all()


def test_avif_from_pillow_reads_and_ours_reads_in_pillow(sfumato, tmp_path):
    source = photo()
    path = tmp_path / "pillow.avif"
    source.save(path, quality=90)
    with Image.open(path) as image:
        theirs = np.asarray(image.convert("RGB")).astype(int)
    got = decoded(sfumato, path, tmp_path, "RGB").astype(int)
    # Two AV1 decoders and two YUV-to-RGB conversions: close, not equal.
    assert np.abs(got - theirs).mean() < 1.5, np.abs(got - theirs).mean()

    ours = tmp_path / "ours.avif"
    run(sfumato, "apply", PHOTOS / "chelsea.png", "-o", ours, "--quality", "90")
    with Image.open(ours) as image:
        back = np.asarray(image.convert("RGB")).astype(float)
    mse = ((back - np.asarray(source).astype(float)) ** 2).mean()
    assert 10 * np.log10(255 ** 2 / mse) > 32


@pytest.mark.parametrize("bits", [8, 10])
def test_heic_from_heif_enc_reads(sfumato, tmp_path, bits):
    source = photo()
    png = tmp_path / "source.png"
    if bits == 8:
        source.save(png)
    else:
        # A 16-bit PNG makes heif-enc write 10 bits, as phones' HDR photos are.
        subprocess.run(["vips", "colourspace", PHOTOS / "chelsea.png", png, "rgb16"], check=True)
    heic = tmp_path / "phone.heic"
    assert shutil.which("heif-enc"), "heif-enc (libheif-examples) is installed by scripts/install-deps --test"
    subprocess.run(["heif-enc", "-q", "90", "-b", str(bits), "-o", heic, png], check=True, capture_output=True)
    info = run(sfumato, "info", heic).stdout
    assert "HEIF" in info and f"{bits}-bit" in info, info
    got = decoded(sfumato, heic, tmp_path, "RGB").astype(float)
    mse = ((got - np.asarray(source).astype(float)) ** 2).mean()
    assert 10 * np.log10(255 ** 2 / mse) > 32

    # A thumbnail of a folder of phone photos: HEIC in, JPEG out (Sfumato does not write HEIC).
    folder = tmp_path / "camera-roll"
    folder.mkdir()
    shutil.copy(heic, folder / "IMG_0001.HEIC")
    run(sfumato, "thumbnail", folder, "-s", "100", "-o", tmp_path / "thumbs")
    with Image.open(tmp_path / "thumbs" / "IMG_0001.jpg") as image:
        assert max(image.size) == 100


@pytest.mark.parametrize("args", [
    ["apply", PHOTOS / "rocket.jpg", "-o", "{tmp}/x.heic"],
    ["apply", PHOTOS / "rocket.jpg", "-o", "{tmp}/x.HEIF"],
    ["thumbnail", PHOTOS / "rocket.jpg", "-o", "{tmp}/tn_%s.heic"],
    ["batch", PHOTOS / "rocket.jpg", "-o", "{tmp}", "--format", "heic"],
    ["apply", PHOTOS / "rocket.jpg", "-o", "-", "--format", ""],
    ["apply", PHOTOS / "rocket.jpg", "-o", "-", "--format", "tiff\u00e9" * 10000],
])
def test_writing_heic_or_no_format_is_refused_clearly(sfumato, tmp_path, args):
    argv = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    result = subprocess.run([sfumato, *argv], capture_output=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert b"does not write" in result.stderr or b"--format must be" in result.stderr, result.stderr
    assert not list(tmp_path.glob("*.hei*")) and not list(tmp_path.glob("*.HEI*"))


def test_jpeg_in_bands_decodes_in_pillow_as_one_scan(sfumato, tmp_path):
    # Written to stdout, a JPEG is encoded in memory: a megapixel or more is compressed in bands
    # on every core, joined by restart markers; written to a file it is streamed as one scan.
    # Pillow (its own libjpeg-turbo) must read both as the same pixels.
    source = tmp_path / "big.png"
    photo().resize((1600, 1200), Image.LANCZOS).save(source)
    banded = subprocess.run([sfumato, "apply", source, "-o", "-", "--format", "jpg", "--threads", "2"],
                            capture_output=True, timeout=120)
    assert banded.returncode == 0, banded.stderr
    data = banded.stdout
    restarts = sum(1 for i in range(len(data) - 1) if data[i] == 0xFF and 0xD0 <= data[i + 1] <= 0xD7)
    assert restarts == 1
    (tmp_path / "banded.jpg").write_bytes(data)
    run(sfumato, "apply", source, "-o", tmp_path / "one-scan.jpg")
    with Image.open(tmp_path / "banded.jpg") as a, Image.open(tmp_path / "one-scan.jpg") as b:
        assert a.size == b.size == (1600, 1200)
        assert (np.asarray(a) == np.asarray(b)).all()
