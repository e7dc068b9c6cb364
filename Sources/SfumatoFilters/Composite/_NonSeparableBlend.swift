/// The W3C Compositing and Blending Level 1 helpers of the non-separable modes (section 9.1.5):
/// luminosity with weights 0.3, 0.59, 0.11, and saturation max - min. Inlined, with nested
/// two-argument min and max (the variadic three-argument forms were calls in the per-pixel loop).
enum _NonSeparable {
    @inline(__always) static func lum(_ c: SIMD3<Float>) -> Float { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

    @inline(__always) static func clipColor(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let l = lum(c)
        let n = Swift.min(Swift.min(c.x, c.y), c.z), x = Swift.max(Swift.max(c.x, c.y), c.z)
        var out = c
        if n < 0 { out = SIMD3(repeating: l) + (out - SIMD3(repeating: l)) * l / (l - n) }
        if x > 1 { out = SIMD3(repeating: l) + (out - SIMD3(repeating: l)) * (1 - l) / (x - l) }
        return out
    }

    @inline(__always) static func setLum(_ c: SIMD3<Float>, _ l: Float) -> SIMD3<Float> {
        clipColor(c + SIMD3(repeating: l - lum(c)))
    }

    @inline(__always) static func sat(_ c: SIMD3<Float>) -> Float { Swift.max(Swift.max(c.x, c.y), c.z) - Swift.min(Swift.min(c.x, c.y), c.z) }

    /// The colour with saturation `s`, its hue kept: the largest channel becomes s, the smallest 0.
    @inline(__always) static func setSat(_ c: SIMD3<Float>, _ s: Float) -> SIMD3<Float> {
        let lo = Swift.min(Swift.min(c.x, c.y), c.z), hi = Swift.max(Swift.max(c.x, c.y), c.z)
        guard hi > lo else { return .zero }
        return (c - SIMD3(repeating: lo)) * (s / (hi - lo))
    }
}
