import SfumatoCore

/// CIColorBurnBlendMode: B = Cb == 1 ? 1 : Cs == 0 ? 0 : 1 - min(1, (1 - Cb) / Cs), in the W3C Compositing and Blending model (``BlendMode``).
public enum ColorBurnBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Color Burn Blend Mode", coreImageName: "CIColorBurnBlendMode", shortName: "color-burn", category: .composite,
        summary: "darken the backdrop toward the source", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in b >= 1 ? 1 : s == 0 ? 0 : 1 - min(1, (1 - b) / s) }
    }
}
