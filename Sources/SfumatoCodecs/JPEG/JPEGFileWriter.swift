import CJPEG
import Foundation
import SfumatoCore

/// Streams RGBA8 rows (straight alpha, composited over the options' background), or grey rows
/// when `gray`, into a JPEG file, written atomically.
///
/// Rows written directly go through one libjpeg as one scan. A render's strips (this is a
/// ``StripEncodingSink``) are each compressed on the thread that rendered it, as a band of
/// whole MCU rows, and joined in order by restart markers, as `JPEG.encode` joins its bands:
/// the compression leaves the one thread that writes.
final class _JPEGFileWriter: ImageFileWriter, StripEncodingSink {
    private enum Mode {
        case waiting
        case scan(UnsafeMutablePointer<sf_jpeg_encoder>)
        /// Bands written so far, the rows of each but the last, and the rows written.
        case bands(count: Int, rows: Int, written: Int)
    }

    private let file: _AtomicFile
    private let name: String
    private let width: Int
    private let height: Int
    private let gray: Bool
    private let options: EncodeOptions
    private let icc: [UInt8]
    private let markers: [(marker: Int32, data: [UInt8])]
    /// Luma rows in a row of MCUs, and MCUs in a row.
    private let mcuRows: Int
    private let mcusAcross: Int
    private var mode = Mode.waiting
    private var finished = false

    init(path: String, width: Int, height: Int, gray: Bool = false, options: EncodeOptions) throws {
        try options.validate()
        name = path
        guard width > 0, height > 0, width <= 65500, height <= 65500 else {
            throw SfumatoError.tooLarge("\(name): JPEG cannot hold \(width)x\(height) (65500 pixels per side at most)")
        }
        file = try _AtomicFile(path: path)
        self.width = width
        self.height = height
        self.gray = gray
        self.options = options
        let (icc, blocks) = (options.metadata ?? ImageMetadata())._jpegSegments(width: width, height: height, gray: gray)
        self.icc = icc
        markers = blocks.map { (marker: Int32(JPEG_APP0 + 1), data: $0) }
        let mcu = _JPEGBands.mcu(gray: gray, options.chromaSubsampling)
        mcuRows = mcu.down
        mcusAcross = (width + mcu.across - 1) / mcu.across
    }

    deinit {
        if case .scan(let e) = mode { sf_jpeg_encoder_destroy(e) }
        if !finished { file.discard() }
    }

    var stripRowMultiple: Int { mcuRows }

    private func failure(_ e: UnsafeMutablePointer<sf_jpeg_encoder>) -> SfumatoError {
        SfumatoError.io("\(name): JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
    }

    // MARK: One scan

    func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
        let e = try scanEncoder()
        guard count >= 0, Int(e.pointee.cinfo.next_scanline) + count <= height else {
            throw SfumatoError.io("\(name): \(Int(e.pointee.cinfo.next_scanline) + count) rows written to a JPEG of \(height)")
        }
        try _JPEGFileWriter.opaqueRows(rows, rowBytes: rowBytes, count: count, width: width, gray: gray, options: options) {
            rows, rowBytes, n in
            if sf_jpeg_write_rows(e, rows.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(n)) != Int32(n) {
                throw failure(e)
            }
        }
    }

    /// The one-scan compressor, started (headers written) on the first rows.
    private func scanEncoder() throws -> UnsafeMutablePointer<sf_jpeg_encoder> {
        switch mode {
        case .scan(let e): return e
        case .bands: throw SfumatoError.io("\(name): rows written to a JPEG already written in strips")
        case .waiting: break
        }
        guard let e = sf_jpeg_encoder_create() else { throw SfumatoError.io("cannot create a JPEG encoder") }
        var status = icc.withUnsafeBufferPointer {
            sf_jpeg_start_compress(
                e, file.handle, Int32(width), Int32(height), gray ? 1 : 0, Int32(options.quality),
                Int32(options.chromaSubsampling.rawValue), options.fastDCT ? 1 : 0, $0.baseAddress, UInt32($0.count))
        }
        for (marker, data) in markers where status == 0 {
            status = data.withUnsafeBufferPointer { sf_jpeg_write_marker(e, marker, $0.baseAddress, UInt32($0.count)) }
        }
        if status != 0 {
            let error = failure(e)
            sf_jpeg_encoder_destroy(e)
            throw error
        }
        mode = .scan(e)
        return e
    }

    // MARK: Strips

    func encode(strip index: Int, rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws -> [UInt8] {
        // The first band's header declares the restart interval: one band of MCUs.
        let restart = index == 0 && count < height ? count / mcuRows * mcusAcross : 0
        guard count > 0, index > 0 || count == height || count % mcuRows == 0, restart <= 65_535 else {
            throw SfumatoError.io("\(name): a strip of \(count) rows cannot be a JPEG band")
        }
        var band: [UInt8] = []
        try _JPEGFileWriter.opaqueRows(rows, rowBytes: rowBytes, count: count, width: width, gray: gray, options: options, all: true) {
            rows, rowBytes, n in
            let b = try _JPEGBand(
                rows: rows, width: width, height: n, rowBytes: rowBytes, gray: gray, options: options,
                restartInterval: restart, icc: index == 0 ? icc : [], markers: index == 0 ? markers : [])
            band = Array(b.bytes)
        }
        return band
    }

    func write(encoded: [UInt8], strip index: Int, count: Int) throws {
        let (bands, bandRows, written): (Int, Int, Int)
        switch mode {
        case .scan: throw SfumatoError.io("\(name): strips written to a JPEG already written in rows")
        case .waiting: (bands, bandRows, written) = (0, count, 0)
        case .bands(let c, let r, let w): (bands, bandRows, written) = (c, r, w)
        }
        // Bands of one height, the last possibly shorter: the restart interval is one band.
        guard index == bands, count <= bandRows, written + count <= height, count == bandRows || written + count == height else {
            throw SfumatoError.io("\(name): strip \(index) of \(count) rows does not follow \(bands) bands of \(bandRows)")
        }
        try encoded.withUnsafeBufferPointer { bytes in
            let layout = try _JPEGLayout(bytes)
            if index == 0 {
                try layout.headers(bytes, height: height).withUnsafeBytes { try file.write($0) }
            } else {
                try _JPEGLayout.restart(before: index).withUnsafeBytes { try file.write($0) }
            }
            try file.write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[layout.data]))
        }
        mode = .bands(count: bands + 1, rows: bandRows, written: written + count)
    }

    // MARK: Finishing

    func finish() throws {
        switch mode {
        case .waiting: throw SfumatoError.io("\(name): no rows written to a JPEG of \(height)")
        case .scan(let e): if sf_jpeg_finish_compress(e) != 0 { throw failure(e) }
        case .bands(_, _, let written):
            guard written == height else { throw SfumatoError.io("\(name): \(written) rows written to a JPEG of \(height)") }
            try _JPEGLayout.end.withUnsafeBytes { try file.write($0) }
        }
        try file.commit()
        finished = true
    }
}

extension _JPEGFileWriter {
    /// Hands `count` rows to `body` as opaque rows, in runs of up to 16 (or all at once when
    /// `all`): opaque RGBA rows (the usual case) and grey rows as they are, since libjpeg reads
    /// RGBA and skips alpha; others composited over the background into a copy first.
    static func opaqueRows(
        _ rows: UnsafeRawPointer, rowBytes: Int, count: Int, width: Int, gray: Bool, options: EncodeOptions,
        all: Bool = false, _ body: (UnsafeRawPointer, Int, Int) throws -> Void
    ) throws {
        if gray || (0..<count).allSatisfy({ _isOpaque(rows + $0 * rowBytes, width) }) {
            return try body(rows, rowBytes, count)
        }
        let run = all ? count : min(16, count)
        let flat = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * width * run)
        defer { flat.deallocate() }
        var done = 0
        while done < count {
            let n = min(run, count - done)
            for r in 0..<n {
                _flatten(
                    (rows + (done + r) * rowBytes).assumingMemoryBound(to: UInt8.self), flat + r * 4 * width, width,
                    background: options.background)
            }
            try body(flat, 4 * width, n)
            done += n
        }
    }
}
