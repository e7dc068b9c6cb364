import CHeif
import Foundation
import SfumatoCore

/// HEIC/HEIF and AVIF through libheif: reading both (HEVC by libde265, AV1 by dav1d or libaom),
/// and writing AVIF (libaom). Still images only: the primary image of a collection is read.
///
/// HEIF carries its orientation as transformations of the image itself (rotation, mirror,
/// clean aperture), which libheif applies while decoding, so a decoded HEIF image is always
/// upright and ``ImageInfo/orientation`` is 1; an EXIF orientation in the file is not applied
/// again. Files of more than 8 bits a channel decode to RGBA16.
public enum HEIF {
    /// Reads the primary image's header, colour profile and metadata blocks.
    public static func info(_ bytes: [UInt8], name: String = "HEIF") throws -> ImageInfo {
        try _HEIFFile(bytes, name: name).info
    }

    /// Decodes the primary image to an upright bitmap: RGBA8, or RGBA16 for files of more than 8
    /// bits a channel; straight alpha; converted to sRGB from an embedded ICC profile.
    public static func decode(_ bytes: [UInt8], name: String = "HEIF", options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        let file = try _HEIFFile(bytes, name: name)
        try _checkLimit(file.info.width, file.info.height, options, name)
        // Orientation 1: libheif has applied the file's own transformations.
        return try .finishing(try file.decode(), info: file.info, icc: file.iccProfile, options: options)
    }

    /// Whether this machine's libheif can decode HEVC (HEIC) and AV1 (AVIF), and encode AV1.
    public static var capabilities: (heic: Bool, avifDecode: Bool, avifEncode: Bool) {
        _ = _HEIFFile.initialized
        return (
            heif_have_decoder_for_format(heif_compression_HEVC) != 0,
            heif_have_decoder_for_format(heif_compression_AV1) != 0,
            heif_have_encoder_for_format(heif_compression_AV1) != 0
        )
    }

    static func error(_ e: heif_error, _ name: String, _ doing: String) -> SfumatoError {
        let message = e.message.map { String(cString: $0) } ?? "unknown error"
        switch e.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .unsupported("\(name): \(doing): \(message)")
        case heif_error_Memory_allocation_error:
            return .tooLarge("\(name): \(doing): \(message)")
        case heif_error_Invalid_input where e.subcode == heif_suberror_End_of_data:
            return .truncated("\(name): truncated HEIF data (\(message))")
        default:
            return .corrupt("\(name): \(doing): \(message)")
        }
    }
}

/// A parsed HEIF file in memory and its primary image.
final class _HEIFFile {
    static let initialized: Bool = {
        _ = heif_init(nil)
        return true
    }()

    /// Metadata blocks larger than this are ignored (EXIF is at most 64 KB in a JPEG; XMP rarely
    /// more than a few hundred).
    static let metadataLimit = 16 << 20

    private let context: OpaquePointer
    private let handle: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer
    let name: String
    private(set) var info: ImageInfo
    private(set) var iccProfile: [UInt8]?
    private let bits: Int

    init(_ source: [UInt8], name: String) throws {
        _ = Self.initialized
        self.name = name
        // libheif reads from this memory until the context is freed.
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
        source.withUnsafeBytes { bytes.copyMemory(from: $0) }
        self.bytes = bytes
        guard let context = heif_context_alloc() else {
            bytes.deallocate()
            throw SfumatoError.io("\(name): cannot create a HEIF decoder")
        }
        self.context = context
        var e = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, source.count, nil)
        var primary: OpaquePointer?
        if e.code == heif_error_Ok { e = heif_context_get_primary_image_handle(context, &primary) }
        guard e.code == heif_error_Ok, let primary else {
            // The message belongs to the context: read it before freeing that.
            let error = HEIF.error(e, name, "cannot read the file")
            heif_context_free(context)
            bytes.deallocate()
            throw error
        }
        handle = primary
        let brand = heif_main_brand(bytes.baseAddress, Int32(min(source.count, 64)))
        let avif = brand == heif_avif || brand == heif_avis
        info = ImageInfo(
            format: avif ? .avif : .heif, width: Int(heif_image_handle_get_width(handle)),
            height: Int(heif_image_handle_get_height(handle)))
        bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        // Every stored property is set: a throw from here on runs deinit, which frees libheif's objects.
        guard info.width <= ImageInfo.maximumSide, info.height <= ImageInfo.maximumSide else {
            throw SfumatoError.tooLarge("\(name): a \(info.width)x\(info.height) HEIF image is larger than any image Sfumato opens")
        }
        info.bitsPerChannel = max(bits, 8)
        info.hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
        readColorProfile()
        readMetadata()
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
        bytes.deallocate()
    }

    private func readColorProfile() {
        let type = heif_image_handle_get_color_profile_type(handle)
        if type == heif_color_profile_type_nclx {
            // Colour given by code points only (Display P3 from a phone, BT.2020): a profile made
            // from them, converted to sRGB like an embedded one.
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            let status = heif_image_handle_get_nclx_color_profile(handle, &nclx)
            // A damaged box can fail after the profile was allocated: free it either way.
            defer { if let nclx { heif_nclx_color_profile_free(nclx) } }
            guard status.code == heif_error_Ok, let n = nclx else { return }
            guard let (icc, description) = _NCLXProfile.icc(n.pointee) else { return }
            iccProfile = icc
            info.iccProfile = description
            info.metadata.hadColorProfile = true
            return
        }
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= Self.metadataLimit else { return }
        var icc = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_raw_color_profile(handle, &icc).code == heif_error_Ok else { return }
        iccProfile = icc
        info.iccProfile = _ColorTransform.describe(icc) ?? "unreadable profile"
        info.metadata.hadColorProfile = true
    }

    private func readMetadata() {
        // The first 1024 items are looked at.
        let count = min(Int(heif_image_handle_get_number_of_metadata_blocks(handle, nil)), 1024)
        guard count > 0 else { return }
        var ids = [heif_item_id](repeating: 0, count: count)
        let n = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, nil, &ids, Int32(count)))
        // Only the first EXIF and the first XMP item are read: a file may list many items, of any
        // size, over the same bytes.
        for id in ids.prefix(n) where info.metadata.exif == nil || info.metadata.xmp == nil {
            let type = heif_image_handle_get_metadata_type(handle, id).map { String(cString: $0) } ?? ""
            let content = heif_image_handle_get_metadata_content_type(handle, id).map { String(cString: $0) } ?? ""
            let exif = type == "Exif" && info.metadata.exif == nil
            let xmp = type == "mime" && content == "application/rdf+xml" && info.metadata.xmp == nil
            let size = heif_image_handle_get_metadata_size(handle, id)
            guard exif || xmp, size > 4, size <= Self.metadataLimit else { continue }
            var block = [UInt8](repeating: 0, count: size)
            guard heif_image_handle_get_metadata(handle, id, &block).code == heif_error_Ok else { continue }
            if exif {
                // A big-endian offset to the TIFF header, which then runs to the end.
                let offset = block.prefix(4).reduce(0) { $0 << 8 | Int($1) }
                guard offset <= size - 4 - 8 else { continue }
                info.metadata.exif = ImageMetadata.exifPrefix + block[(4 + offset)...]
            } else {
                info.metadata.xmp = ImageMetadata.xmpPrefix + block
            }
        }
    }

    /// Decodes the primary image (upright: libheif applies the file's transformations).
    func decode() throws -> Bitmap {
        let deep = bits > 8
        let alpha = info.hasAlpha
        let chroma: heif_chroma =
            deep
            ? (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE)
            : (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        guard let options = heif_decoding_options_alloc() else { throw SfumatoError.io("\(name): out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 0
        var image: OpaquePointer?
        let e = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options)
        guard e.code == heif_error_Ok, let image else { throw HEIF.error(e, name, "cannot decode the image") }
        defer { heif_image_release(image) }
        let w = Int(heif_image_get_width(image, heif_channel_interleaved))
        let h = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard w == info.width, h == info.height, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride)
        else {
            throw SfumatoError.corrupt("\(name): the decoded image is \(w)x\(h), not the \(info.width)x\(info.height) the header gives")
        }
        let bitmap = try Bitmap(width: w, height: h, format: deep ? .rgba16 : .rgba8, alpha: .straight)
        let channels = alpha ? 4 : 3
        if deep {
            // Widen 10 or 12 bits to 16 by repeating the top bits (exact for 0 and the maximum).
            let shift = UInt16(16 - min(bits, 16)), back = UInt16(max(bits - Int(shift), 0))
            for y in 0..<h {
                let src = UnsafeRawPointer(plane + y * Int(stride)).assumingMemoryBound(to: UInt16.self)
                let dst = bitmap.row(y).assumingMemoryBound(to: UInt16.self)
                for x in 0..<w {
                    for c in 0..<channels {
                        let v = UInt16(littleEndian: src[x * channels + c])
                        dst[4 * x + c] = shift == 0 ? v : v << shift | v >> back
                    }
                    if !alpha { dst[4 * x + 3] = 0xFFFF }
                }
            }
        } else {
            for y in 0..<h {
                let src = plane + y * Int(stride)
                let dst = bitmap.row(y).assumingMemoryBound(to: UInt8.self)
                if alpha {
                    memcpy(dst, src, 4 * w)
                } else {
                    for x in 0..<w {
                        dst[4 * x] = src[3 * x]
                        dst[4 * x + 1] = src[3 * x + 1]
                        dst[4 * x + 2] = src[3 * x + 2]
                        dst[4 * x + 3] = 255
                    }
                }
            }
        }
        return bitmap
    }
}
