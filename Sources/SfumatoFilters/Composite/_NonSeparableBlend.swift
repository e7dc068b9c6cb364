/// The W3C Compositing and Blending Level 1 helpers of the non-separable modes (section 9.1.5):
/// luminosity with weights 0.3, 0.59, 0.11, and saturation max - min.
enum _NonSeparable {
    static func lum(_ c: SIMD3<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

    static func clipColor(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let l = lum(c)
        let n = min(c.x, c.y, c.z), x = max(c.x, c.y, c.z)
        var out = c
        if n < 0 { out = SIMD3(repeating: l) + (out - SIMD3(repeating: l)) * l / (l - n) }
        if x > 1 { out = SIMD3(repeating: l) + (out - SIMD3(repeating: l)) * (1 - l) / (x - l) }
        return out
    }

    static func setLum(_ c: SIMD3<Float>, _ l: Float) -> SIMD3<Float> {
        clipColor(c + SIMD3(repeating: l - lum(c)))
    }

    static func sat(_ c: SIMD3<Float>) -> Float { max(c.x, c.y, c.z) - min(c.x, c.y, c.z) }

    /// The colour with saturation `s`, its hue kept: the largest channel becomes s, the smallest 0.
    static func setSat(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
        let lo = min(c.x, c.y, c.z), hi = max(c.x, c.y, c.z)
        guard hi > lo else { return .zero }
        return (c - SIMD3(repeating: lo)) * (s / (hi - lo))
    }
}
