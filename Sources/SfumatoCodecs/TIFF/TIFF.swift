import CTIFF
import Foundation
import SfumatoCore

/// TIFF reading and writing through libtiff (the first image of a file).
///
/// Reading: 8- and 16-bit RGB and grey files, with or without alpha, in strips, are read as they
/// are (RGBA16 for 16-bit files); everything else libtiff can show (tiles, palettes, CMYK,
/// YCbCr, 1 to 4 bits, JPEG-in-TIFF) through its RGBA interface, at 8 bits. The ICC profile is
/// converted to sRGB, the orientation tag applied, the XMP packet kept, and the EXIF directory
/// made into an EXIF block (libtiff reads it, libexif writes the block; rationals come back as
/// the closest fraction with a denominator up to a million).
///
/// Writing: RGB or grey, 8 or 16 bits, alpha when not every pixel is opaque, Deflate with the
/// horizontal predictor, an sRGB profile when the input had one, the XMP packet, and the EXIF
/// block's tags (its camera tags in the image's directory, the rest, a vendor's private tags
/// included, in an EXIF directory).
public enum TIFF {
    /// Reads the first image's header and tags.
    public static func info(_ bytes: [UInt8], name: String = "TIFF") throws -> ImageInfo {
        try _TIFFFile(bytes, name: name).info
    }

    /// Decodes the first image to an upright bitmap: RGBA16 for 16-bit RGB or grey files read as
    /// they are, RGBA8 otherwise (Gray8 for 8-bit grey files when `options.keepGray` and no
    /// profile needs converting); straight alpha; sRGB.
    public static func decode(_ bytes: [UInt8], name: String = "TIFF", options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        let file = try _TIFFFile(bytes, name: name)
        try _checkLimit(file.info.width, file.info.height, options, name)
        let bitmap = try file.decode(keepGray: options.keepGray && !(options.convertToSRGB && file.iccProfile != nil))
        return try .finishing(bitmap, info: file.info, icc: file.iccProfile, options: options)
    }

    /// Encodes an RGBA8 or RGBA16 bitmap (straight alpha; alpha left out when every pixel is
    /// opaque), or a Gray8 one as a grey TIFF.
    public static func encode(_ bitmap: Bitmap, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try options.validate()
        if bitmap.format == .rgb8 { return try encode(try bitmap.expandedToRGBA8(), options: options) }
        guard bitmap.format != .rgbaFloat32 else {
            throw SfumatoError.unsupported("TIFF encoding takes RGBA8, RGB8, RGBA16 or Gray8 bitmaps, not \(bitmap.format)")
        }
        let stream = _TIFFStream(writing: ())
        guard let tif = sf_tiff_open(stream.pointer, "w", _TIFFFile.allocationLimit) else {
            throw SfumatoError.io("cannot create a TIFF encoder: \(stream.message)")
        }
        var closed = false
        defer { if !closed { TIFFClose(tif) } }
        let metadata = options.metadata ?? ImageMetadata()
        // EXIF first: its directory written on its own, then the image's, which points to it.
        let exif = _TIFFExif(metadata.exif(forUprightWidth: bitmap.width, height: bitmap.height))
        let exifOffset = try exif?.write(into: tif, stream)
        let gray = bitmap.format == .gray8
        let alpha = !gray && !bitmap.isOpaque
        let sixteen = bitmap.format == .rgba16
        let samples = gray ? 1 : alpha ? 4 : 3
        let bytesPerSample = sixteen ? 2 : 1
        var ok = sf_tiff_set_u32(tif, _TIFFTag.imageWidth, UInt32(bitmap.width)) != 0
        ok = ok && sf_tiff_set_u32(tif, _TIFFTag.imageLength, UInt32(bitmap.height)) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.bitsPerSample, UInt16(8 * bytesPerSample)) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.samplesPerPixel, UInt16(samples)) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.photometric, gray ? _TIFFTag.minIsBlack : _TIFFTag.rgb) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.planarConfig, 1) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.sampleFormat, 1) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.compression, _TIFFTag.adobeDeflate) != 0
        ok = ok && sf_tiff_set_u16(tif, _TIFFTag.predictor, 2) != 0
        ok = ok && sf_tiff_set_u32(tif, _TIFFTag.rowsPerStrip, TIFFDefaultStripSize(tif, 0)) != 0
        if alpha {
            var unassociated: UInt16 = 2
            ok = ok && sf_tiff_set_extra_samples(tif, 1, &unassociated) != 0
        }
        exif?.copyCameraTags(into: tif)
        if let exifOffset { ok = ok && sf_tiff_set_exif_offset(tif, exifOffset) != 0 }
        if metadata.hadColorProfile {
            let icc = ImageMetadata.sRGBProfile
            ok = ok && sf_tiff_set_bytes(tif, _TIFFTag.iccProfile, UInt32(icc.count), icc) != 0
        }
        if let xmp = metadata.xmp, xmp.count > ImageMetadata.xmpPrefix.count {
            let packet = Array(xmp.dropFirst(ImageMetadata.xmpPrefix.count))
            ok = ok && sf_tiff_set_bytes(tif, _TIFFTag.xmlPacket, UInt32(packet.count), packet) != 0
        }
        guard ok else { throw SfumatoError.io("cannot set up the TIFF file: \(stream.message)") }

        let rowBytes = bitmap.width * samples * bytesPerSample
        let row = UnsafeMutableRawPointer.allocate(byteCount: rowBytes, alignment: 16)
        defer { row.deallocate() }
        for y in 0..<bitmap.height {
            let src = bitmap.row(y)
            if samples == 4 || gray {
                memcpy(row, src, rowBytes)
            } else if sixteen {
                let s = src.assumingMemoryBound(to: UInt16.self), d = row.assumingMemoryBound(to: UInt16.self)
                for x in 0..<bitmap.width { for c in 0..<3 { d[3 * x + c] = s[4 * x + c] } }
            } else {
                let s = src.assumingMemoryBound(to: UInt8.self), d = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<bitmap.width { for c in 0..<3 { d[3 * x + c] = s[4 * x + c] } }
            }
            guard TIFFWriteScanline(tif, row, UInt32(y), 0) == 1 else {
                throw SfumatoError.io("TIFF encoding failed at row \(y): \(stream.message)")
            }
        }
        guard TIFFFlush(tif) == 1 else { throw SfumatoError.io("TIFF encoding failed: \(stream.message)") }
        closed = true
        TIFFClose(tif)
        return stream.bytes
    }
}

/// An EXIF block (APP1 form) whose tags go into a TIFF being written: libexif reads the block
/// (whatever types its writer chose for each tag) and each value is set as libtiff's field for
/// the tag takes it; tags libtiff does not know (a vendor's private ones) are registered with
/// their own type first, so they are kept too.
struct _TIFFExif {
    let block: [UInt8]

    /// nil when there is no block.
    init?(_ block: [UInt8]?) {
        guard let block, block.count > ImageMetadata.exifPrefix.count else { return nil }
        self.block = block
    }

    /// Writes the EXIF directory into `out` (before its image's directory) and returns its offset;
    /// nil when the block holds no tag for it. `out` is then ready for the image's
    /// directory.
    func write(into out: OpaquePointer, _ outStream: _TIFFStream) throws -> UInt64? {
        guard TIFFCreateEXIFDirectory(out) == 0 else { throw SfumatoError.io("cannot start the TIFF's EXIF directory: \(outStream.message)") }
        let set = block.withUnsafeBufferPointer { sf_tiff_set_from_exif(out, $0.baseAddress, UInt32($0.count), 1) }
        var offset: UInt64 = 0
        if set > 0 {
            guard TIFFWriteCustomDirectory(out, &offset) == 1 else {
                throw SfumatoError.io("cannot write the TIFF's EXIF directory: \(outStream.message)")
            }
        }
        // The EXIF directory's values are freed before the image's directory is set up (setting
        // up a directory does not free the one before: LeakSanitizer found its tags).
        TIFFFreeDirectory(out)
        guard TIFFCreateDirectory(out) == 0 else { throw SfumatoError.io("cannot start the TIFF's directory: \(outStream.message)") }
        return set > 0 ? offset : nil
    }

    /// Sets IFD0's camera text tags (make, model, date...) in `out`'s current directory.
    func copyCameraTags(into out: OpaquePointer) {
        _ = block.withUnsafeBufferPointer { sf_tiff_set_from_exif(out, $0.baseAddress, UInt32($0.count), 0) }
    }
}

/// The tags and values Sfumato reads and writes (tiff.h's, spelled out: Swift does not import
/// its multi-line macros).
enum _TIFFTag {
    static let imageWidth: UInt32 = 256, imageLength: UInt32 = 257, bitsPerSample: UInt32 = 258
    static let compression: UInt32 = 259, photometric: UInt32 = 262, orientation: UInt32 = 274
    static let samplesPerPixel: UInt32 = 277, rowsPerStrip: UInt32 = 278, planarConfig: UInt32 = 284
    static let predictor: UInt32 = 317, sampleFormat: UInt32 = 339, xmlPacket: UInt32 = 700
    static let iccProfile: UInt32 = 34675
    static let minIsWhite: UInt16 = 0, minIsBlack: UInt16 = 1, rgb: UInt16 = 2, separated: UInt16 = 5
    static let adobeDeflate: UInt16 = 8
}

/// The memory a libtiff client reads from or writes into, at a fixed address.
final class _TIFFStream {
    let pointer: UnsafeMutablePointer<sf_tiff_stream>
    private let owned: UnsafeMutableRawBufferPointer?

    /// Reads a copy of `source`.
    init(reading source: [UInt8]) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        source.withUnsafeBytes { copy.copyMemory(from: $0) }
        owned = copy
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: sf_tiff_stream())
        pointer.pointee.data = copy.baseAddress!.assumingMemoryBound(to: UInt8.self)
        pointer.pointee.size = UInt64(source.count)
    }

    /// Collects what is written.
    init(writing: Void) {
        owned = nil
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: sf_tiff_stream())
        pointer.pointee.writable = 1
    }

    deinit {
        if let owned { owned.deallocate() } else { free(pointer.pointee.data) }
        pointer.deallocate()
    }

    /// The first error libtiff reported, or a placeholder.
    var message: String {
        let text = withUnsafeBytes(of: pointer.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "no reason given" : text
    }

    /// What was written.
    var bytes: [UInt8] {
        guard let data = pointer.pointee.data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }
}
