import SfumatoCore

/// CIScreenBlendMode: B = Cb + Cs - Cb Cs, in the W3C Compositing and Blending model (``BlendMode``).
public enum ScreenBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Screen Blend Mode", coreImageName: "CIScreenBlendMode", shortName: "screen", category: .composite,
        summary: "lighten, the inverse of multiply", parameters: BlendModeParameters.all)

    /// b + s - round(b s / 255).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in _opaqueByteRows(f, b, o, n) { b, s in b &+ s &- _dividedBy255(b &* s) } }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        b + s - b * s
    }
}
