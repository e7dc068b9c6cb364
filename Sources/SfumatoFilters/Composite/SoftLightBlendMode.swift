import SfumatoCore

/// CISoftLightBlendMode: Cs <= 0.5 ? Cb - (1 - 2 Cs) Cb (1 - Cb) : Cb + (2 Cs - 1)(D(Cb) - Cb), D(x) = x <= 0.25 ? ((16 x - 12) x + 4) x : sqrt(x), in the W3C Compositing and Blending model (``BlendMode``).
public enum SoftLightBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Soft Light Blend Mode", coreImageName: "CISoftLightBlendMode", shortName: "soft-light", category: .composite,
        summary: "a gentle overlay, as a diffused spotlight", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in
            if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
            let d = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
            return b + (2 * s - 1) * (d - b)
        }
    }
}
