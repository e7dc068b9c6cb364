import SfumatoCore

/// CILinearBurnBlendMode: B = max(0, Cb + Cs - 1) (**choice**: Photoshop's linear burn), in the W3C Compositing and Blending model (``BlendMode``).
public enum LinearBurnBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Linear Burn Blend Mode", coreImageName: "CILinearBurnBlendMode", shortName: "linear-burn", category: .composite,
        summary: "add and subtract 1 (darken), clamped", parameters: BlendModeParameters.all)

    /// max(b + s - 255, 0).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.linearBurn, f, b, o, n)
        return wide
            + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in
                _subtractingClamped(b &+ s, SIMD8(repeating: 255))
            }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        pointwiseMax(b + s - SIMD3(repeating: 1), .zero)
    }
}
