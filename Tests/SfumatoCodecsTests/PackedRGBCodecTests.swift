import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

/// `DecodeOptions.packRGB`: opaque colour files decode to RGB8 with the RGBA8 decode's colour,
/// and RGB8 bitmaps encode as their RGBA8 expansion does.
@Suite("Packed RGB8 decoding and encoding")
struct PackedRGBCodecTests {
    /// Every pixel's colour of `packed` (RGB8) equals `rgba`'s (opaque RGBA8).
    func expectSameColour(_ packed: Bitmap, _ rgba: Bitmap, _ label: String) {
        #expect(packed.format == .rgb8, "\(label): \(packed.format)")
        #expect(packed.width == rgba.width && packed.height == rgba.height, "\(label): size")
        guard packed.format == .rgb8, packed.width == rgba.width, packed.height == rgba.height else { return }
        var mismatches = 0
        for y in 0..<rgba.height {
            let p = packed.row(y).assumingMemoryBound(to: UInt8.self), q = rgba.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<rgba.width {
                if p[3 * x] != q[4 * x] || p[3 * x + 1] != q[4 * x + 1] || p[3 * x + 2] != q[4 * x + 2] || q[4 * x + 3] != 255 { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(label): \(mismatches) pixels differ")
    }

    static let packing = DecodeOptions(packRGB: true)

    /// PNG's chunk CRC (CRC-32, reflected, polynomial 0xEDB88320), bit by bit.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    @Test("JPEG: straight to RGB8, at every DCT scale, with its orientation applied; CMYK and grey as before")
    func jpeg() throws {
        let photo = try Fixtures.photo("chelsea.png")
        let jpeg = try JPEG.encode(photo, options: EncodeOptions(quality: 90))
        for scale in [1, 2, 8] {
            let packed = try JPEG.decode(jpeg, options: DecodeOptions(jpegScale: scale, packRGB: true)).bitmap
            let rgba = try JPEG.decode(jpeg, options: DecodeOptions(jpegScale: scale)).bitmap
            expectSameColour(packed, rgba, "JPEG at 1/\(scale)")
            #expect(packed.isOpaque)
        }
        let turned = withOrientation(jpeg, 6)
        expectSameColour(try JPEG.decode(turned, options: Self.packing).bitmap, try JPEG.decode(turned).bitmap, "JPEG, orientation 6")
        // A profile to convert: the RGBA route, packed after (same colour either way).
        let rocket = try ImageIO.readBytes(path: Fixtures.path("rocket.jpg"))
        expectSameColour(try ImageIO.read(bytes: rocket, options: Self.packing).bitmap, try ImageIO.read(bytes: rocket).bitmap, "rocket.jpg")
        // Grey kept as grey wins over packing.
        let grey = try JPEG.encode(try RenderContext(workingSpace: .none).render(Image(bitmap: photo), format: .gray8))
        #expect(try JPEG.decode(grey, options: DecodeOptions(keepGray: true, packRGB: true)).bitmap.format == .gray8)
    }

    @Test("streamed JPEG rows come packed when asked")
    func jpegRows() throws {
        let folder = try Fixtures.temporaryFolder("packed-rows")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("photo.jpg").path
        try ImageIO.write(try Fixtures.photo("chelsea.png"), to: path)
        let source = try JPEGRowSource(path: path, options: Self.packing)
        #expect(source.format == .rgb8)
        let context = RenderContext(workingSpace: .none)
        let streamed = try context.render(Image(rows: source), format: .rgb8)
        expectSameColour(streamed, try ImageIO.read(path: path).bitmap, "streamed rows")
    }

    @Test("PNG: 8-bit RGB straight to RGB8, interlaced too; alpha, 16-bit and grey files as before")
    func png() throws {
        let opaque = try Pixels.noise(67, 41, seed: 3)
        expectSameColour(try PNG.decode(try PNG.encode(opaque), options: Self.packing).bitmap, opaque, "PNG")
        // A 1x1 image is the same bytes interlaced (Adam7's first pass holds its one pixel):
        // the header's interlace flag set, its CRC mended, takes the interlaced decoder.
        let dot = try Pixels.noise(1, 1, seed: 8)
        var interlaced = try PNG.encode(dot)
        interlaced[28] = 1
        let crc = Self.crc32(interlaced[12..<29])
        for k in 0..<4 { interlaced[29 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
        #expect(try PNG.info(interlaced).width == 1)
        expectSameColour(try PNG.decode(interlaced, options: Self.packing).bitmap, dot, "interlaced PNG")
        let translucent = try Pixels.noise(20, 10, seed: 4, alpha: true)
        #expect(try PNG.decode(try PNG.encode(translucent), options: Self.packing).bitmap.format == .rgba8)
        let sixteen = try RenderContext().render(Image(bitmap: opaque), format: .rgba16)
        #expect(try PNG.decode(try PNG.encode(sixteen), options: Self.packing).bitmap.format == .rgba16)
    }

    @Test("WebP and TIFF: opaque results packed after decoding")
    func others() throws {
        let opaque = try Pixels.noise(31, 17, seed: 6)
        var lossless = EncodeOptions()
        lossless.webpLossless = true
        for (name, bytes) in [("WebP", try WebP.encode(opaque, options: lossless)), ("TIFF", try TIFF.encode(opaque))] {
            expectSameColour(try ImageIO.read(bytes: bytes, options: Self.packing).bitmap, opaque, name)
        }
    }

    @Test("RGB8 bitmaps encode exactly as their RGBA8 expansion, in every writable format")
    func encoding() throws {
        let opaque = try Fixtures.photo("chelsea.png")
        let packed = try opaque.packedToRGB8()
        #expect(try packed.expandedToRGBA8() == opaque)
        for format in [ImageFormat.jpeg, .png, .webp, .tiff] {
            #expect(try ImageIO.encode(packed, format: format) == ImageIO.encode(opaque, format: format), "\(format)")
        }
        // Translucent pixels cannot be packed.
        #expect(throws: SfumatoError.self) { try Pixels.noise(4, 4, seed: 1, alpha: true).packedToRGB8() }
    }
}
