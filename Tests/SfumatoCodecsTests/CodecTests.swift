import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

@Suite("Codecs")
struct CodecTests {
    @Test("PNG round trips are bit-exact: 8-bit, 16-bit, with and without alpha")
    func pngRoundTrip() throws {
        let rgba = try Pixels.noise(67, 41, seed: 3, alpha: true)
        let back = try PNG.decode(try PNG.encode(rgba)).bitmap
        #expect(back == rgba)
        let opaque = try Pixels.noise(33, 20, seed: 4)
        let encoded = try PNG.encode(opaque)
        #expect(try PNG.info(encoded).hasAlpha == false)
        #expect(try PNG.decode(encoded).bitmap == opaque)
        // RGB rows are widened to RGBA four pixels at a time: every remainder, and rows too
        // short for one step.
        for width in 1...9 {
            let narrow = try Pixels.noise(width, 3, seed: UInt64(width))
            #expect(try PNG.decode(try PNG.encode(narrow)).bitmap == narrow, "width \(width)")
        }
        let deep = try Bitmap(width: 19, height: 7, format: .rgba16, alpha: .straight)
        var s: UInt32 = 7
        for y in 0..<7 {
            let p = deep.row(y).assumingMemoryBound(to: UInt16.self)
            for i in 0..<(19 * 4) { s = s &* 1_103_515_245 &+ 12345; p[i] = UInt16(truncatingIfNeeded: s >> 8) }
        }
        let deepBack = try PNG.decode(try PNG.encode(deep))
        #expect(deepBack.info.bitsPerChannel == 16)
        #expect(deepBack.bitmap == deep)
    }

    @Test("Gray8 bitmaps encode as one-channel PNG (exact) and JPEG (close), and as RGB WebP")
    func grayEncoding() throws {
        let gray = try Bitmap(width: 61, height: 29, format: .gray8)
        for y in 0..<29 { for x in 0..<61 { gray.row(y).storeBytes(of: UInt8((x * 4 + y * 3) % 256), toByteOffset: x, as: UInt8.self) } }
        let expanded = try gray.expandedToRGBA8()
        let png = try PNG.encode(gray)
        #expect(try PNG.info(png).colorChannels == 1)
        #expect(try PNG.decode(png).bitmap == expanded)
        let deep = try PNG.encode(gray, options: EncodeOptions(pngBitDepth: 16))
        #expect(try PNG.info(deep).bitsPerChannel == 16)
        let deepBack = try PNG.decode(deep).bitmap
        #expect(try RenderContext().render(Image(bitmap: deepBack)) == expanded)
        let jpeg = try JPEG.encode(gray, options: EncodeOptions(quality: 95))
        #expect(try ImageIO.info(bytes: jpeg).colorChannels == 1)
        #expect(Pixels.psnr(try JPEG.decode(jpeg).bitmap, expanded) > 38)
        let webp = try WebP.encode(gray, options: EncodeOptions(webpLossless: true))
        #expect(try WebP.decode(webp).bitmap == expanded)
        // Streaming writers take grey rows too.
        let folder = try Fixtures.temporaryFolder("gray")
        for format in [ImageFormat.png, .jpeg, .webp] {
            let path = folder.appendingPathComponent("g.\(format)").path
            let w = try ImageIO.makeWriter(
                path: path, format: format, width: 61, height: 29, hasAlpha: false, gray: true,
                options: EncodeOptions(quality: 95, webpLossless: true))
            try w.write(rows: gray.baseAddress, rowBytes: gray.rowBytes, count: 29)
            try w.finish()
            let back = try ImageIO.read(path: path)
            #expect(back.info.colorChannels == (format == .webp ? 3 : 1))
            #expect(Pixels.psnr(back.bitmap, expanded) > 38, "\(format)")
        }
    }

    @Test("keepGray decodes grey PNGs and JPEGs to Gray8, whole and streamed; colour, transparent and 16-bit files as before")
    func grayDecoding() throws {
        let gray = try Bitmap(width: 45, height: 31, format: .gray8)
        for y in 0..<31 { for x in 0..<45 { gray.row(y).storeBytes(of: UInt8((x * 5 + y * 7) % 256), toByteOffset: x, as: UInt8.self) } }
        let keep = DecodeOptions(keepGray: true)
        let png = try PNG.encode(gray)
        let decoded = try PNG.decode(png, options: keep).bitmap
        #expect(decoded.format == .gray8 && decoded == gray)
        #expect(try PNG.decode(png).bitmap == (try gray.expandedToRGBA8()))
        let jpeg = try JPEG.encode(gray, options: EncodeOptions(quality: 95))
        let decodedJPEG = try JPEG.decode(jpeg, options: keep).bitmap
        #expect(decodedJPEG.format == .gray8)
        // The same samples as the RGBA decoding's (R = G = B for a one-channel JPEG).
        #expect(try decodedJPEG.expandedToRGBA8() == (try JPEG.decode(jpeg).bitmap))
        // Files that stay RGBA: colour, 16-bit grey.
        #expect(try PNG.decode(try PNG.encode(try Pixels.noise(9, 7)), options: keep).bitmap.format == .rgba8)
        #expect(try PNG.decode(try PNG.encode(gray, options: EncodeOptions(pngBitDepth: 16)), options: keep).bitmap.format == .rgba16)
        #expect(try JPEG.decode(try JPEG.encode(try Pixels.noise(9, 7)), options: keep).bitmap.format == .rgba8)
        // Streamed through a render, as `sfumato apply --gray` reads them.
        let folder = try Fixtures.temporaryFolder("gray-decode")
        for (name, bytes) in [("g.png", png), ("g.jpg", jpeg)] {
            let path = folder.appendingPathComponent(name).path
            try writeFileAtomically(bytes, to: path)
            let (image, _) = try ImageIO.open(path: path, options: keep)
            let rendered = try RenderContext(workingSpace: .none).render(image, format: .gray8)
            #expect(rendered == (name == "g.png" ? gray : decodedJPEG), "\(name)")
        }
        #expect(try JPEGRowSource(path: folder.appendingPathComponent("g.jpg").path, options: keep).format == .gray8)
    }

    @Test("decoders declare images without alpha opaque (no scan before each render); every write Sfumato makes forgets it")
    func declaredOpacity() throws {
        let noise = try Pixels.noise(40, 30, seed: 9)
        let jpegBytes = try JPEG.encode(noise), pngBytes = try PNG.encode(noise)
        var lossless = EncodeOptions()
        lossless.webpLossless = true
        let webpBytes = try WebP.encode(noise, options: lossless)
        #expect(!(try PNG.decode(try PNG.encode(try Pixels.noise(40, 30, seed: 9, alpha: true))).bitmap.isOpaque))
        for bytes in [jpegBytes, pngBytes, webpBytes] {
            let b = try ImageIO.read(bytes: bytes).bitmap
            // Declared, so a raw write is not looked for until pixelsChanged() (the documented contract);
            // copies and rotations keep the declaration.
            b.row(0).storeBytes(of: 0, toByteOffset: 3, as: UInt8.self)
            #expect(b.isOpaque)
            #expect(try b.copy().isOpaque)
            #expect(try b.oriented(6).isOpaque)
            b.pixelsChanged()
            #expect(!b.isOpaque)
        }
        let set = try JPEG.decode(jpegBytes).bitmap
        set.setPixel(x: 3, y: 4, [1, 0, 0, 0.5])
        #expect(!set.isOpaque)
        // The render sees the new alpha: premultiplied 8-bit output of (255, 0, 0, 128).
        let premultiplied = try RenderContext(workingSpace: .none).render(Image(bitmap: set), alpha: .premultiplied)
        #expect(premultiplied.bytes(x: 3, y: 4) == SIMD4(128, 0, 0, 128))
        let cleared = try JPEG.decode(jpegBytes).bitmap
        cleared.clear()
        #expect(!cleared.isOpaque)
        let target = try PNG.decode(pngBytes).bitmap
        try RenderContext().render(
            Image(color: [0, 0, 0, 0]).cropped(to: Rect(width: 2, height: 2)),
            rect: Rect(width: 2, height: 2), into: target)
        #expect(!target.isOpaque)
    }

    @Test("JPEG round trips stay within the stated PSNR (q95 4:4:4 above 38 dB, q90 4:2:0 above 33 dB on photos)")
    func jpegRoundTrip() throws {
        for name in ["astronaut.png", "coffee.png", "chelsea.png"] {
            let photo = try Fixtures.photo(name)
            var o = EncodeOptions(quality: 95, chromaSubsampling: .s444)
            let hi = try JPEG.decode(try JPEG.encode(photo, options: o)).bitmap
            #expect(Pixels.psnr(photo, hi) > 38, "\(name) q95: \(Pixels.psnr(photo, hi)) dB")
            o = EncodeOptions(quality: 90, chromaSubsampling: .s420)
            let lo = try JPEG.decode(try JPEG.encode(photo, options: o)).bitmap
            #expect(Pixels.psnr(photo, lo) > 33, "\(name) q90: \(Pixels.psnr(photo, lo)) dB")
        }
    }

    @Test("DCT-scaled JPEG decoding gives 1/2, 1/4 and 1/8 size previews close to an area downscale")
    func jpegScaled() throws {
        let bytes = try ImageIO.readBytes(path: Fixtures.path("hubble_deep_field.jpg"))
        let full = try JPEG.decode(bytes).bitmap
        for s in [2, 4, 8] {
            let small = try JPEG.decode(bytes, options: DecodeOptions(jpegScale: s)).bitmap
            #expect(small.width == (full.width + s - 1) / s && small.height == (full.height + s - 1) / s)
            let reference = try RenderContext(workingSpace: .none).render(Image(bitmap: full).resized(width: small.width, height: small.height))
            #expect(Pixels.meanDifference(small, reference) < 3, "scale 1/\(s): mean difference \(Pixels.meanDifference(small, reference))")
        }
        #expect(throws: SfumatoError.self) { try JPEG.decode(bytes, options: DecodeOptions(jpegScale: 3)) }
    }

    @Test("WebP: lossless is exact, lossy is close, alpha survives")
    func webp() throws {
        let rgba = try Pixels.noise(40, 30, seed: 9, alpha: true)
        var o = EncodeOptions()
        o.webpLossless = true
        let lossless = try WebP.encode(rgba, options: o)
        #expect(try WebP.info(lossless).lossless == true)
        let back = try WebP.decode(lossless).bitmap
        // libwebp keeps exact RGB only where alpha > 0 by default; compare those.
        for y in 0..<30 { for x in 0..<40 where rgba.bytes(x: x, y: y).w > 0 { #expect(back.bytes(x: x, y: y) == rgba.bytes(x: x, y: y)) } }
        let photo = try Fixtures.photo("coffee.png")
        let lossy = try WebP.decode(try WebP.encode(photo, options: EncodeOptions(quality: 90))).bitmap
        #expect(Pixels.psnr(photo, lossy) > 30)
    }

    @Test("EXIF orientations 1-8 are applied on read", arguments: 1...8)
    func orientation(_ o: Int) throws {
        // Big flat quadrants survive JPEG; the stored image is the upright one turned the other way.
        let upright = try Pixels.make(64, 32) { x, y in
            x < 32 ? (y < 16 ? SIMD4(1, 0, 0, 1) : SIMD4(0, 1, 0, 1)) : (y < 16 ? SIMD4(0, 0, 1, 1) : SIMD4(1, 1, 1, 1))
        }
        let inverse = [1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6][o]!
        let stored = try upright.oriented(inverse)
        let jpeg = withOrientation(try JPEG.encode(stored, options: EncodeOptions(quality: 100, chromaSubsampling: .s444)), o)
        #expect(try JPEG.info(jpeg).orientation == o)
        let decoded = try JPEG.decode(jpeg).bitmap
        #expect(decoded.width == 64 && decoded.height == 32)
        for (x, y) in [(8, 8), (8, 24), (56, 8), (56, 24)] {
            let d = decoded.pixel(x: x, y: y) - upright.pixel(x: x, y: y)
            #expect(max(abs(d.x), abs(d.y), abs(d.z)) < 0.05, "orientation \(o) at (\(x), \(y))")
        }
        // Without orientation, the stored pixels come back.
        #expect(try JPEG.decode(jpeg, options: DecodeOptions(applyOrientation: false)).bitmap.width == stored.width)
    }

    @Test("embedded ICC profiles are converted to sRGB; sRGB-tagged files are left alone")
    func colorManagement() throws {
        let rocket = try ImageIO.readBytes(path: Fixtures.path("rocket.jpg"))
        #expect(try JPEG.info(rocket).iccProfile == "Adobe RGB (1998)")
        let converted = try JPEG.decode(rocket).bitmap
        let raw = try JPEG.decode(rocket, options: DecodeOptions(convertToSRGB: false)).bitmap
        // Adobe RGB's wider gamut: the same numbers mean more saturated colours in sRGB.
        #expect(Pixels.meanDifference(converted, raw) > 1)
        var more = 0, less = 0
        for (x, y) in Pixels.samplePoints(raw.width, raw.height) {
            func spread(_ p: SIMD4<Float>) -> Float { max(p.x, p.y, p.z) - min(p.x, p.y, p.z) }
            let a = spread(converted.pixel(x: x, y: y)), b = spread(raw.pixel(x: x, y: y))
            if a > b + 0.01 { more += 1 } else if a < b - 0.01 { less += 1 }
        }
        #expect(more > 3 * less)
        let hubble = try ImageIO.readBytes(path: Fixtures.path("hubble_deep_field.jpg"))
        #expect(try JPEG.decode(hubble).bitmap == JPEG.decode(hubble, options: DecodeOptions(convertToSRGB: false)).bitmap)
    }

    @Test("damaged input gives a typed error, never a crash")
    func badInput() throws {
        let jpeg = try ImageIO.readBytes(path: Fixtures.path("rocket.jpg"))
        let png = try ImageIO.readBytes(path: Fixtures.path("chelsea.png"))
        let webp = try WebP.encode(try Fixtures.photo("chelsea.png"))
        func kind(_ bytes: [UInt8]) -> String {
            do { _ = try ImageIO.read(bytes: bytes); return "ok" } catch let e as SfumatoError {
                switch e {
                case .truncated: return "truncated"
                case .corrupt: return "corrupt"
                case .unsupported: return "unsupported"
                case .tooLarge: return "tooLarge"
                default: return "other: \(e)"
                }
            } catch { return "untyped \(error)" }
        }
        #expect(kind(Array(jpeg.prefix(jpeg.count / 2))) == "truncated")
        #expect(kind(Array(jpeg.prefix(300))) == "truncated")
        #expect(kind(Array(png.prefix(png.count / 2))) == "truncated")
        #expect(kind(Array(webp.prefix(webp.count / 2))) == "truncated")
        #expect(kind([]) == "truncated")
        #expect(kind(Array("hello, not an image".utf8)) == "unsupported")
        var garbled = jpeg
        for i in stride(from: 2000, to: garbled.count - 100, by: 97) { garbled[i] = 0xFF }
        #expect(["corrupt", "truncated"].contains(kind(garbled)))
        var badPNG = png
        badPNG[40] ^= 0xFF  // inside a chunk: CRC mismatch
        #expect(kind(badPNG) == "corrupt")
        // Random garbage after valid magic numbers.
        var rng = SystemRandomNumberGenerator()
        for magic in [[0xFF, 0xD8, 0xFF], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]] as [[UInt8]] {
            for _ in 0..<20 {
                let bytes = magic + (0..<Int.random(in: 0..<2000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                #expect(kind(bytes) != "ok")
            }
        }
    }

    @Test("the pixel limit is checked against the header before allocating")
    func pixelLimit() throws {
        let jpeg = try ImageIO.readBytes(path: Fixtures.path("hubble_deep_field.jpg"))
        #expect(throws: SfumatoError.self) { try ImageIO.read(bytes: jpeg, options: DecodeOptions(pixelLimit: 500_000)) }
        // A PNG header claiming 100000 x 100000 pixels (10 gigapixels) with no data behind it.
        var header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        header += [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0, 8, 6, 0, 0, 0]
        header += crc(Array(header[12...]))
        do {
            _ = try ImageIO.read(bytes: header)
            Issue.record("accepted a 10-gigapixel PNG")
        } catch let e as SfumatoError {
            guard case .tooLarge = e else { Issue.record("expected tooLarge, got \(e)"); return }
        }
    }

    @Test("file writes are atomic: a failed write leaves no file and no temporary")
    func atomicWrites() throws {
        let folder = try Fixtures.temporaryFolder("atomic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("out.jpg").path
        do {
            let writer = try ImageIO.makeWriter(path: target, format: .jpeg, width: 10, height: 10, hasAlpha: false)
            var row = [UInt8](repeating: 128, count: 40)
            try writer.write(rows: &row, rowBytes: 40, count: 1)
            // Abandoned before finish (as when a render fails): nothing may remain.
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        try ImageIO.write(try Pixels.noise(8, 8), to: folder.appendingPathComponent("ok.png").path)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names == ["ok.png"])
    }
}

/// CRC-32 of PNG chunk bytes (type + data), big-endian.
func crc(_ bytes: [UInt8]) -> [UInt8] {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    c ^= 0xFFFF_FFFF
    return [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)]
}
