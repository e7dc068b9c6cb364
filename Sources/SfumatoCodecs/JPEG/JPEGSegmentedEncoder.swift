import CJPEG
import Foundation
import SfumatoCore

/// In-memory JPEG compression on every core: the image is cut into bands of whole MCU rows,
/// each band compressed by its own libjpeg on its own thread, and the bands' entropy-coded data
/// joined by restart markers.
///
/// A restart marker resets everything the entropy coder carries from one MCU to the next (the
/// DC predictions and the bit buffer, padded out to a byte), so a band compressed alone is
/// exactly the data that follows a restart. The first band's header declares a restart
/// interval of one band (DRI) and, patched, the whole height. Every block gets the coefficients
/// one libjpeg would give it over the whole image, since libjpeg's colour conversion and
/// downsampling read no pixel outside the block's MCU row, so any decoder gives the same pixels
/// as for a single-threaded file. A band costs one marker: two bytes and the padding of a byte.
enum _JPEGSegmentedEncoder {
    /// Compresses `height` rows of `width` opaque RGBA pixels (alpha ignored), or grey ones,
    /// `rowBytes` apart, on up to `options.threads` threads; writes the ICC profile and the APPn markers
    /// given, in order, before the first row.
    static func encode(
        rows: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int, gray: Bool, options: EncodeOptions,
        icc: [UInt8] = [], markers: [(marker: Int32, data: [UInt8])] = []
    ) throws -> [UInt8] {
        let threads = options.threads
        let bands = _JPEGBands(width: width, height: height, gray: gray, options: options, threads: threads)
        var results = [Result<_JPEGBand, any Error>?](repeating: nil, count: bands.count)
        results.withUnsafeMutableBufferPointer { slots in
            parallelFor(bands.count, threads: threads) { band in
                slots[band] = Result {
                    try _JPEGBand(
                        rows: rows + bands.firstRow(band) * rowBytes, width: width, height: bands.rows(band, of: height),
                        rowBytes: rowBytes, gray: gray, options: options,
                        restartInterval: bands.count > 1 ? bands.restartInterval : 0,
                        icc: band == 0 ? icc : [], markers: band == 0 ? markers : [])
                }
            }
        }
        let compressed = try results.map { try $0!.get() }
        if compressed.count == 1 { return Array(compressed[0].bytes) }
        return try _JPEGBand.join(compressed, height: height)
    }
}

/// How an image is cut into bands: whole rows of MCUs, as many bands as threads where the
/// image is large enough to gain, each at most 65,535 MCUs (the largest restart interval).
struct _JPEGBands {
    /// Image rows in each band but the last.
    let bandRows: Int
    let count: Int
    /// MCUs in each band but the last.
    let restartInterval: Int

    /// Below this many pixels a second thread gains too little to pay for itself.
    static let parallelPixels = 1 << 20

    /// An MCU's size in pixels: 8x8 blocks of luma, as many as the chroma subsampling takes.
    static func mcu(gray: Bool, _ subsampling: EncodeOptions.ChromaSubsampling) -> (across: Int, down: Int) {
        switch (gray, subsampling) {
        case (true, _), (false, .s444): (8, 8)
        case (false, .s422): (16, 8)
        case (false, .s420): (16, 16)
        }
    }

    init(width: Int, height: Int, gray: Bool, options: EncodeOptions, threads: Int) {
        let (across, down) = Self.mcu(gray: gray, options.chromaSubsampling)
        let mcusAcross = (width + across - 1) / across
        let mcuRows = (height + down - 1) / down
        let wanted = width * height >= Self.parallelPixels ? max(1, threads) : 1
        let rowsPerBand = min(max(1, (mcuRows + wanted - 1) / wanted), max(1, 65_535 / mcusAcross))
        bandRows = rowsPerBand * down
        count = (mcuRows + rowsPerBand - 1) / rowsPerBand
        restartInterval = rowsPerBand * mcusAcross
    }

    func firstRow(_ band: Int) -> Int { band * bandRows }
    func rows(_ band: Int, of height: Int) -> Int { min(bandRows, height - band * bandRows) }
}

/// One band compressed by libjpeg into memory: a whole JPEG of the band's rows.
final class _JPEGBand: @unchecked Sendable {
    private let encoder: UnsafeMutablePointer<sf_jpeg_encoder>
    /// The file's bytes, owned by the encoder.
    let bytes: UnsafeBufferPointer<UInt8>

    init(
        rows: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int, gray: Bool, options: EncodeOptions,
        restartInterval: Int, icc: [UInt8], markers: [(marker: Int32, data: [UInt8])]
    ) throws {
        guard let e = sf_jpeg_encoder_create() else { throw SfumatoError.io("cannot create a JPEG encoder") }
        encoder = e
        func check(_ status: Int32) throws {
            if status < 0 {
                sf_jpeg_encoder_destroy(e)
                throw SfumatoError.io("JPEG encoding failed (\(String(cString: sf_jpeg_message(&e.pointee.err))))")
            }
        }
        // Room for a photo at high quality (about two bits a pixel); libjpeg grows it if needed.
        let capacity = 64 * 1024 + width * height / 4
        try check(
            icc.withUnsafeBufferPointer {
                sf_jpeg_start_compress_memory(
                    e, capacity, Int32(width), Int32(height), gray ? 1 : 0, Int32(options.quality),
                    Int32(options.chromaSubsampling.rawValue), options.fastDCT ? 1 : 0, UInt32(restartInterval),
                    $0.baseAddress, UInt32($0.count))
            })
        for (marker, data) in markers {
            try check(data.withUnsafeBufferPointer { sf_jpeg_write_marker(e, marker, $0.baseAddress, UInt32($0.count)) })
        }
        try check(sf_jpeg_write_rows(e, rows.assumingMemoryBound(to: UInt8.self), rowBytes, Int32(height)))
        try check(sf_jpeg_finish_compress(e))
        var size = 0
        bytes = UnsafeBufferPointer(start: sf_jpeg_memory_bytes(e, &size), count: size)
    }

    deinit { sf_jpeg_encoder_destroy(encoder) }
}

extension _JPEGBand {
    /// The first band's headers with the frame's height set to `height`, every band's
    /// entropy-coded data with restart markers between them, and the end.
    static func join(_ bands: [_JPEGBand], height: Int) throws -> [UInt8] {
        let layouts = try bands.map { try _JPEGLayout($0.bytes) }
        var out = [UInt8]()
        out.reserveCapacity(layouts.reduce(0) { $0 + $1.data.count + 2 } + layouts[0].dataStart + 2)
        out += layouts[0].headers(bands[0].bytes, height: height)
        for (i, (band, layout)) in zip(bands, layouts).enumerated() {
            if i > 0 { out += _JPEGLayout.restart(before: i) }
            out.append(contentsOf: band.bytes[layout.data])
        }
        out += _JPEGLayout.end
        return out
    }
}

/// Where the parts of a file libjpeg wrote lie: its frame header (SOFn) and the entropy-coded
/// data between the scan header (SOS) and the end marker. libjpeg writes one baseline scan.
struct _JPEGLayout {
    let frame: Int
    let dataStart: Int
    let data: Range<Int>

    init(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        func fail() -> SfumatoError { SfumatoError.io("JPEG encoding failed (libjpeg wrote an unexpected layout)") }
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[bytes.count - 2] == 0xFF,
            bytes[bytes.count - 1] == 0xD9
        else { throw fail() }
        var i = 2, frame: Int?
        while true {
            guard i + 4 <= bytes.count, bytes[i] == 0xFF else { throw fail() }
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC2).contains(marker) { frame = i }
            i += 2 + length
            if marker == 0xDA { break }
        }
        guard let frame, frame + 7 <= bytes.count, i <= bytes.count - 2 else { throw fail() }
        self.frame = frame
        dataStart = i
        data = i..<(bytes.count - 2)
    }

    /// The file's markers up to its entropy-coded data, with the frame's height set to `height`.
    func headers(_ bytes: UnsafeBufferPointer<UInt8>, height: Int) -> [UInt8] {
        var out = Array(bytes[..<dataStart])
        out[frame + 5] = UInt8(height >> 8)
        out[frame + 6] = UInt8(height & 0xFF)
        return out
    }

    /// The restart marker before band `index` (1...): RST0...RST7 in turn.
    static func restart(before index: Int) -> [UInt8] { [0xFF, 0xD0 + UInt8((index - 1) % 8)] }

    /// The end of image marker.
    static let end: [UInt8] = [0xFF, 0xD9]
}
