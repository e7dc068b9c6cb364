import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

/// In-memory JPEG encoding of a megapixel or more converts colour on a second thread and feeds
/// libjpeg planes; the file writer feeds it RGBA rows, one thread. Both must give the same file.
@Suite("JPEG encoding with the colour conversion on a second thread")
struct JPEGPlanarTests {
    /// A real photo repeated out to `width` x `height` (the photos are all below a megapixel).
    static func tiled(_ width: Int, _ height: Int) throws -> Bitmap {
        let photo = try Fixtures.photo("hubble_deep_field.jpg")
        let b = try Bitmap(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            let row = b.row(y), source = photo.row(y % photo.height)
            var x = 0
            while x < width {
                let n = min(photo.width, width - x)
                row.advanced(by: 4 * x).copyMemory(from: source, byteCount: 4 * n)
                x += n
            }
        }
        return b
    }

    /// The same bitmap through the streaming file writer (libjpeg's scanline input).
    static func scanlines(_ b: Bitmap, _ options: EncodeOptions) throws -> [UInt8] {
        let folder = try Fixtures.temporaryFolder("planar")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.jpg").path
        let writer = try ImageIO.makeWriter(
            path: path, format: .jpeg, width: b.width, height: b.height, hasAlpha: false, options: options)
        try writer.write(rows: b.baseAddress, rowBytes: b.rowBytes, count: b.height)
        try writer.finish()
        return try ImageIO.readBytes(path: path)
    }

    // All at least a megapixel (the two-thread route), MCU-aligned or not, widths odd and even.
    static let sizes = [(1024, 1024), (1283, 1001), (1290, 999), (1100, 1000), (1153, 1009)]

    @Test(
        "the same bytes as libjpeg's scanline input, at every subsampling and size (edges padded the same)",
        arguments: EncodeOptions.ChromaSubsampling.allCases)
    func sameBytes(subsampling: EncodeOptions.ChromaSubsampling) throws {
        for (w, h) in Self.sizes {
            let b = try Self.tiled(w, h)
            for fast in [false, true] {
                var options = EncodeOptions(quality: 87)
                options.chromaSubsampling = subsampling
                options.fastDCT = fast
                let planar = try JPEG.encode(b, options: options)
                let reference = try Self.scanlines(b, options)
                // Compared as a Bool: a failed #expect on two arrays would diff them (quadratic).
                let same = planar == reference
                #expect(same, "\(w)x\(h) \(subsampling) fast DCT \(fast): \(planar.count) vs \(reference.count) bytes")
            }
        }
    }

    @Test("metadata goes in before the first row: EXIF (orientation reset), XMP and the sRGB profile")
    func metadata() throws {
        let b = try Self.tiled(1200, 1000)
        let camera = try ImageIO.info(bytes: withOrientation(try JPEG.encode(b), 6))
        #expect(camera.orientation == 6)
        var options = EncodeOptions()
        options.metadata = camera.metadata
        options.metadata?.xmp = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'/>".utf8)
        options.metadata?.hadColorProfile = true
        let planar = try JPEG.encode(b, options: options)
        let same = planar == (try Self.scanlines(b, options))
        #expect(same)
        let back = try ImageIO.info(bytes: planar)
        #expect(back.orientation == 1)
        #expect(back.width == 1200 && back.height == 1000)
        #expect(back.metadata.exif != nil && back.metadata.hadColorProfile)
    }
}
