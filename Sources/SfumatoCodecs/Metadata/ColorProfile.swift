import CLCMS2
import Foundation
import SfumatoCore

/// An embedded ICC profile and the lcms2 transform that takes its pixels to sRGB.
final class _ColorTransform: @unchecked Sendable {
    private let transform: cmsHTRANSFORM
    let description: String

    /// The profile's description (its `desc` tag), or nil when the bytes are not a profile.
    static func describe(_ icc: [UInt8]) -> String? {
        guard let profile = icc.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else {
            return nil
        }
        defer { cmsCloseProfile(profile) }
        return _profileDescription(profile)
    }

    /// A transform from `icc` to sRGB for RGBA8 (or RGBA16, or CMYK8 when `cmyk`) pixels, or nil when
    /// the profile is sRGB already or unusable (then pixels are taken as sRGB).
    init?(icc: [UInt8], sixteenBit: Bool = false, cmyk: Bool = false, invertedCMYK: Bool = false) {
        guard let profile = icc.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else {
            return nil
        }
        defer { cmsCloseProfile(profile) }
        let desc = _profileDescription(profile) ?? "unnamed profile"
        let space = cmsGetColorSpace(profile)
        if cmyk {
            guard space == cmsSigCmykData else { return nil }
        } else {
            guard space == cmsSigRgbData else { return nil }
            if desc.lowercased().hasPrefix("srgb") { return nil }
        }
        guard let srgb = cmsCreate_sRGBProfile() else { return nil }
        defer { cmsCloseProfile(srgb) }
        let inType: cmsUInt32Number =
            cmyk
            ? (invertedCMYK ? SF_TYPE_CMYK_8_REV : SF_TYPE_CMYK_8)
            : (sixteenBit ? SF_TYPE_RGBA_16 : SF_TYPE_RGBA_8)
        let outType: cmsUInt32Number = sixteenBit && !cmyk ? SF_TYPE_RGBA_16 : SF_TYPE_RGBA_8
        let flags: cmsUInt32Number = cmyk ? 0 : SF_FLAGS_COPY_ALPHA
        guard let t = cmsCreateTransform(profile, inType, srgb, outType, cmsUInt32Number(INTENT_PERCEPTUAL), flags) else {
            return nil
        }
        transform = t
        description = desc
    }

    deinit { cmsDeleteTransform(transform) }

    /// Converts `count` pixels (may be in place for same-size formats).
    func apply(_ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer, count: Int) {
        cmsDoTransform(transform, input, output, cmsUInt32Number(count))
    }

    /// Converts a whole bitmap in place, rows in parallel.
    func apply(to bitmap: Bitmap) {
        parallelFor(bitmap.height) { y in
            apply(bitmap.row(y), bitmap.row(y), count: bitmap.width)
        }
    }
}

func _profileDescription(_ profile: cmsHPROFILE) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let n = cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(buffer.count))
    guard n > 0 else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
