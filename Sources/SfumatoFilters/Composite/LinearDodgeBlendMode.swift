import SfumatoCore

/// CILinearDodgeBlendMode: B = min(1, Cb + Cs) (**choice**: Apple gives no formula; Photoshop's linear dodge), in the W3C Compositing and Blending model (``BlendMode``).
public enum LinearDodgeBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Linear Dodge Blend Mode", coreImageName: "CILinearDodgeBlendMode", shortName: "linear-dodge", category: .composite,
        summary: "add (brighten), clamped", parameters: BlendModeParameters.all)

    /// min(b + s, 255): the narrowing to bytes saturates.
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        let wide = _opaqueBlendWide(.linearDodge, f, b, o, n)
        return wide + _opaqueByteRows(f + 4 * wide, b + 4 * wide, o + 4 * wide, n - wide) { b, s in b &+ s }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        pointwiseMin(b + s, SIMD3(repeating: 1))
    }
}
