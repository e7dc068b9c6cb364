import CTIFF
import Foundation
import SfumatoCore

/// A TIFF file in memory, opened on its first image.
final class _TIFFFile {
    /// The most libtiff may allocate at once (a strip or tile buffer, a tag's data).
    static let allocationLimit: tmsize_t = 1 << 30
    /// Tags larger than this are ignored (profiles are kilobytes; XMP rarely more than a few hundred).
    static let metadataLimit = 16 << 20

    private let stream: _TIFFStream
    private let tif: OpaquePointer
    let name: String
    private(set) var info: ImageInfo
    private(set) var iccProfile: [UInt8]?
    private let bits: Int, samples: Int, photometric: UInt16, planar: UInt16, sampleFormat: UInt16
    /// How the alpha sample is stored: nil without alpha, else whether colour is premultiplied.
    private let associatedAlpha: Bool?

    init(_ source: [UInt8], name: String) throws {
        self.name = name
        stream = _TIFFStream(reading: source)
        guard let tif = sf_tiff_open(stream.pointer, "r", Self.allocationLimit) else {
            throw SfumatoError.corrupt("\(name): not a readable TIFF file (\(stream.message))")
        }
        self.tif = tif
        var w: UInt32 = 0, h: UInt32 = 0, v: UInt16 = 0
        _ = sf_tiff_get_u32(tif, _TIFFTag.imageWidth, &w)
        _ = sf_tiff_get_u32(tif, _TIFFTag.imageLength, &h)
        info = ImageInfo(format: .tiff, width: Int(w), height: Int(h))
        _ = sf_tiff_get_u16(tif, _TIFFTag.bitsPerSample, &v)
        bits = Int(v)
        v = 1
        _ = sf_tiff_get_u16(tif, _TIFFTag.samplesPerPixel, &v)
        samples = Int(v)
        v = _TIFFTag.rgb
        if sf_tiff_get_u16(tif, _TIFFTag.photometric, &v) == 0 { v = samples >= 3 ? _TIFFTag.rgb : _TIFFTag.minIsBlack }
        photometric = v
        v = 1
        _ = sf_tiff_get_u16(tif, _TIFFTag.planarConfig, &v)
        planar = v
        v = 1
        _ = sf_tiff_get_u16(tif, _TIFFTag.sampleFormat, &v)
        sampleFormat = v
        v = 1
        _ = sf_tiff_get_u16(tif, _TIFFTag.orientation, &v)
        info.orientation = (1...8).contains(Int(v)) ? Int(v) : 1
        info.bitsPerChannel = bits
        let colour = photometric == _TIFFTag.separated ? 4 : (photometric <= _TIFFTag.minIsBlack ? 1 : 3)
        info.colorChannels = colour
        var extraCount: UInt16 = 0
        var extraTypes: UnsafePointer<UInt16>?
        if sf_tiff_get_extra_samples(tif, &extraCount, &extraTypes) != 0, extraCount > 0, let extraTypes {
            associatedAlpha = extraTypes[0] == 1
        } else {
            associatedAlpha = nil
        }
        info.hasAlpha = associatedAlpha != nil && samples > colour
        var count: UInt32 = 0
        var data: UnsafeRawPointer?
        if sf_tiff_get_bytes(tif, _TIFFTag.iccProfile, &count, &data) != 0, let data, count > 0, count <= Self.metadataLimit {
            let icc = Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
            iccProfile = icc
            info.iccProfile = _ColorTransform.describe(icc) ?? "unreadable profile"
            info.metadata.hadColorProfile = true
        }
        if sf_tiff_get_bytes(tif, _TIFFTag.xmlPacket, &count, &data) != 0, let data, count > 0, count <= Self.metadataLimit {
            info.metadata.xmp = ImageMetadata.xmpPrefix + Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
        }
        // Last: reading the EXIF directory leaves the file at its first directory again, which
        // makes the tag pointers above stale (their bytes are copied already).
        var exifSize: UInt32 = 0
        if let block = sf_tiff_exif_block(tif, &exifSize) {
            if exifSize > UInt32(ImageMetadata.exifPrefix.count), exifSize <= 65533 {
                info.metadata.exif = Array(UnsafeBufferPointer(start: block, count: Int(exifSize)))
            }
            free(block)
        }
        // Every stored property is set: a throw from here on runs deinit, which closes the file.
        guard info.width > 0, info.height > 0 else {
            throw SfumatoError.corrupt("\(name): TIFF image has no pixels (\(w)x\(h))")
        }
        guard info.width <= ImageInfo.maximumSide, info.height <= ImageInfo.maximumSide else {
            throw SfumatoError.tooLarge("\(name): a \(w)x\(h) TIFF is larger than any image Sfumato opens")
        }
    }

    deinit { TIFFClose(tif) }

    /// Whether the samples can be read as they are: 8 or 16 unsigned bits, RGB or grey, with at
    /// most an alpha sample, interleaved, in strips.
    private var direct: Bool {
        guard planar == 1, sampleFormat == 1, bits == 8 || bits == 16, TIFFIsTiled(tif) == 0 else { return false }
        if photometric == _TIFFTag.rgb { return samples == 3 || (samples == 4 && info.hasAlpha) }
        if photometric == _TIFFTag.minIsBlack { return samples == 1 || (samples == 2 && info.hasAlpha) }
        return false
    }

    /// The pixels in stored order (the caller applies the orientation).
    func decode(keepGray: Bool) throws -> Bitmap {
        direct ? try decodeDirect(keepGray: keepGray) : try decodeRGBA()
    }

    private func decodeDirect(keepGray: Bool) throws -> Bitmap {
        let (w, h) = (info.width, info.height)
        let sixteen = bits == 16
        let gray = keepGray && samples == 1 && !sixteen
        let bitmap = try Bitmap(width: w, height: h, format: gray ? .gray8 : sixteen ? .rgba16 : .rgba8, alpha: .straight)
        let lineBytes = Int(TIFFScanlineSize64(tif))
        guard lineBytes >= w * samples * (sixteen ? 2 : 1) else {
            throw SfumatoError.corrupt("\(name): TIFF rows of \(lineBytes) bytes cannot hold \(w) pixels")
        }
        let line = UnsafeMutableRawPointer.allocate(byteCount: lineBytes, alignment: 16)
        defer { line.deallocate() }
        let colour = samples >= 3 ? 3 : 1
        let premultiplied = associatedAlpha == true
        for y in 0..<h {
            guard TIFFReadScanline(tif, line, UInt32(y), 0) == 1 else {
                throw SfumatoError.corrupt("\(name): cannot read TIFF row \(y) (\(stream.message))")
            }
            if gray {
                memcpy(bitmap.row(y), line, w)
            } else if sixteen {
                Self.expand(
                    line.assumingMemoryBound(to: UInt16.self), bitmap.row(y).assumingMemoryBound(to: UInt16.self),
                    w, samples, colour, premultiplied, maximum: 0xFFFF)
            } else {
                Self.expand(
                    line.assumingMemoryBound(to: UInt8.self), bitmap.row(y).assumingMemoryBound(to: UInt8.self),
                    w, samples, colour, premultiplied, maximum: 0xFF)
            }
        }
        return bitmap
    }

    /// Grey or RGB samples, with or without alpha, to straight RGBA.
    private static func expand<T: FixedWidthInteger & UnsignedInteger>(
        _ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>, _ w: Int, _ samples: Int, _ colour: Int,
        _ premultiplied: Bool, maximum: UInt32
    ) {
        for x in 0..<w {
            let s = src + x * samples, d = dst + 4 * x
            let a = samples > colour ? UInt32(s[colour]) : maximum
            for c in 0..<3 {
                var v = UInt32(s[colour == 3 ? c : 0])
                if premultiplied && a < maximum { v = a == 0 ? 0 : min(maximum, (v * maximum + a / 2) / a) }
                d[c] = T(truncatingIfNeeded: v)
            }
            d[3] = T(truncatingIfNeeded: a)
        }
    }

    /// Anything else, through libtiff's RGBA interface: 8 bits, colour premultiplied where there
    /// is alpha (undone here).
    private func decodeRGBA() throws -> Bitmap {
        let (w, h) = (info.width, info.height)
        let bitmap = try Bitmap(width: w, height: h, format: .rgba8, alpha: .straight)
        var message = [CChar](repeating: 0, count: 1024)
        let ok = sf_tiff_read_rgba(
            tif, UInt32(w), UInt32(h), bitmap.baseAddress.assumingMemoryBound(to: UInt32.self), &message)
        guard ok == 1 else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw SfumatoError.unsupported("\(name): cannot read this TIFF (\(reason.isEmpty ? stream.message : reason))")
        }
        if info.hasAlpha {
            let p = bitmap.baseAddress.assumingMemoryBound(to: UInt8.self)
            for i in 0..<(w * h) {
                let px = p + 4 * i
                let a = UInt32(px[3])
                guard a < 255 else { continue }
                for c in 0..<3 { px[c] = a == 0 ? 0 : UInt8(min(255, (UInt32(px[c]) * 255 + a / 2) / a)) }
            }
        }
        return bitmap
    }
}
