import SfumatoCore

/// CISubtractBlendMode: B = max(0, Cb - Cs) (**choice**), in the W3C Compositing and Blending model (``BlendMode``).
public enum SubtractBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Subtract Blend Mode", coreImageName: "CISubtractBlendMode", shortName: "subtract", category: .composite,
        summary: "the source taken from the backdrop, clamped", parameters: BlendModeParameters.all)

    /// max(b - s, 0).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.subtract, f, b, o, n)
        return wide + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in _subtractingClamped(b, s) }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        pointwiseMax(b - s, .zero)
    }
}
