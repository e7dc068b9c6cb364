import CHeif
import CLCMS2

/// The colour an nclx box states (H.273 code points: primaries, transfer, matrix) as an ICC
/// profile made by lcms2, so that a HEIF or AVIF whose colour is given only that way (Display P3,
/// BT.2020) converts to sRGB as one with an embedded profile does. libheif has already undone the
/// matrix (YCbCr to RGB); what is left is RGB in the stated primaries and transfer.
enum _NCLXProfile {
    /// The profile and its description, or nil where the pixels are taken as sRGB: BT.709 primaries
    /// (sRGB's) or unspecified ones with a display transfer (sRGB, BT.709, unspecified), and the
    /// high-dynamic-range transfers PQ and HLG, which need tone mapping (left as decoded).
    static func icc(_ n: heif_color_profile_nclx) -> (icc: [UInt8], description: String)? {
        let primaries = n.color_primaries.rawValue, transfer = n.transfer_characteristics.rawValue
        let srgbPrimaries = primaries == 1 || primaries == 2
        guard let curve = curve(transfer) else { return nil }
        if srgbPrimaries && curve.displayLike { return nil }
        guard let (rgb, white) = chromaticities(primaries, n) else { return nil }
        // Chromaticities must lie inside the diagram, or lcms2 cannot build the matrix.
        for (x, y) in rgb + [white] where !(x > 0 && y > 0 && x + y <= 1 && x.isFinite && y.isFinite) { return nil }
        let name = Self.primariesName(primaries) + ", " + curve.name + " (nclx)"
        var whitePoint = cmsCIExyY(x: white.0, y: white.1, Y: 1)
        var triple = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: rgb[0].0, y: rgb[0].1, Y: 1), Green: cmsCIExyY(x: rgb[1].0, y: rgb[1].1, Y: 1),
            Blue: cmsCIExyY(x: rgb[2].0, y: rgb[2].1, Y: 1))
        guard let tone = curve.parameters.withUnsafeBufferPointer({ cmsBuildParametricToneCurve(nil, curve.type, $0.baseAddress) }) else {
            return nil
        }
        defer { cmsFreeToneCurve(tone) }
        var curves: [OpaquePointer?] = [tone, tone, tone]
        guard let profile = cmsCreateRGBProfile(&whitePoint, &triple, &curves) else { return nil }
        defer { cmsCloseProfile(profile) }
        if let mlu = cmsMLUalloc(nil, 1) {
            defer { cmsMLUfree(mlu) }
            _ = cmsMLUsetASCII(mlu, "en", "US", name)
            _ = cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
        }
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0, size > 0, size < 1 << 20 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard cmsSaveProfileToMem(profile, &bytes, &size) != 0 else { return nil }
        return (bytes, name)
    }

    /// A transfer as an lcms2 parametric curve (encoded value to linear light).
    struct Curve {
        let name: String
        let type: Int32
        let parameters: [Double]
        /// What displays show as sRGB (the same curve, or BT.709's close to it).
        let displayLike: Bool
    }

    static func curve(_ transfer: UInt32) -> Curve? {
        switch transfer {
        case 2, 13:
            // IEC 61966-2-1: Y = ((X + 0.055) / 1.055)^2.4 above 0.04045, X / 12.92 below.
            return Curve(name: "sRGB transfer", type: 4, parameters: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045], displayLike: true)
        case 1, 6, 14, 15:
            // BT.709 / BT.601 / BT.2020: the inverse of the camera curve V = 1.099 L^0.45 - 0.099 (4.5 L below 0.018).
            return Curve(
                name: "BT.709 transfer", type: 4, parameters: [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081], displayLike: true)
        case 4: return Curve(name: "gamma 2.2", type: 1, parameters: [2.2], displayLike: false)
        case 5: return Curve(name: "gamma 2.8", type: 1, parameters: [2.8], displayLike: false)
        case 8: return Curve(name: "linear", type: 1, parameters: [1], displayLike: false)
        default: return nil  // PQ, HLG, logarithmic, ...: not converted
        }
    }

    /// H.273's primaries and white point for a code point, as xy; for others the values libheif
    /// decoded, when it did.
    static func chromaticities(_ p: UInt32, _ n: heif_color_profile_nclx) -> ([(Double, Double)], (Double, Double))? {
        let d65 = (0.3127, 0.3290)
        switch p {
        case 1, 2: return ([(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)], d65)
        case 4: return ([(0.67, 0.33), (0.21, 0.71), (0.14, 0.08)], (0.310, 0.316))
        case 5: return ([(0.64, 0.33), (0.29, 0.60), (0.15, 0.06)], d65)
        case 6, 7: return ([(0.630, 0.340), (0.310, 0.595), (0.155, 0.070)], d65)
        case 9: return ([(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)], d65)
        case 11: return ([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], (0.314, 0.351))
        case 12: return ([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], d65)
        case 22: return ([(0.630, 0.340), (0.295, 0.605), (0.155, 0.077)], d65)
        default:
            let rgb = [
                (Double(n.color_primary_red_x), Double(n.color_primary_red_y)),
                (Double(n.color_primary_green_x), Double(n.color_primary_green_y)),
                (Double(n.color_primary_blue_x), Double(n.color_primary_blue_y))
            ]
            return (rgb, (Double(n.color_primary_white_x), Double(n.color_primary_white_y)))
        }
    }

    static func primariesName(_ p: UInt32) -> String {
        switch p {
        case 1, 2: "BT.709 primaries"
        case 9: "BT.2020 primaries"
        case 11: "DCI-P3 primaries"
        case 12: "Display P3 primaries"
        default: "primaries \(p)"
        }
    }
}
