import SfumatoCore

/// CIHueBlendMode: B = SetLum(SetSat(Cs, Sat(Cb)), Lum(Cb)) (W3C non-separable, Lum weights 0.3 0.59 0.11), in the W3C Compositing and Blending model (``BlendMode``).
public enum HueBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Hue Blend Mode", coreImageName: "CIHueBlendMode", shortName: "hue", category: .composite,
        summary: "the source's hue with the backdrop's saturation and luminosity", parameters: BlendModeParameters.all)

    public static var isSeparable: Bool { false }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _NonSeparable.setLum(_NonSeparable.setSat(s, _NonSeparable.sat(b)), _NonSeparable.lum(b))
    }
}
