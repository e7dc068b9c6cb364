import SfumatoCore

/// CIDifferenceBlendMode: B = |Cb - Cs|, in the W3C Compositing and Blending model (``BlendMode``).
public enum DifferenceBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Difference Blend Mode", coreImageName: "CIDifferenceBlendMode", shortName: "difference", category: .composite,
        summary: "the absolute difference", parameters: BlendModeParameters.all)

    /// |b - s|.
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.difference, f, b, o, n)
        return wide + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in _subtractingClamped(b, s) | _subtractingClamped(s, b) }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in abs(b - s) }
    }
}
