import CJPEG
import Foundation
import SfumatoCore

/// One pass of libjpeg decompression, from memory or a file, delivering RGBA8 rows (CMYK and
/// ICC-tagged files converted to sRGB on the way).
final class _JPEGDecoder: RowReader {
    private let d: UnsafeMutablePointer<sf_jpeg_decoder>
    private var bytes: UnsafeMutableRawBufferPointer?
    private var file: UnsafeMutablePointer<FILE>?
    let name: String
    private(set) var info: ImageInfo
    private(set) var icc: [UInt8]?
    private var transform: _ColorTransform?
    private var cmyk = false
    private var invertedCMYK = false
    private var cmykRow: UnsafeMutablePointer<UInt8>?
    private(set) var outputWidth = 0
    private(set) var outputHeight = 0
    private var rowsRead = 0
    private var started = false

    /// Reads the header of JPEG bytes.
    convenience init(bytes: [UInt8], name: String) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        try self.init(name: name, bytes: copy, file: nil)
    }

    /// Reads the header of a JPEG file.
    convenience init(path: String) throws {
        guard let f = fopen(path, "rb") else {
            throw SfumatoError.io("\(path): cannot open (\(String(cString: strerror(errno))))")
        }
        try self.init(name: path, bytes: nil, file: f)
    }

    private init(name: String, bytes: UnsafeMutableRawBufferPointer?, file: UnsafeMutablePointer<FILE>?) throws {
        guard let d = sf_jpeg_decoder_create() else {
            bytes?.deallocate()
            if let file { fclose(file) }
            throw SfumatoError.io("\(name): cannot create a JPEG decoder")
        }
        self.d = d
        self.bytes = bytes
        self.file = file
        self.name = name
        info = ImageInfo(format: .jpeg, width: 0, height: 0)
        let status: Int32
        if let bytes {
            status = sf_jpeg_read_header(d, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count))
        } else {
            status = sf_jpeg_read_header_file(d, file)
        }
        try check(status)
        let c = d.pointee.cinfo
        info.width = Int(c.image_width)
        info.height = Int(c.image_height)
        info.colorChannels = Int(c.num_components)
        cmyk = c.jpeg_color_space == JCS_CMYK || c.jpeg_color_space == JCS_YCCK
        invertedCMYK = cmyk && c.saw_Adobe_marker != 0
        // Markers: EXIF orientation (APP1) and the ICC profile (APP2, reassembled by libjpeg).
        var marker = c.marker_list
        while let m = marker {
            if m.pointee.marker == UInt8(JPEG_APP0 + 1), let data = m.pointee.data {
                let block = Array(UnsafeBufferPointer(start: data, count: Int(m.pointee.data_length)))
                if block.starts(with: ImageMetadata.exifPrefix) && info.metadata.exif == nil {
                    info.orientation = _EXIF.orientation(block)
                    info.metadata.exif = block
                } else if block.starts(with: ImageMetadata.xmpPrefix) && info.metadata.xmp == nil {
                    info.metadata.xmp = block
                }
            }
            marker = m.pointee.next
        }
        var iccData: UnsafeMutablePointer<UInt8>?
        let iccLength = sf_jpeg_icc_profile(d, &iccData)
        if iccLength > 0, let iccData {
            icc = Array(UnsafeBufferPointer(start: iccData, count: iccLength))
            free(iccData)
            info.iccProfile = _ColorTransform.describe(icc!)
            info.metadata.hadColorProfile = true
        }
    }

    deinit {
        sf_jpeg_decoder_destroy(d)
        bytes?.deallocate()
        if let file { fclose(file) }
        cmykRow?.deallocate()
    }

    /// Turns libjpeg's status and warnings into typed errors.
    private func check(_ status: Int32) throws {
        let message = String(cString: sf_jpeg_message(&d.pointee.err))
        if d.pointee.err.warnings > 0 && d.pointee.err.first_warning_code == SF_JWRN_JPEG_EOF {
            throw SfumatoError.truncated("\(name): truncated JPEG data")
        }
        if status != 0 {
            throw SfumatoError.corrupt("\(name): corrupt JPEG data (\(message))")
        }
        if d.pointee.err.warnings > 0 && rowsRead > 0 {
            throw SfumatoError.corrupt("\(name): corrupt JPEG data (\(message))")
        }
    }

    /// Rows come as Gray8 (set by `start`).
    private(set) var gray = false
    /// Rows come as packed RGB8 (set by `start`).
    private(set) var packed = false

    /// Whether `options` decode this file to packed RGB8: asked for, a colour file (not CMYK,
    /// not kept grey) and no profile to convert (the conversion works on RGBA rows).
    func packs(_ options: DecodeOptions) -> Bool {
        options.packRGB && !cmyk && !keepsGray(options)
            && !(options.convertToSRGB && icc.flatMap { _ColorTransform(icc: $0) } != nil)
    }

    /// Whether `options` decode this file to Gray8: asked for, a one-channel file, and no
    /// profile to convert (grey profiles are not converted on the RGBA route either).
    func keepsGray(_ options: DecodeOptions) -> Bool {
        options.keepGray && d.pointee.cinfo.jpeg_color_space == JCS_GRAYSCALE
            && !(options.convertToSRGB && icc.flatMap { _ColorTransform(icc: $0) } != nil)
    }

    /// Starts decoding at 1/`scale` size (1, 2, 4 or 8), checking the pixel limit first.
    func start(scale: Int, options: DecodeOptions, convertToSRGB: Bool) throws {
        guard [1, 2, 4, 8].contains(scale) else {
            throw SfumatoError.invalidArgument("JPEG scale must be 1, 2, 4 or 8, not \(scale)")
        }
        let w = (info.width + scale - 1) / scale, h = (info.height + scale - 1) / scale
        try _checkLimit(w, h, options, name)
        gray = keepsGray(options)
        packed = packs(options)
        try check(sf_jpeg_start(d, Int32(scale), cmyk ? JCS_CMYK : gray ? JCS_GRAYSCALE : packed ? JCS_EXT_RGB : JCS_EXT_RGBA))
        outputWidth = Int(d.pointee.cinfo.output_width)
        outputHeight = Int(d.pointee.cinfo.output_height)
        if convertToSRGB, !gray, !packed, let icc {
            transform = _ColorTransform(icc: icc, cmyk: cmyk, invertedCMYK: invertedCMYK)
        }
        if cmyk { cmykRow = .allocate(capacity: 4 * outputWidth * 16) }
        started = true
    }

    func read(into buffer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws -> Int {
        precondition(started)
        let n = min(count, outputHeight - rowsRead)
        if n <= 0 { return 0 }
        var done = 0
        while done < n {
            let batch = cmyk ? min(16, n - done) : n - done
            let target = cmyk ? UnsafeMutableRawPointer(cmykRow!) : buffer + done * rowBytes
            let stride = cmyk ? 4 * outputWidth : rowBytes
            let got = Int(sf_jpeg_read_rows(d, target.assumingMemoryBound(to: UInt8.self), stride, Int32(batch)))
            if got < 0 { try check(-1) }
            rowsRead += max(got, 0)
            try check(0)
            if got <= 0 { throw SfumatoError.truncated("\(name): truncated JPEG data") }
            for r in 0..<got {
                let out = buffer + (done + r) * rowBytes
                if cmyk {
                    let src = cmykRow! + r * stride
                    if let transform {
                        transform.apply(src, out, count: outputWidth)
                        let o = out.assumingMemoryBound(to: UInt8.self)
                        for x in 0..<outputWidth { o[4 * x + 3] = 255 }
                    } else {
                        _cmykToRGBA(src, out.assumingMemoryBound(to: UInt8.self), outputWidth, inverted: invertedCMYK)
                    }
                } else if let transform {
                    transform.apply(out, out, count: outputWidth)
                }
            }
            done += got
        }
        if rowsRead == outputHeight { _ = sf_jpeg_finish_decompress(d) }
        return done
    }
}

/// Naive CMYK to RGB for files without a profile (Adobe files store CMYK inverted).
func _cmykToRGBA(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ count: Int, inverted: Bool) {
    for x in 0..<count {
        var c = Int(src[4 * x]), m = Int(src[4 * x + 1]), y = Int(src[4 * x + 2]), k = Int(src[4 * x + 3])
        if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
        dst[4 * x] = UInt8((c * k + 127) / 255)
        dst[4 * x + 1] = UInt8((m * k + 127) / 255)
        dst[4 * x + 2] = UInt8((y * k + 127) / 255)
        dst[4 * x + 3] = 255
    }
}

/// JPEG decoding entry points.
public enum JPEG {
    /// Reads only the header.
    public static func info(_ bytes: [UInt8], name: String = "JPEG") throws -> ImageInfo {
        try _JPEGDecoder(bytes: bytes, name: name).info
    }

    /// Decodes JPEG bytes to an upright RGBA8 sRGB bitmap (Gray8 or RGB8 when the options ask).
    public static func decode(_ bytes: [UInt8], name: String = "JPEG", options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        let decoder = try _JPEGDecoder(bytes: bytes, name: name)
        return try decodeAll(decoder, options)
    }

    /// Decodes a JPEG file.
    public static func decode(path: String, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        try decodeAll(try _JPEGDecoder(path: path), options)
    }

    static func decodeAll(_ decoder: _JPEGDecoder, _ options: DecodeOptions) throws -> DecodedImage {
        try decoder.start(scale: options.jpegScale, options: options, convertToSRGB: options.convertToSRGB)
        // Every row is written before the bitmap is seen: it need not start zeroed (a kept block
        // of the same size is reused, with no page to fault in).
        let bitmap = try Bitmap.forOverwrite(
            width: decoder.outputWidth, height: decoder.outputHeight, format: decoder.gray ? .gray8 : decoder.packed ? .rgb8 : .rgba8, alpha: .straight)
        var y = 0
        while y < bitmap.height {
            let n = try decoder.read(into: bitmap.row(y), rowBytes: bitmap.rowBytes, count: bitmap.height - y)
            y += n
        }
        // The profile, if any, was converted while decoding.
        return try .finishing(bitmap, info: decoder.info, options: options)
    }
}

/// A JPEG file decoded row by row as a render needs it (see ``Image/init(rows:)``).
public final class JPEGRowSource: RowSource, @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public var isOpaque: Bool { true }
    public let path: String
    /// The header facts.
    public let info: ImageInfo
    private let options: DecodeOptions

    /// Opens a JPEG file, reads its header and checks the pixel limit. Orientation is not applied
    /// (callers use whole decoding for rotated files).
    public init(path: String, options: DecodeOptions = DecodeOptions()) throws {
        let probe = try _JPEGDecoder(path: path)
        let s = options.jpegScale
        width = (probe.info.width + s - 1) / s
        height = (probe.info.height + s - 1) / s
        try _checkLimit(width, height, options, path)
        self.path = path
        info = probe.info
        format = probe.keepsGray(options) ? .gray8 : probe.packs(options) ? .rgb8 : .rgba8
        self.options = options
    }

    public var summary: String { "JPEG \((path as NSString).lastPathComponent)" }

    public func makeReader() throws -> any RowReader {
        let d = try _JPEGDecoder(path: path)
        try d.start(scale: options.jpegScale, options: options, convertToSRGB: options.convertToSRGB)
        return d
    }
}
