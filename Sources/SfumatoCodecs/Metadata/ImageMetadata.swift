import CExif
import CLCMS2

/// What a photo carries beside its pixels, kept through a render: the EXIF block (camera, date,
/// exposure, GPS...), the XMP packet, and whether it had a colour profile. Read by every decoder
/// (TIFF: the XMP and the profile); written by every encoder, in each format's own place: JPEG
/// APP1 and APP2 markers, PNG eXIf, iTXt and iCCP chunks, WebP EXIF, XMP and ICCP chunks (libwebp's
/// mux), HEIF metadata items (libheif), TIFF tags (the XMP packet and the profile only).
public struct ImageMetadata: Sendable, Equatable {
    /// The EXIF block as a JPEG APP1 payload (`Exif\0\0`, then the TIFF structure), or nil.
    public var exif: [UInt8]?
    /// The XMP packet as a JPEG APP1 payload (the `http://ns.adobe.com/xap/1.0/\0` name, then the XML), or nil.
    public var xmp: [UInt8]?
    /// Whether the file had an ICC profile. Pixels are converted to sRGB on reading, so what is
    /// written back is an sRGB profile, which describes them.
    public var hadColorProfile = false

    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, hadColorProfile: Bool = false) {
        self.exif = exif
        self.xmp = xmp
        self.hadColorProfile = hadColorProfile
    }

    /// Nothing to keep.
    public var isEmpty: Bool { exif == nil && xmp == nil && !hadColorProfile }

    static let exifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let xmpPrefix: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    /// The EXIF block for an upright image of this size (orientation 1, dimensions updated, the
    /// stale thumbnail dropped), by libexif; nil when there is none or libexif cannot read it.
    public func exif(forUprightWidth width: Int, height: Int) -> [UInt8]? {
        guard let exif, exif.count > Self.exifPrefix.count, exif.count <= 65533 else { return nil }
        var size: UInt32 = 0
        guard let out = exif.withUnsafeBufferPointer({ sf_exif_rewrite($0.baseAddress, UInt32($0.count), UInt32(width), UInt32(height), &size) })
        else { return nil }
        defer { free(out) }
        let bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        // libexif writes the APP1 form (with the Exif header); a marker holds 65533 bytes at most.
        return bytes.starts(with: Self.exifPrefix) && bytes.count <= 65533 ? bytes : nil
    }

    /// Orientation (0 when absent) and pixel dimensions (0 when absent) of an EXIF block, by libexif.
    public static func exifFacts(_ block: [UInt8]) -> (orientation: Int, width: Int, height: Int) {
        var o: Int32 = 0, w: Int32 = 0, h: Int32 = 0
        block.withUnsafeBufferPointer { sf_exif_read($0.baseAddress, UInt32($0.count), &o, &w, &h) }
        return (Int(o), Int(w), Int(h))
    }

    /// lcms2's sRGB profile, as bytes to embed.
    static let sRGBProfile: [UInt8] = {
        guard let p = cmsCreate_sRGBProfile() else { return [] }
        defer { cmsCloseProfile(p) }
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(p, nil, &size) != 0, size > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(p, &bytes, &size) != 0 else { return [] }
        return bytes
    }()
}
