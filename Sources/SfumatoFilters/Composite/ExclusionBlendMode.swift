import SfumatoCore

/// CIExclusionBlendMode: B = Cb + Cs - 2 Cb Cs, in the W3C Compositing and Blending model (``BlendMode``).
public enum ExclusionBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Exclusion Blend Mode", coreImageName: "CIExclusionBlendMode", shortName: "exclusion", category: .composite,
        summary: "a softer difference", parameters: BlendModeParameters.all)

    /// round((b (255 - s) + s (255 - b)) / 255): b + s - 2bs/255 over a numerator below 65,026.
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        _opaqueByteRows(f, b, o, n) { b, s in _dividedBy255(b &* (255 &- s) &+ s &* (255 &- b)) }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        b + s - 2 * b * s
    }
}
