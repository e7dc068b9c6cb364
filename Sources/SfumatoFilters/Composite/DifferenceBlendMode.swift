import SfumatoCore

/// CIDifferenceBlendMode: B = |Cb - Cs|, in the W3C Compositing and Blending model (``BlendMode``).
public enum DifferenceBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Difference Blend Mode", coreImageName: "CIDifferenceBlendMode", shortName: "difference", category: .composite,
        summary: "the absolute difference", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in abs(b - s) }
    }
}
