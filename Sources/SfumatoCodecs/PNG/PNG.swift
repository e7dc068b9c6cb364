import CSPNG
import Foundation
import SfumatoCore

/// PNG reading and writing through libspng.
public enum PNG {
    /// Reads only the header (and ICC and EXIF chunks that precede the pixels).
    public static func info(_ bytes: [UInt8], name: String = "PNG") throws -> ImageInfo {
        try _PNGDecoder(bytes: bytes, name: name, options: DecodeOptions(pixelLimit: Bitmap.maximumPixelCount)).info
    }

    /// Decodes PNG bytes to an upright bitmap: RGBA8, or RGBA16 for 16-bit files; straight alpha,
    /// sRGB (Gray8 for grey files when `options.keepGray`).
    public static func decode(_ bytes: [UInt8], name: String = "PNG", options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        let d = try _PNGDecoder(bytes: bytes, name: name, options: options)
        // The profile, if any, is converted while decoding.
        return try .finishing(try d.decodeAll(), info: d.info, options: options)
    }

    /// Encodes an RGBA8 or RGBA16 bitmap (straight alpha; the alpha channel is left out when
    /// every pixel is opaque), an RGB8 one as RGB, or a Gray8 bitmap as a greyscale PNG.
    public static func encode(_ bitmap: Bitmap, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try options.validate()
        if bitmap.format == .rgb8 { return try encode(try bitmap.expandedToRGBA8(), options: options) }
        guard bitmap.format != .rgbaFloat32 else {
            throw SfumatoError.unsupported("PNG encoding takes RGBA8, RGB8, RGBA16 or Gray8 bitmaps, not \(bitmap.format)")
        }
        let w = try _PNGWriter(
            path: nil, width: bitmap.width, height: bitmap.height, sixteenBit: bitmap.format == .rgba16,
            alpha: !bitmap.isOpaque, gray: bitmap.format == .gray8, options: options)
        try w.write(rows: bitmap.baseAddress, rowBytes: bitmap.rowBytes, count: bitmap.height)
        return try w.finishToBuffer()
    }
}

extension PNG {
    /// The iTXt keyword that holds an XMP packet.
    static let xmpKeyword = "XML:com.adobe.xmp"
}

func _spngMessage(_ code: Int32) -> String { String(cString: spng_strerror(code)) }

/// A libspng decoding context over bytes in memory.
final class _PNGDecoder: RowReader {
    private let ctx: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    let name: String
    private(set) var info: ImageInfo
    private let sixteen: Bool
    /// Decoded as Gray8 (`DecodeOptions.keepGray` and a grey file of at most 8 bits, opaque, no
    /// profile to convert).
    private(set) var gray = false
    private var transform: _ColorTransform?
    private var started = false
    private var row = 0
    /// Rows decoded as stored (RGB8) into `scratch`, then widened to RGBA8.
    private var nativeRGB = false
    /// Rows decoded as stored (RGB8) straight into an RGB8 bitmap (`DecodeOptions.packRGB`).
    private var packed = false
    private var scratch: [UInt8] = []

    init(bytes source: [UInt8], name: String, options: DecodeOptions) throws {
        // The zlib stream's Adler-32 of the inflated rows is not checked (5% of decoding): each
        // chunk's CRC-32 still guards the compressed bytes, and a damaged stream fails to
        // inflate. libvips and OpenCV decode with libspng the same way.
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else {
            throw SfumatoError.io("\(name): cannot create a PNG decoder")
        }
        self.ctx = ctx
        self.name = name
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        source.withUnsafeBytes { copy.copyMemory(from: $0) }
        bytes = copy
        info = ImageInfo(format: .png, width: 0, height: 0)
        // Bound chunk memory so a hostile file cannot ask for gigabytes of metadata.
        spng_set_chunk_limits(ctx, 64 << 20, 64 << 20)
        spng_set_crc_action(ctx, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_ERROR.rawValue))
        var status = spng_set_png_buffer(ctx, bytes.baseAddress, source.count)
        var ihdr = spng_ihdr()
        if status == 0 { status = spng_get_ihdr(ctx, &ihdr) }
        sixteen = ihdr.bit_depth == 16
        if status != 0 { throw _PNGDecoder.error(status, name) }
        info.width = Int(ihdr.width)
        info.height = Int(ihdr.height)
        info.bitsPerChannel = ihdr.bit_depth == 16 ? 16 : 8
        let ct = Int(ihdr.color_type)
        info.colorChannels = (ct == 0 || ct == 4) ? 1 : 3
        var trns = spng_trns()
        info.hasAlpha = ct == 4 || ct == 6 || spng_get_trns(ctx, &trns) == 0
        var exif = spng_exif()
        if spng_get_exif(ctx, &exif) == 0, let data = exif.data, exif.length > 0 {
            let block = Array(UnsafeRawBufferPointer(start: data, count: exif.length))
            info.orientation = _EXIF.orientation(block)
            info.metadata.exif = block.starts(with: ImageMetadata.exifPrefix) ? block : ImageMetadata.exifPrefix + block
        }
        info.metadata.xmp = Self.xmp(ctx)
        var iccp = spng_iccp()
        if spng_get_iccp(ctx, &iccp) == 0, let data = iccp.profile, iccp.profile_len > 0 {
            let icc = Array(UnsafeRawBufferPointer(start: data, count: iccp.profile_len))
            info.iccProfile = _ColorTransform.describe(icc) ?? "unreadable profile"
            info.metadata.hadColorProfile = true
            if options.convertToSRGB {
                transform = _ColorTransform(icc: icc, sixteenBit: info.bitsPerChannel == 16)
            }
        }
        gray = options.keepGray && ct == 0 && ihdr.bit_depth <= 8 && !info.hasAlpha && transform == nil
        // 8-bit RGB rows come out of libspng as stored and are widened here: its own conversion
        // to RGBA8 goes pixel by pixel and took half of a photo's decoding.
        packed = options.packRGB && ct == 2 && ihdr.bit_depth == 8 && !info.hasAlpha && transform == nil
        nativeRGB = !packed && ct == 2 && ihdr.bit_depth == 8 && !info.hasAlpha && ihdr.interlace_method == 0
        try _checkLimit(info.width, info.height, options, name)
    }

    deinit {
        spng_ctx_free(ctx)
        bytes.deallocate()
    }

    /// The XMP packet of the text chunks before the pixels, in JPEG's APP1 form, or nil.
    private static func xmp(_ ctx: OpaquePointer) -> [UInt8]? {
        var count: UInt32 = 0
        guard spng_get_text(ctx, nil, &count) == 0, count > 0, count <= 4096 else { return nil }
        var texts = [spng_text](repeating: spng_text(), count: Int(count))
        guard spng_get_text(ctx, &texts, &count) == 0 else { return nil }
        for text in texts.prefix(Int(count)) {
            let keyword = withUnsafeBytes(of: text.keyword) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard keyword == PNG.xmpKeyword, text.compression_flag == 0, let data = text.text, text.length > 0 else { continue }
            return ImageMetadata.xmpPrefix + Array(UnsafeRawBufferPointer(start: data, count: text.length))
        }
        return nil
    }

    static func error(_ status: Int32, _ name: String) -> SfumatoError {
        let m = _spngMessage(status)
        if status == SPNG_EOF.rawValue || status == SPNG_IO_EOF.rawValue {
            return .truncated("\(name): truncated PNG data")
        }
        if status == SPNG_ESIGNATURE.rawValue { return .corrupt("\(name): not a PNG file (\(m))") }
        if status == SPNG_EWIDTH.rawValue || status == SPNG_EHEIGHT.rawValue || status == SPNG_EUSER_WIDTH.rawValue
            || status == SPNG_EUSER_HEIGHT.rawValue || status == SPNG_ECHUNK_LIMITS.rawValue
        {
            return .tooLarge("\(name): \(m)")
        }
        return .corrupt("\(name): corrupt PNG data (\(m))")
    }

    var format: PixelFormat { gray ? .gray8 : packed ? .rgb8 : sixteen ? .rgba16 : .rgba8 }

    /// libspng's output format, and its flags (grey output takes no transparency flag).
    private var spngFormat: (format: Int32, flags: Int32) {
        if gray { return (Int32(SPNG_FMT_G8.rawValue), 0) }
        if nativeRGB || packed { return (Int32(SPNG_FMT_PNG.rawValue), 0) }
        return (Int32(sixteen ? SPNG_FMT_RGBA16.rawValue : SPNG_FMT_RGBA8.rawValue), Int32(SPNG_DECODE_TRNS.rawValue))
    }

    func start() throws {
        let (fmt, flags) = spngFormat
        let status = spng_decode_image(ctx, nil, 0, fmt, flags | Int32(SPNG_DECODE_PROGRESSIVE.rawValue))
        if status != 0 { throw _PNGDecoder.error(status, name) }
        started = true
    }

    func decodeAll() throws -> Bitmap {
        // Every row is written before the bitmap is seen (or the decode throws): no zeroing.
        let bitmap = try Bitmap.forOverwrite(width: info.width, height: info.height, format: format, alpha: .straight)
        if interlaced {
            // Interlaced rows arrive pass by pass; decode the whole image in one call instead.
            let (fmt, flags) = spngFormat
            let status = spng_decode_image(ctx, bitmap.baseAddress, bitmap.byteCount, fmt, flags)
            if status != 0 { throw _PNGDecoder.error(status, name) }
            if let transform { transform.apply(to: bitmap) }
            return bitmap
        }
        try start()
        var y = 0
        while y < info.height { y += try read(into: bitmap.row(y), rowBytes: bitmap.rowBytes, count: info.height - y) }
        return bitmap
    }

    func read(into buffer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws -> Int {
        if !started { try start() }
        let n = min(count, info.height - row)
        let length = info.width * format.bytesPerPixel
        if nativeRGB && scratch.count != info.width * 3 + 4 { scratch = [UInt8](repeating: 0, count: info.width * 3 + 4) }
        for r in 0..<n {
            let p = buffer + r * rowBytes
            var status =
                nativeRGB
                ? scratch.withUnsafeMutableBytes { spng_decode_row(ctx, $0.baseAddress, info.width * 3) }
                : spng_decode_row(ctx, p, length)
            // Interlaced images deliver rows out of order through decode_row: use the row info.
            if status == SPNG_EOI.rawValue { status = 0 }
            if status != 0 { throw _PNGDecoder.error(status, name) }
            if nativeRGB { scratch.withUnsafeBytes { _expandPackedRGB($0.baseAddress!, p, count: info.width) } }
            transform?.apply(p, p, count: info.width)
        }
        row += n
        return n
    }

    var interlaced: Bool {
        var ihdr = spng_ihdr()
        return spng_get_ihdr(ctx, &ihdr) == 0 && ihdr.interlace_method != 0
    }
}

/// A PNG file decoded row by row (non-interlaced files only).
public final class PNGRowSource: RowSource, @unchecked Sendable {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let isOpaque: Bool
    private let bytes: [UInt8]
    private let name: String
    private let options: DecodeOptions
    /// The header facts.
    public let info: ImageInfo

    init(bytes: [UInt8], name: String, options: DecodeOptions, probe: _PNGDecoder) {
        self.bytes = bytes
        self.name = name
        self.options = options
        width = probe.info.width
        height = probe.info.height
        format = probe.format
        isOpaque = !probe.info.hasAlpha
        info = probe.info
    }

    public var summary: String { "PNG \((name as NSString).lastPathComponent)" }

    public func makeReader() throws -> any RowReader {
        try _PNGDecoder(bytes: bytes, name: name, options: options)
    }
}

/// Encodes rows progressively with libspng, to a file (atomically) or to memory.
final class _PNGWriter: ImageFileWriter {
    private let ctx: OpaquePointer
    private let file: _AtomicFile?
    private let width: Int
    private let sixteen: Bool
    private let alpha: Bool
    private let inputSixteen: Bool
    private let gray: Bool
    private var row: UnsafeMutablePointer<UInt8>
    private var finished = false
    private let name: String
    /// Chunk data libspng points to until the image is encoded.
    private var chunkMemory: [UnsafeMutableRawBufferPointer] = []

    private func keep<C: Collection>(_ bytes: C) -> UnsafeMutablePointer<CChar> where C.Element == UInt8 {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1) + 1, alignment: 1)
        memory.copyBytes(from: bytes)
        memory[bytes.count] = 0
        chunkMemory.append(memory)
        return memory.baseAddress!.assumingMemoryBound(to: CChar.self)
    }

    /// `alpha`: write RGBA (else RGB). Rows arrive as RGBA8, or RGBA16 when the bitmap is 16-bit;
    /// with `gray`, as one byte a pixel, written as greyscale (`alpha` ignored; 16-bit when
    /// `sixteenBit` or the options ask for it, each level g as g x 257).
    init(
        path: String?, width: Int, height: Int, sixteenBit: Bool, alpha: Bool, gray: Bool = false,
        options: EncodeOptions, inputSixteenBit: Bool? = nil
    ) throws {
        name = path ?? "PNG"
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw SfumatoError.io("cannot create a PNG encoder") }
        self.ctx = ctx
        self.width = width
        self.gray = gray
        sixteen = sixteenBit || options.pngBitDepth == 16
        inputSixteen = !gray && (inputSixteenBit ?? sixteenBit)
        self.alpha = alpha && !gray
        row = .allocate(capacity: width * 8)
        if let path {
            do { file = try _AtomicFile(path: path) } catch {
                spng_ctx_free(ctx)
                row.deallocate()
                throw error
            }
            spng_set_png_file(ctx, file!.handle)
        } else {
            file = nil
            spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1)
        }
        spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, Int32(options.pngCompressionLevel))
        // The Paeth filter on every row rather than libspng's pick of five by least absolute sum:
        // on photos the pick is Paeth anyway (6000x4000: the same 8.08 MB, 3.7 -> 3.0 s at level 6)
        // and on flat graphics Paeth did no worse (234 against 235 KB, 159 -> 81 ms).
        spng_set_option(ctx, SPNG_FILTER_CHOICE, Int32(SPNG_FILTER_CHOICE_PAETH.rawValue))
        var ihdr = spng_ihdr()
        ihdr.width = UInt32(width)
        ihdr.height = UInt32(height)
        ihdr.bit_depth = sixteen ? 16 : 8
        ihdr.color_type = UInt8(
            gray
                ? SPNG_COLOR_TYPE_GRAYSCALE.rawValue
                : alpha ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue : SPNG_COLOR_TYPE_TRUECOLOR.rawValue)
        var status = spng_set_ihdr(ctx, &ihdr)
        // EXIF as an eXIf chunk (the TIFF structure, without JPEG's Exif header).
        if status == 0, let block = options.metadata?.exif(forUprightWidth: width, height: height) {
            let tiff = block.dropFirst(ImageMetadata.exifPrefix.count)
            var chunk = spng_exif()
            chunk.length = tiff.count
            chunk.data = keep(tiff)
            status = spng_set_exif(ctx, &chunk)
        }
        // An sRGB profile where the input had one (the pixels were converted to sRGB).
        if status == 0, options.metadata?.hadColorProfile == true, !gray {
            let icc = ImageMetadata.sRGBProfile
            var chunk = spng_iccp()
            withUnsafeMutableBytes(of: &chunk.profile_name) { name in
                for (i, c) in "sRGB".utf8.enumerated() { name[i] = c }
            }
            chunk.profile_len = icc.count
            chunk.profile = keep(icc)
            status = spng_set_iccp(ctx, &chunk)
        }
        // XMP as the iTXt chunk Adobe's specification names.
        if status == 0, let xmp = options.metadata?.xmp, xmp.count > ImageMetadata.xmpPrefix.count {
            let packet = xmp.dropFirst(ImageMetadata.xmpPrefix.count)
            var text = spng_text()
            withUnsafeMutableBytes(of: &text.keyword) { keyword in
                for (i, c) in PNG.xmpKeyword.utf8.enumerated() { keyword[i] = c }
            }
            text.type = Int32(SPNG_ITXT.rawValue)
            text.length = packet.count
            text.text = keep(packet)
            text.language_tag = keep([])
            text.translated_keyword = keep([])
            status = spng_set_text(ctx, &text, 1)
        }
        if status == 0 {
            status = spng_encode_image(ctx, nil, 0, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_PROGRESSIVE.rawValue | SPNG_ENCODE_FINALIZE.rawValue))
        }
        if status != 0 {
            throw SfumatoError.io("\(name): PNG encoding failed (\(_spngMessage(status)))")
        }
    }

    deinit {
        spng_ctx_free(ctx)
        row.deallocate()
        for memory in chunkMemory { memory.deallocate() }
        if !finished { file?.discard() }
    }

    func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
        let channels = alpha ? 4 : 3
        for r in 0..<count {
            let src = rows + r * rowBytes
            let length: Int
            if gray {
                let s = src.assumingMemoryBound(to: UInt8.self)
                if sixteen {
                    // g * 257: both bytes of the sample are g, whatever the byte order.
                    let d = UnsafeMutableRawPointer(row)
                    for x in 0..<width {
                        d.storeBytes(of: s[x], toByteOffset: 2 * x, as: UInt8.self); d.storeBytes(of: s[x], toByteOffset: 2 * x + 1, as: UInt8.self)
                    }
                    length = 2 * width
                } else {
                    row.update(from: s, count: width)
                    length = width
                }
            } else if sixteen {
                let d = UnsafeMutableRawPointer(row).assumingMemoryBound(to: UInt16.self)
                if inputSixteen {
                    let s = src.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width { for c in 0..<channels { d[channels * x + c] = s[4 * x + c] } }
                } else {
                    let s = src.assumingMemoryBound(to: UInt8.self)
                    for x in 0..<width { for c in 0..<channels { d[channels * x + c] = UInt16(s[4 * x + c]) * 257 } }
                }
                length = width * channels * 2
            } else {
                if inputSixteen {
                    let s = src.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<width { for c in 0..<channels { row[channels * x + c] = UInt8((UInt32(s[4 * x + c]) * 255 + 32767) / 65535) } }
                } else {
                    let s = src.assumingMemoryBound(to: UInt8.self)
                    if alpha {
                        row.update(from: s, count: 4 * width)
                    } else {
                        for x in 0..<width { row[3 * x] = s[4 * x]; row[3 * x + 1] = s[4 * x + 1]; row[3 * x + 2] = s[4 * x + 2] }
                    }
                }
                length = width * channels
            }
            let status = spng_encode_row(ctx, row, length)
            if status != 0 && status != SPNG_EOI.rawValue {
                throw SfumatoError.io("\(name): PNG encoding failed (\(_spngMessage(status)))")
            }
        }
    }

    func finish() throws {
        guard let file else { throw SfumatoError.io("PNG writer has no file") }
        try file.commit()
        finished = true
    }

    func finishToBuffer() throws -> [UInt8] {
        var length = 0
        var status: Int32 = 0
        guard let p = spng_get_png_buffer(ctx, &length, &status), status == 0 else {
            throw SfumatoError.io("PNG encoding failed (\(_spngMessage(status)))")
        }
        defer { free(p) }
        finished = true
        return Array(UnsafeRawBufferPointer(start: p, count: length))
    }
}
