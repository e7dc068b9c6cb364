import SfumatoCore

/// CILightenBlendMode: B = max(Cb, Cs), in the W3C Compositing and Blending model (``BlendMode``).
public enum LightenBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Lighten Blend Mode", coreImageName: "CILightenBlendMode", shortName: "lighten", category: .composite,
        summary: "the lighter of the two, per channel", parameters: BlendModeParameters.all)

    /// max(b, s) = s + max(b - s, 0).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.lighten, f, b, o, n)
        return wide + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in s &+ _subtractingClamped(b, s) }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        pointwiseMax(b, s)
    }
}
