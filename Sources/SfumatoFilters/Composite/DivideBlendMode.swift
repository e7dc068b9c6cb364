import SfumatoCore

/// CIDivideBlendMode: B = Cs == 0 ? (Cb == 0 ? 0 : 1) : min(1, Cb / Cs) (**choice**), in the W3C Compositing and Blending model (``BlendMode``).
public enum DivideBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Divide Blend Mode", coreImageName: "CIDivideBlendMode", shortName: "divide", category: .composite,
        summary: "the backdrop divided by the source, clamped", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in s == 0 ? (b == 0 ? 0 : 1) : min(1, b / s) }
    }
}
