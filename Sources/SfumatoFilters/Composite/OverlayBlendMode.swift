import SfumatoCore

/// CIOverlayBlendMode: B = HardLight(Cs, Cb): Cb <= 0.5 ? 2 Cb Cs : 1 - 2 (1 - Cb)(1 - Cs), in the W3C Compositing and Blending model (``BlendMode``).
public enum OverlayBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Overlay Blend Mode", coreImageName: "CIOverlayBlendMode", shortName: "overlay", category: .composite,
        summary: "multiply the darks, screen the lights of the backdrop", parameters: BlendModeParameters.all)

    /// b <= 127 (Cb <= 0.5): round(2 b s / 255), else 255 - round(2 (255 - b)(255 - s) / 255).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        _opaqueByteRows(f, b, o, n) { b, s in
            let bs = b &* s, ls = (255 &- b) &* (255 &- s)
            let dark = _dividedBy255(bs &+ bs)
            let light = 255 &- _dividedBy255(ls &+ ls)
            return _selectDark(b, dark: dark, light: light)
        }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in b <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s) }
    }
}
