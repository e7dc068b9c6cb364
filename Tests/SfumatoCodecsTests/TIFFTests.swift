import CTIFF
import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

/// TIFF through libtiff: lossless round trips at 8 and 16 bits, grey, alpha, real photos, and
/// hostile files. (Files from other writers, with palettes, orientations and compressions, are
/// checked against Pillow in Tests/python/test_formats.py.)
@Suite("TIFF")
struct TIFFTests {
    @Test("round trips are bit-exact: RGBA8 with alpha, RGB8, RGBA16, Gray8, a real photo")
    func roundTrips() throws {
        let rgba = try Pixels.noise(67, 41, seed: 3, alpha: true)
        let tiff = try TIFF.encode(rgba)
        #expect(ImageFormat.sniff(tiff) == .tiff)
        #expect(try TIFF.info(tiff).hasAlpha)
        #expect(try TIFF.decode(tiff).bitmap == rgba)

        let opaque = try Pixels.noise(33, 20, seed: 4)
        let rgb = try TIFF.encode(opaque)
        #expect(try TIFF.info(rgb).hasAlpha == false)
        #expect(try TIFF.decode(rgb).bitmap == opaque)

        let deep = try Bitmap(width: 19, height: 7, format: .rgba16, alpha: .straight)
        let p = deep.baseAddress.assumingMemoryBound(to: UInt16.self)
        var s: UInt32 = 11
        for i in 0..<(19 * 7 * 4) {
            s = s &* 1_103_515_245 &+ 12345
            p[i] = UInt16(truncatingIfNeeded: s >> 8)
        }
        let deepTIFF = try TIFF.encode(deep)
        #expect(try TIFF.info(deepTIFF).bitsPerChannel == 16)
        let deepBack = try TIFF.decode(deepTIFF).bitmap
        #expect(deepBack.format == .rgba16 && deepBack == deep)

        let gray = try Bitmap(width: 30, height: 9, format: .gray8, alpha: .straight)
        for i in 0..<(30 * 9) { gray.baseAddress.storeBytes(of: UInt8(i % 251), toByteOffset: i, as: UInt8.self) }
        let grayTIFF = try TIFF.encode(gray)
        #expect(try TIFF.info(grayTIFF).colorChannels == 1)
        #expect(try TIFF.decode(grayTIFF, options: DecodeOptions(keepGray: true)).bitmap == gray)
        let expanded = try TIFF.decode(grayTIFF).bitmap
        #expect(expanded.format == .rgba8 && expanded.pixel(x: 7, y: 3).x == gray.pixel(x: 7, y: 3).x)

        let photo = try Fixtures.photo("rocket.jpg")
        #expect(try ImageIO.read(bytes: try ImageIO.encode(photo, format: .tiff), name: "rocket.tif").bitmap == photo)
    }

    @Test("the XMP packet, an sRGB profile and the EXIF tags are written (the camera's in the image's directory, the rest in an EXIF one)")
    func metadata() throws {
        var options = EncodeOptions()
        options.metadata = MetadataSamples.camera
        for bitmap in [try Pixels.noise(8, 6), try Pixels.noise(9, 5, alpha: true)] {
            let bytes = try TIFF.encode(bitmap, options: options)
            let info = try TIFF.info(bytes)
            #expect(info.metadata.xmp == MetadataSamples.camera.xmp)
            #expect(info.metadata.hadColorProfile && info.iccProfile?.contains("sRGB") == true)
            #expect(try TIFF.decode(bytes).bitmap == bitmap, "the pixels are intact")
            let tags = try TIFFTestReader.exifTags(bytes)
            #expect(tags.directories == 1, "one image directory (the EXIF one is not in the chain)")
            #expect(tags.make == "Sfumato Camera Co.")
            #expect(tags.pixelX == UInt32(bitmap.width) && tags.pixelY == UInt32(bitmap.height), "EXIF dimensions are the image's: \(tags)")
        }
        // A vendor's private tags, unknown to libtiff, come back with their types and values
        // (libexif writes the block read back in Intel byte order: an entry is its tag, type and
        // count, then its value or, past four bytes, the value's offset).
        var vendor = EncodeOptions()
        vendor.metadata = ImageMetadata(exif: MetadataSamples.privateTagsBlock, xmp: nil, hadColorProfile: false)
        let back = try #require(try TIFF.info(try TIFF.encode(try Pixels.noise(8, 6), options: vendor)).metadata.exif)
        func has(_ bytes: [UInt8]) -> Bool {
            back.count >= bytes.count && (0...(back.count - bytes.count)).contains { Array(back[$0..<($0 + bytes.count)]) == bytes }
        }
        #expect(has([0xA5, 0xC4, 7, 0, 11, 0, 0, 0]) && has(Array("private-tag".utf8)), "the UNDEFINED blob")
        #expect(has([0xA6, 0xC4, 2, 0, 13, 0, 0, 0]) && has(Array("private text".utf8) + [0]), "the ASCII text")
        #expect(has([0xA7, 0xC4, 3, 0, 3, 0, 0, 0]) && has([3, 0, 0xF4, 0x01, 0xFF, 0xFF]), "the three SHORTs")
        #expect(has([0xA8, 0xC4, 5, 0, 1, 0, 0, 0]) && has([7, 0, 0, 0, 9, 0, 0, 0]), "the RATIONAL 7/9")
        let bare = try TIFFTestReader.exifTags(try TIFF.encode(try Pixels.noise(8, 6)))
        #expect(bare.make == nil && bare.pixelX == nil, "no EXIF written when none was given")
        // Damaged EXIF blocks (cut short anywhere, bytes flipped), the camera's and the private
        // tags' (whose types and counts a flip turns into anything): never a trap, the pixels intact.
        let bitmap = try Pixels.noise(8, 6)
        var damaged: [[UInt8]] = []
        for block in [MetadataSamples.exifBlock, MetadataSamples.privateTagsBlock] {
            damaged += (7..<block.count).map { Array(block.prefix($0)) }
            for i in stride(from: 6, to: block.count, by: 3) {
                for flip: UInt8 in [0xA5, 0xFF] {
                    var b = block
                    b[i] ^= flip
                    damaged.append(b)
                }
            }
        }
        for exif in damaged {
            var o = EncodeOptions()
            o.metadata = ImageMetadata(exif: exif)
            #expect(try TIFF.decode(try TIFF.encode(bitmap, options: o)).bitmap == bitmap)
        }
    }

    @Test("hostile TIFF: truncations, flipped bytes, huge dimensions and a pixel limit give typed errors")
    func hostile() throws {
        let bytes = try TIFF.encode(try Pixels.noise(40, 30, seed: 5, alpha: true))
        try Damage.decodeEach(Damage.truncations(bytes))
        try Damage.decodeEach(Damage.mutations(bytes, count: 300, changes: 3, seed: 0x7EED))
        #expect {
            _ = try ImageIO.read(bytes: bytes, name: "big", options: DecodeOptions(pixelLimit: 100))
        } throws: { e in
            guard case SfumatoError.tooLarge = e else { return false }
            return true
        }
        // A header claiming 100000 x 100000 pixels in a few hundred bytes: refused before any
        // pixel memory is asked for.
        #expect(throws: SfumatoError.self) { try ImageIO.read(bytes: Self.claiming(100_000, 100_000), name: "claims") }
        // A side of four billion pixels, which libtiff opens: refused from the header, so no
        // size or product of sizes anywhere can pass Int's range (and the file is closed once).
        #expect {
            _ = try ImageIO.info(bytes: Self.claiming(4_000_000_000, 3), name: "wide")
        } throws: { e in
            guard case SfumatoError.tooLarge = e else { return false }
            return true
        }
        #expect(throws: SfumatoError.self) { try ImageIO.read(bytes: [0x49, 0x49, 0x2A, 0x00], name: "magic only") }
    }

    /// A little-endian TIFF header with one IFD: width, height, 8-bit RGB, one strip of 3 bytes.
    static func claiming(_ w: Int, _ h: Int) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            u16(tag) + u16(type) + u32(1) + (type == 3 ? u16(value) + u16(0) : u32(value))
        }
        var t: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8) + u16(8)
        t += entry(256, 4, w) + entry(257, 4, h) + entry(258, 3, 8) + entry(262, 3, 2)
        t += entry(273, 4, 200) + entry(277, 3, 3) + entry(278, 4, h) + entry(279, 4, 3)
        t += u32(0)
        t += [UInt8](repeating: 0, count: 200 - t.count) + [1, 2, 3]
        return t
    }
}

/// Metadata through every format that writes it.
@Suite("Metadata in every format")
struct MetadataFormatTests {
    @Test("JPEG, PNG, WebP, AVIF and TIFF keep EXIF (size updated, orientation 1), XMP and an sRGB profile")
    func everyFormat() throws {
        let bitmap = try Pixels.noise(40, 24, seed: 2)
        var options = EncodeOptions()
        options.metadata = MetadataSamples.camera
        for format in [ImageFormat.jpeg, .png, .webp, .avif, .tiff] {
            let info = try ImageIO.info(bytes: try ImageIO.encode(bitmap, format: format, options: options), name: "\(format)")
            let exif = try #require(info.metadata.exif, "\(format) lost the EXIF block")
            let facts = ImageMetadata.exifFacts(exif)
            #expect(facts.orientation == 1 && facts.width == 40 && facts.height == 24, "\(format): \(facts)")
            #expect(MetadataSamples.make(of: exif) != nil, "\(format) lost the camera's make")
            // PNG's text chunk cannot hold the NUL some writers end a packet with; this one has none.
            #expect(info.metadata.xmp == MetadataSamples.camera.xmp, "\(format) changed the XMP packet")
            #expect(info.metadata.hadColorProfile && info.iccProfile?.contains("sRGB") == true, "\(format): \(info.iccProfile ?? "no profile")")
            let bare = try ImageIO.info(bytes: try ImageIO.encode(bitmap, format: format), name: "\(format)")
            #expect(bare.metadata.isEmpty, "\(format) wrote metadata it was not given")
        }
    }
}

/// Reads back what the TIFF encoder wrote, through libtiff itself.
enum TIFFTestReader {
    struct Tags: CustomStringConvertible {
        var directories = 0, make: String?, pixelX: UInt32?, pixelY: UInt32?
        var description: String { "\(directories) directories, make \(make ?? "none"), \(pixelX.map(String.init) ?? "-")x\(pixelY.map(String.init) ?? "-")" }
    }

    static func exifTags(_ bytes: [UInt8]) throws -> Tags {
        let data = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        defer { data.deallocate() }
        data.initialize(from: bytes, count: bytes.count)
        var stream = sf_tiff_stream()
        stream.data = data
        stream.size = UInt64(bytes.count)
        return try withUnsafeMutablePointer(to: &stream) { pointer in
            let tif = try #require(sf_tiff_open(pointer, "r", 1 << 30))
            defer { TIFFClose(tif) }
            var tags = Tags()
            tags.directories = Int(TIFFNumberOfDirectories(tif))
            _ = TIFFSetDirectory(tif, 0)
            tags.make = sf_tiff_get_ascii(tif, 271).map { String(cString: $0) }
            let offset = sf_tiff_exif_offset(tif)
            guard offset > 0, TIFFReadEXIFDirectory(tif, offset) == 1 else { return tags }
            var v: UInt32 = 0
            if sf_tiff_get_u32(tif, 0xA002, &v) != 0 { tags.pixelX = v }
            if sf_tiff_get_u32(tif, 0xA003, &v) != 0 { tags.pixelY = v }
            return tags
        }
    }
}
