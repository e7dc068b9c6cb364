import SfumatoCore

/// CISaturationBlendMode: B = SetLum(SetSat(Cb, Sat(Cs)), Lum(Cb)), in the W3C Compositing and Blending model (``BlendMode``).
public enum SaturationBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Saturation Blend Mode", coreImageName: "CISaturationBlendMode", shortName: "saturation", category: .composite,
        summary: "the source's saturation with the backdrop's hue and luminosity", parameters: BlendModeParameters.all)

    public static var isSeparable: Bool { false }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _NonSeparable.setLum(_NonSeparable.setSat(b, _NonSeparable.sat(s)), _NonSeparable.lum(b))
    }
}
