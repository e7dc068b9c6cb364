import SfumatoCore

/// CIDarkenBlendMode: B = min(Cb, Cs), in the W3C Compositing and Blending model (``BlendMode``).
public enum DarkenBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Darken Blend Mode", coreImageName: "CIDarkenBlendMode", shortName: "darken", category: .composite,
        summary: "the darker of the two, per channel", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        pointwiseMin(b, s)
    }
}
