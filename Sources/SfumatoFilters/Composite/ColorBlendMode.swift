import SfumatoCore

/// CIColorBlendMode: B = SetLum(Cs, Lum(Cb)), in the W3C Compositing and Blending model (``BlendMode``).
public enum ColorBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Color Blend Mode", coreImageName: "CIColorBlendMode", shortName: "color", category: .composite,
        summary: "the source's hue and saturation with the backdrop's luminosity", parameters: BlendModeParameters.all)

    public static var isSeparable: Bool { false }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _NonSeparable.setLum(s, _NonSeparable.lum(b))
    }
}
