"""Metadata survives `sfumato apply` and `sfumato batch`: the camera's EXIF (with the orientation set to 1
once applied and the pixel dimensions of the output), the XMP packet, and an sRGB profile where the
input had a profile (the pixels are converted to sRGB on reading); `--strip` writes none of it.
Pillow reads the results: a reader independent of the libraries Sfumato writes with."""
import io
import subprocess

from PIL import Image, ImageCms

from conftest import PHOTOS

XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' \
      b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Sfumato test</dc:creator>' \
      b'</rdf:Description></rdf:RDF></x:xmpmeta>'


def camera_photo(path, orientation=6):
    """A JPEG as a camera writes one: EXIF with make, model, date, exposure and orientation, an XMP
    packet, and the photo's own Adobe RGB profile."""
    photo = Image.open(PHOTOS / "rocket.jpg")
    exif = Image.Exif()
    exif[0x010F] = "Sfumato Camera Co."   # Make
    exif[0x0110] = "Model 7"              # Model
    exif[0x0132] = "2026:12:01 10:00:00"  # DateTime
    exif[0x0112] = orientation
    sub = exif.get_ifd(0x8769)
    sub[0x829A] = 1 / 250                 # ExposureTime
    sub[0xA002] = photo.width             # PixelXDimension
    sub[0xA003] = photo.height
    photo.save(path, quality=92, exif=exif, xmp=XMP, icc_profile=photo.info["icc_profile"])
    return photo.size


def run(sfumato, *args):
    result = subprocess.run([sfumato, *map(str, args)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result


def test_apply_keeps_exif_xmp_and_a_profile(sfumato, tmp_path):
    source = tmp_path / "camera.jpg"
    width, height = camera_photo(source)
    out = tmp_path / "out.jpg"
    run(sfumato, "apply", source, "-o", out, "-f", "exposure-adjust:ev=0.3")
    with Image.open(out) as image:
        # Orientation 6 was applied: the pixels are upright, turned a quarter.
        assert image.size == (height, width)
        exif = image.getexif()
        assert exif[0x010F] == "Sfumato Camera Co." and exif[0x0110] == "Model 7" and exif[0x0132] == "2026:12:01 10:00:00"
        assert exif.get(0x0112) == 1, "the orientation, once applied, is 1"
        sub = exif.get_ifd(0x8769)
        assert float(sub[0x829A]) == 1 / 250
        assert (sub[0xA002], sub[0xA003]) == (height, width), "the pixel dimensions are the output's"
        assert b"Sfumato test" in image.info.get("xmp", b"")
        profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
        assert "sRGB" in ImageCms.getProfileDescription(profile)

    # PNG output keeps the EXIF as an eXIf chunk.
    png = tmp_path / "out.png"
    run(sfumato, "apply", source, "-o", png)
    with Image.open(png) as image:
        exif = image.getexif()
        assert exif[0x0110] == "Model 7" and exif.get(0x0112) == 1

    # --strip: nothing but the pixels.
    stripped = tmp_path / "stripped.jpg"
    run(sfumato, "apply", source, "-o", stripped, "--strip")
    with Image.open(stripped) as image:
        assert not image.getexif() and "icc_profile" not in image.info and "xmp" not in image.info

    # sfumato info says what the file carries.
    info = run(sfumato, "info", source).stdout
    assert "EXIF:" in info and "XMP:" in info


def test_batch_thumbnails_keep_metadata_with_their_own_size(sfumato, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    camera_photo(folder / "a.jpg", orientation=1)
    run(sfumato, "batch", folder, "-o", tmp_path / "out", "--thumbnail", "200x200")
    with Image.open(tmp_path / "out" / "a.jpg") as image:
        exif = image.getexif()
        assert exif[0x0110] == "Model 7"
        assert (exif.get_ifd(0x8769)[0xA002], exif.get_ifd(0x8769)[0xA003]) == image.size
        assert max(image.size) == 200
    run(sfumato, "batch", folder, "-o", tmp_path / "bare", "--thumbnail", "200x200", "--strip")
    with Image.open(tmp_path / "bare" / "a.jpg") as image:
        assert not image.getexif()


def test_every_format_keeps_what_it_can_hold(sfumato, tmp_path):
    """WebP, AVIF, PNG and TIFF hold EXIF, XMP and a profile (TIFF its EXIF as TIFF keeps it: the
    camera's text tags in the image's directory, the rest in an EXIF directory)."""
    source = tmp_path / "camera.jpg"
    width, height = camera_photo(source)
    for ext in ("webp", "avif", "png", "tif"):
        out = tmp_path / f"out.{ext}"
        run(sfumato, "apply", source, "-o", out)
        with Image.open(out) as image:
            assert image.size == (height, width), ext
            profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
            assert "sRGB" in ImageCms.getProfileDescription(profile), ext
            xmp = image.info.get("xmp") or (image.tag_v2.get(700) if ext == "tif" else b"")
            assert b"Sfumato test" in (xmp if isinstance(xmp, bytes) else bytes(xmp)), ext
            exif = image.getexif()
            # TIFF's orientation is its own tag, absent (1) for upright pixels.
            assert exif[0x0110] == "Model 7" and exif.get(0x0112, 1 if ext == "tif" else None) == 1, ext
            assert (exif.get_ifd(0x8769)[0xA002], exif.get_ifd(0x8769)[0xA003]) == (height, width), ext
            assert abs(float(exif.get_ifd(0x8769)[0x829A]) - 1 / 250) < 1e-9, ext   # the exposure time
        stripped = tmp_path / f"stripped.{ext}"
        run(sfumato, "apply", source, "-o", stripped, "--strip")
        with Image.open(stripped) as image:
            assert "icc_profile" not in image.info and not image.info.get("xmp"), ext
            if ext == "tif":
                assert not {700, 34675, 34665, 271, 272} & set(image.tag_v2)  # TIFF's metadata is its own tags
            else:
                assert not image.getexif(), ext


def test_maker_notes_and_lens_tags_survive(sfumato, tmp_path):
    """A maker note is the camera's own block: kept byte for byte, also under a make libexif knows
    (Canon) when it cannot read the note, and under one it does not; the EXIF 2.3 lens tags too,
    in every format that carries EXIF (TIFF through libtiff's EXIF directory)."""
    note = b"\x01\x02\x03 private maker data \xff\x00\x10"
    for make in ("Canon", "Sfumato Camera Co."):
        source = tmp_path / "camera.jpg"
        exif = Image.Exif()
        exif[0x010F] = make
        sub = exif.get_ifd(0x8769)
        sub[0x927C] = note                      # MakerNote
        sub[0xA433] = "Sfumato Optics"          # LensMake
        sub[0xA434] = "50mm F1.8"               # LensModel
        Image.open(PHOTOS / "rocket.jpg").save(source, quality=90, exif=exif)
        for suffix in ("jpg", "png", "webp", "tif"):
            out = tmp_path / f"out.{suffix}"
            run(sfumato, "apply", source, "-o", out)
            with Image.open(out) as image:
                sub = image.getexif().get_ifd(0x8769)
                assert sub.get(0x927C) == note, f"{make} to {suffix}: maker note {sub.get(0x927C)!r}"
                assert sub.get(0xA433) == "Sfumato Optics" and sub.get(0xA434) == "50mm F1.8", f"{make} to {suffix}"
