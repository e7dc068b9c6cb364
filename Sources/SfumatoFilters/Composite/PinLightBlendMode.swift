import SfumatoCore

/// CIPinLightBlendMode: B = Cs <= 0.5 ? min(Cb, 2 Cs) : max(Cb, 2 Cs - 1) (**choice**: Photoshop's pin light), in the W3C Compositing and Blending model (``BlendMode``).
public enum PinLightBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Pin Light Blend Mode", coreImageName: "CIPinLightBlendMode", shortName: "pin-light", category: .composite,
        summary: "darken with dark sources, lighten with light ones", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in s <= 0.5 ? min(b, 2 * s) : max(b, 2 * s - 1) }
    }
}
