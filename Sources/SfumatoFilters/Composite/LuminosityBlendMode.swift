import SfumatoCore

/// CILuminosityBlendMode: B = SetLum(Cb, Lum(Cs)), in the W3C Compositing and Blending model (``BlendMode``).
public enum LuminosityBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Luminosity Blend Mode", coreImageName: "CILuminosityBlendMode", shortName: "luminosity", category: .composite,
        summary: "the source's luminosity with the backdrop's hue and saturation", parameters: BlendModeParameters.all)

    public static var isSeparable: Bool { false }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _NonSeparable.setLum(b, _NonSeparable.lum(s))
    }
}
