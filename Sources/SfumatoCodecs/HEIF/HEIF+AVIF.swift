import CHeif
import Foundation
import SfumatoCore

extension HEIF {
    /// AV1's largest frame side; libheif does not tile larger images into a grid when writing.
    static let avifMaximumSide = 65536

    /// Encodes an RGBA8 bitmap (straight alpha; alpha left out when every pixel is opaque), or a
    /// Gray8 one as RGB, to AVIF at `options.quality` (1...100) with libaom, 4:2:0 chroma, the
    /// colour described as sRGB, and the metadata `options.metadata` names: the EXIF block
    /// (orientation 1, the output's size), the XMP packet, and an sRGB profile when the input
    /// had a profile.
    public static func encodeAVIF(_ bitmap: Bitmap, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try encode(bitmap, compression: heif_compression_AV1, options: options)
    }

    /// Encodes as HEIC (HEVC by x265), as ``encodeAVIF(_:options:)`` does AVIF. Sfumato does not
    /// offer HEIC as an output format; the tests use it to make the files phones write.
    /// `nclx` labels the pixels' colour by H.273 code points (primaries, transfer) instead of a
    /// profile, as phones and AVIF tools do.
    @_spi(Testing)
    public static func encodeHEIC(
        _ bitmap: Bitmap, options: EncodeOptions = EncodeOptions(), nclx: (primaries: UInt16, transfer: UInt16)? = nil
    ) throws -> [UInt8] {
        try encode(bitmap, compression: heif_compression_HEVC, options: options, nclx: nclx)
    }

    static func encode(
        _ bitmap: Bitmap, compression: heif_compression_format, options: EncodeOptions, nclx: (primaries: UInt16, transfer: UInt16)? = nil
    ) throws -> [UInt8] {
        try options.validate()
        if bitmap.format.isAlwaysOpaque {
            return try encode(try bitmap.expandedToRGBA8(), compression: compression, options: options, nclx: nclx)
        }
        guard bitmap.format == .rgba8 else {
            throw SfumatoError.unsupported("AVIF encoding takes RGBA8 or Gray8 bitmaps, not \(bitmap.format)")
        }
        guard bitmap.width <= avifMaximumSide, bitmap.height <= avifMaximumSide else {
            throw SfumatoError.tooLarge("HEIF cannot hold \(bitmap.width)x\(bitmap.height) (\(avifMaximumSide) pixels a side at most)")
        }
        _ = _HEIFFile.initialized
        let label = compression == heif_compression_AV1 ? "AVIF" : "HEIC"
        guard let context = heif_context_alloc() else { throw SfumatoError.io("cannot create an \(label) encoder") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        var e = heif_context_get_encoder_for_format(context, compression, &encoder)
        guard e.code == heif_error_Ok, let encoder else {
            throw SfumatoError.unsupported("this libheif has no encoder for the format: \(e.message.map { String(cString: $0) } ?? "")")
        }
        defer { heif_encoder_release(encoder) }
        _ = heif_encoder_set_lossy_quality(encoder, Int32(options.quality))
        if compression == heif_compression_AV1 {
            // libaom's default speed (6) takes seconds a megapixel; 8 is several times faster
            // for a few percent more bytes at the same quality.
            _ = heif_encoder_set_parameter_integer(encoder, "speed", 8)
            let threads = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 16)
            _ = heif_encoder_set_parameter_integer(encoder, "threads", Int32(threads))
        }

        let alpha = !bitmap.isOpaque
        var image: OpaquePointer?
        e = heif_image_create(
            Int32(bitmap.width), Int32(bitmap.height), heif_colorspace_RGB,
            alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image)
        guard e.code == heif_error_Ok, let image else { throw error(e, label, "cannot create the image") }
        defer { heif_image_release(image) }
        e = heif_image_add_plane(image, heif_channel_interleaved, Int32(bitmap.width), Int32(bitmap.height), 8)
        var stride: Int32 = 0
        guard e.code == heif_error_Ok, let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw error(e, label, "cannot allocate the image")
        }
        for y in 0..<bitmap.height {
            let src = bitmap.row(y).assumingMemoryBound(to: UInt8.self)
            let dst = plane + y * Int(stride)
            if alpha {
                memcpy(dst, src, 4 * bitmap.width)
            } else {
                for x in 0..<bitmap.width {
                    dst[3 * x] = src[4 * x]
                    dst[3 * x + 1] = src[4 * x + 1]
                    dst[3 * x + 2] = src[4 * x + 2]
                }
            }
        }
        let metadata = options.metadata ?? ImageMetadata()
        if metadata.hadColorProfile {
            let icc = ImageMetadata.sRGBProfile
            _ = heif_image_set_raw_color_profile(image, "prof", icc, icc.count)
        }
        // The colour as code points: the encoder writes the options' nclx box (libheif 1.15 does not
        // take it from the image).
        let encoding = heif_encoding_options_alloc()
        defer { heif_encoding_options_free(encoding) }
        let profile = nclx == nil ? nil : heif_nclx_color_profile_alloc()
        defer { if let profile { heif_nclx_color_profile_free(profile) } }
        if let nclx, let profile, let encoding {
            _ = heif_nclx_color_profile_set_color_primaries(profile, nclx.primaries)
            _ = heif_nclx_color_profile_set_transfer_characteristics(profile, nclx.transfer)
            _ = heif_nclx_color_profile_set_matrix_coefficients(profile, 6)
            profile.pointee.full_range_flag = 1
            _ = heif_image_set_nclx_color_profile(image, profile)
            encoding.pointee.output_nclx_profile = profile
            // libheif leaves the box out by default for macOS' sake: here it is the point.
            encoding.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        }
        var handle: OpaquePointer?
        e = heif_context_encode_image(context, image, encoder, encoding, &handle)
        guard e.code == heif_error_Ok, let handle else { throw error(e, label, "encoding failed") }
        defer { heif_image_handle_release(handle) }
        if let exif = metadata.exif(forUprightWidth: bitmap.width, height: bitmap.height) {
            // libheif finds the TIFF header after JPEG's "Exif" prefix itself.
            e = heif_context_add_exif_metadata(context, handle, exif, Int32(exif.count))
            guard e.code == heif_error_Ok else { throw error(e, label, "cannot add the EXIF block") }
        }
        if let xmp = metadata.xmp, xmp.count > ImageMetadata.xmpPrefix.count {
            let packet = Array(xmp.dropFirst(ImageMetadata.xmpPrefix.count))
            e = heif_context_add_XMP_metadata(context, handle, packet, Int32(packet.count))
            guard e.code == heif_error_Ok else { throw error(e, label, "cannot add the XMP packet") }
        }
        var buffer = sf_heif_buffer()
        defer { free(buffer.data) }
        e = sf_heif_write_to_memory(context, &buffer)
        guard e.code == heif_error_Ok, buffer.failed == 0, let data = buffer.data else {
            throw error(e, label, "cannot write the file")
        }
        return Array(UnsafeBufferPointer(start: data, count: buffer.size))
    }
}
