import CWebP
import Foundation
import SfumatoCore

/// WebP reading and writing through libwebp (lossy and lossless; still images only).
public enum WebP {
    /// Reads the header, and the ICC, EXIF and XMP chunks.
    public static func info(_ bytes: [UInt8], name: String = "WebP") throws -> ImageInfo {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        if status != VP8_STATUS_OK { throw error(status, name) }
        var info = ImageInfo(format: .webp, width: Int(features.width), height: Int(features.height))
        info.hasAlpha = features.has_alpha != 0
        info.lossless = features.format == 2
        if features.has_animation != 0 { info.lossless = nil }
        let (icc, exif, xmp) = metadata(bytes)
        if let icc {
            info.iccProfile = _ColorTransform.describe(icc) ?? "unreadable profile"
            info.metadata.hadColorProfile = true
        }
        if let exif {
            info.orientation = _EXIF.orientation(exif)
            // Most writers store the TIFF structure alone; some keep JPEG's "Exif" header.
            info.metadata.exif = exif.starts(with: ImageMetadata.exifPrefix) ? exif : ImageMetadata.exifPrefix + exif
        }
        if let xmp { info.metadata.xmp = ImageMetadata.xmpPrefix + xmp }
        return info
    }

    static func error(_ status: VP8StatusCode, _ name: String) -> SfumatoError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated("\(name): truncated WebP data")
        case VP8_STATUS_UNSUPPORTED_FEATURE: .unsupported("\(name): unsupported WebP feature")
        case VP8_STATUS_OUT_OF_MEMORY: .tooLarge("\(name): out of memory decoding WebP")
        default: .corrupt("\(name): corrupt WebP data (status \(status.rawValue))")
        }
    }

    /// The ICC, EXIF and XMP chunks, if present.
    static func metadata(_ bytes: [UInt8]) -> (icc: [UInt8]?, exif: [UInt8]?, xmp: [UInt8]?) {
        bytes.withUnsafeBufferPointer { buffer -> ([UInt8]?, [UInt8]?, [UInt8]?) in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demux = sf_webp_demux(&data) else { return (nil, nil, nil) }
            defer { WebPDemuxDelete(demux) }
            func chunk(_ fourcc: String) -> [UInt8]? {
                var iter = WebPChunkIterator()
                guard WebPDemuxGetChunk(demux, fourcc, 1, &iter) != 0 else { return nil }
                defer { WebPDemuxReleaseChunkIterator(&iter) }
                return Array(UnsafeBufferPointer(start: iter.chunk.bytes, count: iter.chunk.size))
            }
            return (chunk("ICCP"), chunk("EXIF"), chunk("XMP "))
        }
    }

    /// Decodes WebP bytes to an upright RGBA8 bitmap (straight alpha, sRGB).
    public static func decode(_ bytes: [UInt8], name: String = "WebP", options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        let info = try self.info(bytes, name: name)
        try _checkLimit(info.width, info.height, options, name)
        let bitmap = try Bitmap(width: info.width, height: info.height, format: .rgba8, alpha: .straight)
        var config = WebPDecoderConfig()
        guard sf_webp_init_decoder_config(&config) != 0 else { throw SfumatoError.io("\(name): libwebp version mismatch") }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = bitmap.baseAddress.assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(bitmap.rowBytes)
        config.output.u.RGBA.size = bitmap.byteCount
        let status = bytes.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        WebPFreeDecBuffer(&config.output)
        if status != VP8_STATUS_OK { throw error(status, name) }
        return try .finishing(bitmap, info: info, icc: metadata(bytes).icc, options: options)
    }

    /// Encodes an RGBA8 bitmap (straight alpha): lossy at `options.quality`, or lossless. WebP
    /// has no greyscale: a Gray8 bitmap is written as opaque RGB with R = G = B (an RGB8 one is
    /// expanded too). The metadata
    /// `options.metadata` names goes into EXIF, XMP and ICCP chunks by libwebp's mux API.
    public static func encode(_ bitmap: Bitmap, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try options.validate()
        if bitmap.format.isAlwaysOpaque { return try encode(try bitmap.expandedToRGBA8(), options: options) }
        guard bitmap.format == .rgba8 else {
            throw SfumatoError.unsupported("WebP encoding takes RGBA8 or Gray8 bitmaps, not \(bitmap.format)")
        }
        guard bitmap.width <= 16383, bitmap.height <= 16383 else {
            throw SfumatoError.tooLarge("WebP cannot hold \(bitmap.width)x\(bitmap.height) (16383 pixels per side at most)")
        }
        var output: UnsafeMutablePointer<UInt8>?
        let p = bitmap.baseAddress.assumingMemoryBound(to: UInt8.self)
        let size: Int
        if options.webpLossless {
            size = WebPEncodeLosslessRGBA(p, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.rowBytes), &output)
        } else {
            size = WebPEncodeRGBA(p, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.rowBytes), Float(options.quality), &output)
        }
        defer { if let output { WebPFree(output) } }
        guard size > 0, let output else { throw SfumatoError.io("WebP encoding failed") }
        var chunks: [(String, [UInt8])] = []
        if let metadata = options.metadata {
            if metadata.hadColorProfile { chunks.append(("ICCP", ImageMetadata.sRGBProfile)) }
            if let exif = metadata.exif(forUprightWidth: bitmap.width, height: bitmap.height) {
                chunks.append(("EXIF", Array(exif.dropFirst(ImageMetadata.exifPrefix.count))))
            }
            if let xmp = metadata.xmp, xmp.count > ImageMetadata.xmpPrefix.count {
                chunks.append(("XMP ", Array(xmp.dropFirst(ImageMetadata.xmpPrefix.count))))
            }
        }
        if chunks.isEmpty { return Array(UnsafeBufferPointer(start: output, count: size)) }
        return try withMetadata(UnsafeBufferPointer(start: output, count: size), chunks)
    }

    /// A still WebP file with chunks added around its bitstream, assembled by libwebp's mux.
    static func withMetadata(_ bitstream: UnsafeBufferPointer<UInt8>, _ chunks: [(String, [UInt8])]) throws -> [UInt8] {
        guard let mux = sf_webp_mux_new() else { throw SfumatoError.io("cannot create a WebP muxer") }
        defer { WebPMuxDelete(mux) }
        var image = WebPData(bytes: bitstream.baseAddress, size: bitstream.count)
        var status = WebPMuxSetImage(mux, &image, 1)
        for (fourcc, payload) in chunks where status == WEBP_MUX_OK {
            status = payload.withUnsafeBufferPointer { p in
                var data = WebPData(bytes: p.baseAddress, size: p.count)
                return WebPMuxSetChunk(mux, fourcc, &data, 1)
            }
        }
        var assembled = WebPData()
        sf_webp_data_init(&assembled)
        defer { sf_webp_data_clear(&assembled) }
        if status == WEBP_MUX_OK { status = WebPMuxAssemble(mux, &assembled) }
        guard status == WEBP_MUX_OK, let bytes = assembled.bytes else {
            throw SfumatoError.io("WebP metadata could not be added (mux status \(status.rawValue))")
        }
        return Array(UnsafeBufferPointer(start: bytes, count: assembled.size))
    }
}
