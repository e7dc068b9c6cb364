import SfumatoCore

/// CIVividLightBlendMode: B = Cs <= 0.5 ? ColorBurn(Cb, 2 Cs) : ColorDodge(Cb, 2 Cs - 1), as the two modes define them (**choice**: Photoshop's vivid light), in the W3C Compositing and Blending model (``BlendMode``).
public enum VividLightBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Vivid Light Blend Mode", coreImageName: "CIVividLightBlendMode", shortName: "vivid-light", category: .composite,
        summary: "colour burn with dark sources, colour dodge with light ones", parameters: BlendModeParameters.all)

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in
            if s <= 0.5 {
                let t = 2 * s
                return b >= 1 ? 1 : t == 0 ? 0 : 1 - min(1, (1 - b) / t)
            }
            let t = 2 * s - 1
            return b == 0 ? 0 : t >= 1 ? 1 : min(1, b / (1 - t))
        }
    }
}
