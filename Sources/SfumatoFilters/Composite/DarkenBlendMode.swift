import SfumatoCore

/// CIDarkenBlendMode: B = min(Cb, Cs), in the W3C Compositing and Blending model (``BlendMode``).
public enum DarkenBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Darken Blend Mode", coreImageName: "CIDarkenBlendMode", shortName: "darken", category: .composite,
        summary: "the darker of the two, per channel", parameters: BlendModeParameters.all)

    /// min(b, s) = b - max(b - s, 0).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.darken, f, b, o, n)
        return wide + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in b &- _subtractingClamped(b, s) }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        pointwiseMin(b, s)
    }
}
