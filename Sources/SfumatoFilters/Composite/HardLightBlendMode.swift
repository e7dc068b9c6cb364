import SfumatoCore

/// CIHardLightBlendMode: Cs <= 0.5 ? 2 Cb Cs : 1 - 2 (1 - Cb)(1 - Cs), in the W3C Compositing and Blending model (``BlendMode``).
public enum HardLightBlendMode: BlendMode {
    public static let descriptor = FilterDescriptor(
        displayName: "Hard Light Blend Mode", coreImageName: "CIHardLightBlendMode", shortName: "hard-light", category: .composite,
        summary: "multiply or screen by the source, as a harsh spotlight", parameters: BlendModeParameters.all)

    /// s <= 127 (Cs <= 0.5): round(2 b s / 255), else 255 - round(2 (255 - b)(255 - s) / 255).
    public static let opaqueByteRows: OpaqueByteRows? = { f, b, o, n in
        _opaqueByteRows(f, b, o, n) { b, s in
            let bs = b &* s, ls = (255 &- b) &* (255 &- s)
            return _selectDark(s, dark: _dividedBy255(bs &+ bs), light: 255 &- _dividedBy255(ls &+ ls))
        }
    }

    public static func blend(backdrop b: SIMD3<Float>, source s: SIMD3<Float>) -> SIMD3<Float> {
        _perChannel(b, s) { b, s in s <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s) }
    }
}
