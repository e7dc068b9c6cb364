import SfumatoCore

/// CIColorDodgeBlendMode: B = Cb == 0 ? 0 : Cs == 1 ? 1 : min(1, Cb / (1 - Cs)), in the W3C Compositing and Blending model (``BlendMode``).
public enum ColorDodgeBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Color Dodge Blend Mode", coreImageName: "CIColorDodgeBlendMode", shortName: "color-dodge", category: .composite,
        summary: "brighten the backdrop toward the source", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in b == 0 ? 0 : s >= 1 ? 1 : min(1, b / (1 - s)) }
    }
}
