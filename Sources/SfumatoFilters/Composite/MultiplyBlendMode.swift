import SfumatoCore

/// CIMultiplyBlendMode: B = Cb Cs, in the W3C Compositing and Blending model (``BlendMode``).
public enum MultiplyBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Multiply Blend Mode", coreImageName: "CIMultiplyBlendMode", shortName: "multiply", category: .composite,
        summary: "darken by multiplying", parameters: BlendModeParameters.all)

    /// round(b s / 255): exact, as ties cannot occur (255 is odd).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.multiply, f, b, o, n)
        return wide + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in _dividedBy255(b &* s) }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        b * s
    }
}
