import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoTestSupport
import Testing

/// In-memory JPEG encoding of a megapixel or more compresses bands of rows on several threads
/// and joins them with restart markers; the file writer compresses the whole image as one scan.
/// Decoded, both must give the same pixels.
@Suite("JPEG encoding in bands joined by restart markers")
struct JPEGSegmentedTests {
    /// A real photo repeated out to `width` x `height` (the photos are all below a megapixel).
    static func tiled(_ width: Int, _ height: Int, gray: Bool = false) throws -> Bitmap {
        let photo = try Fixtures.photo("hubble_deep_field.jpg")
        let b = try Bitmap(width: width, height: height, format: gray ? .gray8 : .rgba8)
        for y in 0..<height {
            let source = photo.row(y % photo.height).assumingMemoryBound(to: UInt8.self)
            let row = b.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let p = source + 4 * (x % photo.width)
                if gray { row[x] = p[1] } else { (row + 4 * x).update(from: p, count: 4) }
            }
        }
        return b
    }

    /// The same bitmap through the streaming file writer: libjpeg compressing one scan.
    static func oneScan(_ b: Bitmap, _ options: EncodeOptions) throws -> [UInt8] {
        let folder = try Fixtures.temporaryFolder("segmented")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.jpg").path
        let writer = try ImageIO.makeWriter(
            path: path, format: .jpeg, width: b.width, height: b.height, hasAlpha: false,
            gray: b.format == .gray8, options: options)
        try writer.write(rows: b.baseAddress, rowBytes: b.rowBytes, count: b.height)
        try writer.finish()
        return try ImageIO.readBytes(path: path)
    }

    /// The restart markers (RST0...RST7) in a file, in order: in entropy-coded data a 0xFF byte
    /// is followed by 0x00, so FF D0...D7 is always a marker.
    static func restarts(_ bytes: [UInt8]) -> [UInt8] {
        var found = [UInt8]()
        for i in 0..<(bytes.count - 1) where bytes[i] == 0xFF && (0xD0...0xD7).contains(bytes[i + 1]) {
            found.append(bytes[i + 1] - 0xD0)
        }
        return found
    }

    /// Bands for `height` rows of MCUs `mcu` rows tall on `threads` threads: as even as whole
    /// MCU rows allow, so possibly fewer than the threads.
    static func bands(_ height: Int, mcu: Int, threads: Int) -> Int {
        let rows = (height + mcu - 1) / mcu, perBand = (rows + threads - 1) / threads
        return (rows + perBand - 1) / perBand
    }

    // All a megapixel or more; heights a whole number of MCU rows or not, widths odd and even.
    static let sizes = [(1024, 1024), (1283, 1001), (1290, 999), (1100, 1000), (1153, 1009)]

    @Test(
        "the same pixels as one scan at every subsampling, size, DCT and thread count, with a marker between bands",
        arguments: EncodeOptions.ChromaSubsampling.allCases)
    func samePixels(subsampling: EncodeOptions.ChromaSubsampling) throws {
        for (w, h) in Self.sizes {
            let b = try Self.tiled(w, h)
            for (fast, threads) in [(false, 2), (true, 3), (false, 9)] {
                var options = EncodeOptions(quality: 87)
                options.chromaSubsampling = subsampling
                options.fastDCT = fast
                options.threads = threads
                let bands = try JPEG.encode(b, options: options)
                let reference = try Self.oneScan(b, options)
                let label = "\(w)x\(h) \(subsampling), fast DCT \(fast), \(threads) threads"
                #expect(Self.restarts(reference).isEmpty)
                let count = Self.bands(h, mcu: subsampling == .s420 ? 16 : 8, threads: threads)
                #expect(count > 1)
                #expect(Self.restarts(bands) == (0..<(count - 1)).map { UInt8($0 % 8) }, "\(label)")
                // Compared as a Bool: a failed #expect on two bitmaps would describe them whole.
                let same = try JPEG.decode(bands).bitmap == JPEG.decode(reference).bitmap
                #expect(same, "\(label)")
                // Within 0.2% of one scan's size: the markers and their padding only.
                #expect(Double(bands.count) < Double(reference.count) * 1.002, "\(label)")
            }
        }
    }

    @Test("grey images too, and one thread gives exactly the one-scan file")
    func grayAndOneThread() throws {
        for gray in [true, false] {
            let b = try Self.tiled(1290, 999, gray: gray)
            var options = EncodeOptions()
            options.threads = 4
            let bands = try JPEG.encode(b, options: options)
            #expect(Self.restarts(bands).count == 3)
            let same = try JPEG.decode(bands).bitmap == JPEG.decode(Self.oneScan(b, options)).bitmap
            #expect(same, "gray \(gray)")
            options.threads = 1
            let single = try JPEG.encode(b, options: options) == Self.oneScan(b, options)
            #expect(single, "gray \(gray)")
        }
    }

    @Test("a band holds at most 65,535 MCUs, the largest restart interval")
    func restartIntervalLimit() throws {
        // 8,000 MCUs a row at 4:4:4: eight rows of MCUs a band at most (not the 13 that two
        // threads would take), so four bands for 25 rows.
        let b = try Self.tiled(64_000, 200)
        var options = EncodeOptions(quality: 50, chromaSubsampling: .s444)
        options.threads = 2
        let bands = try JPEG.encode(b, options: options)
        #expect(Self.restarts(bands) == [0, 1, 2])
        let same = try JPEG.decode(bands).bitmap == JPEG.decode(Self.oneScan(b, options)).bitmap
        #expect(same)
    }

    @Test("metadata goes in the first band's header: EXIF (orientation reset), XMP and the sRGB profile")
    func metadata() throws {
        let b = try Self.tiled(1200, 1000)
        let camera = try ImageIO.info(bytes: withOrientation(try JPEG.encode(b), 6))
        #expect(camera.orientation == 6)
        var options = EncodeOptions()
        options.metadata = camera.metadata
        options.metadata?.xmp = MetadataSamples.camera.xmp
        options.metadata?.hadColorProfile = true
        options.threads = 2
        let bands = try JPEG.encode(b, options: options)
        #expect(Self.restarts(bands).count == 1)
        let back = try ImageIO.info(bytes: bands)
        #expect(back.orientation == 1)
        #expect(back.width == 1200 && back.height == 1000)
        #expect(back.metadata.exif != nil && back.metadata.xmp == options.metadata?.xmp && back.metadata.hadColorProfile)
        let same = try JPEG.decode(bands).bitmap == JPEG.decode(Self.oneScan(b, options)).bitmap
        #expect(same)
    }

    @Test(
        "a render streamed into a JPEG file is compressed strip by strip: the pixels of one scan, with alpha and in grey",
        arguments: [EncodeOptions.ChromaSubsampling.s420, .s422, .s444])
    func renderedInStrips(subsampling: EncodeOptions.ChromaSubsampling) throws {
        let folder = try Fixtures.temporaryFolder("strips")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Half transparent at the bottom: those strips are composited over the background first.
        let photo = try Self.tiled(700, 517)
        for y in 400..<517 {
            let row = photo.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<700 { row[4 * x + 3] = UInt8(x % 256) }
        }
        for gray in [false, true] {
            var options = EncodeOptions(quality: 80)
            options.chromaSubsampling = subsampling
            let image = Image(bitmap: photo)
            let format: PixelFormat = gray ? .gray8 : .rgba8
            let context = RenderContext(options: .init(threads: 3, tileHeight: 24))
            let path = folder.appendingPathComponent("strips.jpg").path
            let writer = try ImageIO.makeWriter(
                path: path, format: .jpeg, width: 700, height: 517, hasAlpha: false, gray: gray, options: options)
            try context.render(image, rect: image.extent, format: format, to: writer)
            try writer.finish()
            let bytes = try ImageIO.readBytes(path: path)
            let rendered = try context.render(image, format: format)
            let reference = try Self.oneScan(rendered, options)
            let mcu = !gray && subsampling == .s420 ? 16 : 8
            // Strips of 24 rows rounded up to whole MCU rows.
            let strip = (24 + mcu - 1) / mcu * mcu
            #expect(Self.restarts(bytes).count == (517 + strip - 1) / strip - 1, "\(subsampling) gray \(gray)")
            let same = try JPEG.decode(bytes).bitmap == JPEG.decode(reference).bitmap
            #expect(same, "\(subsampling) gray \(gray)")
        }
    }

    @Test("hostile options and sizes are refused with an error: thread counts out of range, short rows, no pixels")
    func refused() throws {
        let b = try Self.tiled(64, 64)
        for threads in [0, -1, 513, Int.min, Int.max] {
            var options = EncodeOptions()
            options.threads = threads
            #expect(throws: SfumatoError.self) { try JPEG.encode(b, options: options) }
        }
        #expect(throws: SfumatoError.self) { try JPEG.encode(rows: b.baseAddress, width: 64, height: 64, rowBytes: 63) }
        #expect(throws: SfumatoError.self) { try JPEG.encode(rows: b.baseAddress, width: 0, height: 64, rowBytes: 256) }
        #expect(throws: SfumatoError.self) { try JPEG.encode(rows: b.baseAddress, width: 70_000, height: 1, rowBytes: 280_000) }
    }
}
