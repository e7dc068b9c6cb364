import CJPEG
import Foundation
import SfumatoCore

extension JPEG {
    /// Encodes an RGBA8 bitmap (straight alpha, composited over `options.background` where not
    /// opaque), or a Gray8 bitmap as a one-channel JPEG, with its metadata (see ``EncodeOptions``);
    /// an image of a megapixel or more is compressed in bands on every core, joined by restart
    /// markers.
    public static func encode(_ bitmap: Bitmap, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try options.validate()
        guard bitmap.format == .rgba8 || bitmap.format == .gray8 else {
            throw SfumatoError.unsupported("JPEG encoding takes RGBA8 or Gray8 bitmaps, not \(bitmap.format)")
        }
        let gray = bitmap.format == .gray8
        try checkSize(bitmap.width, bitmap.height)
        var source = bitmap
        if !gray && !bitmap.isOpaque {
            source = try bitmap.copy()
            for y in 0..<source.height {
                let r = source.row(y).assumingMemoryBound(to: UInt8.self)
                _flatten(r, r, source.width, background: options.background)
            }
        }
        let (icc, blocks) = (options.metadata ?? ImageMetadata())._jpegSegments(
            width: bitmap.width, height: bitmap.height, gray: gray)
        return try withExtendedLifetime(source) {
            try _JPEGSegmentedEncoder.encode(
                rows: source.baseAddress, width: source.width, height: source.height, rowBytes: source.rowBytes, gray: gray,
                options: options, icc: icc, markers: blocks.map { (marker: Int32(JPEG_APP0 + 1), data: $0) })
        }
    }

    /// Encodes rows already in memory without copying them: opaque RGBA8 (alpha ignored), or
    /// grey when `gray`. A region of a bitmap is its first row's address and the bitmap's row bytes.
    public static func encode(
        rows: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int, gray: Bool = false,
        options: EncodeOptions = EncodeOptions()
    ) throws -> [UInt8] {
        try options.validate()
        try checkSize(width, height)
        guard rowBytes >= width * (gray ? 1 : 4) else {
            throw SfumatoError.invalidArgument("JPEG rows of \(width) pixels cannot be \(rowBytes) bytes apart")
        }
        return try _JPEGSegmentedEncoder.encode(
            rows: rows, width: width, height: height, rowBytes: rowBytes, gray: gray, options: options)
    }

    private static func checkSize(_ width: Int, _ height: Int) throws {
        guard width > 0, height > 0, width <= 65_500, height <= 65_500 else {
            throw SfumatoError.invalidArgument("JPEG encoding takes 1...65500 pixels a side, not \(width)x\(height)")
        }
    }
}

/// Streams RGBA8 rows (straight alpha), or grey rows when `gray`, into a JPEG file through
/// libjpeg, written atomically.
final class _JPEGFileWriter: ImageFileWriter {
    private let file: _AtomicFile
    private let name: String
    private let e: UnsafeMutablePointer<sf_jpeg_encoder>
    private let width: Int
    private let gray: Bool
    private let options: EncodeOptions
    private var flat: UnsafeMutablePointer<UInt8>
    private var finished = false
    private let height: Int
    private var rowsWritten = 0

    init(path: String, width: Int, height: Int, gray: Bool = false, options: EncodeOptions) throws {
        try options.validate()
        name = path
        guard width > 0, height > 0, width <= 65500, height <= 65500 else {
            throw SfumatoError.tooLarge("\(name): JPEG cannot hold \(width)x\(height) (65500 pixels per side at most)")
        }
        file = try _AtomicFile(path: path)
        guard let e = sf_jpeg_encoder_create() else { throw SfumatoError.io("cannot create a JPEG encoder") }
        self.e = e
        self.width = width
        self.height = height
        self.gray = gray
        self.options = options
        flat = .allocate(capacity: 4 * width * 16)
        let (icc, blocks) = (options.metadata ?? ImageMetadata())._jpegSegments(width: width, height: height, gray: gray)
        var status = icc.withUnsafeBufferPointer {
            sf_jpeg_start_compress(
                e, file.handle, Int32(width), Int32(height), gray ? 1 : 0, Int32(options.quality),
                Int32(options.chromaSubsampling.rawValue), options.fastDCT ? 1 : 0, $0.baseAddress, UInt32($0.count))
        }
        for block in blocks where status == 0 {
            status = block.withUnsafeBufferPointer { sf_jpeg_write_marker(e, Int32(JPEG_APP0 + 1), $0.baseAddress, UInt32($0.count)) }
        }
        if status != 0 {
            let message = String(cString: sf_jpeg_message(&e.pointee.err))
            sf_jpeg_encoder_destroy(e)
            flat.deallocate()
            throw SfumatoError.io("\(name): JPEG encoding failed (\(message))")
        }
    }

    deinit {
        sf_jpeg_encoder_destroy(e)
        flat.deallocate()
        if !finished { file.discard() }
    }

    func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
        guard count >= 0, rowsWritten + count <= height else {
            throw SfumatoError.io("\(name): \(rowsWritten + count) rows written to a JPEG of \(height)")
        }
        rowsWritten += count
        if gray {
            if sf_jpeg_write_rows(e, rows.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(count)) != Int32(count) {
                throw SfumatoError.io("\(name): JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
            }
            return
        }
        var done = 0
        while done < count {
            let n = min(16, count - done)
            let first = rows + done * rowBytes
            // Opaque rows (the usual case) go to libjpeg as they are: it reads RGBA and skips alpha.
            if (0..<n).allSatisfy({ _isOpaque(first + $0 * rowBytes, width) }) {
                if sf_jpeg_write_rows(e, first.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(n)) != Int32(n) {
                    throw SfumatoError.io("\(name): JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
                }
                done += n
                continue
            }
            for r in 0..<n {
                _flatten(
                    (rows + (done + r) * rowBytes).assumingMemoryBound(to: UInt8.self), flat + r * 4 * width, width,
                    background: options.background)
            }
            if sf_jpeg_write_rows(e, flat, 4 * width, Int32(n)) != Int32(n) {
                throw SfumatoError.io("\(name): JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
            }
            done += n
        }
    }

    func finish() throws {
        if sf_jpeg_finish_compress(e) != 0 {
            throw SfumatoError.io("\(name): JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
        }
        try file.commit()
        finished = true
    }
}

extension ImageMetadata {
    /// What a JPEG of `width` x `height` carries: the sRGB profile where the input had one (not in
    /// grey), and the APP1 blocks that fit a marker, EXIF first (viewers look for it in the first
    /// APP1), then XMP.
    func _jpegSegments(width: Int, height: Int, gray: Bool) -> (icc: [UInt8], app1: [[UInt8]]) {
        let blocks = [exif(forUprightWidth: width, height: height), xmp].compactMap { $0 }.filter { $0.count <= 65533 }
        return (hadColorProfile && !gray ? ImageMetadata.sRGBProfile : [], blocks)
    }
}
