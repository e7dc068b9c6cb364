import SfumatoCore

/// The two-colour ramp the gradients share: premultiplied interpolation of straight sRGB-encoded
/// colours (as CSS gradients), so a fade to transparent keeps its colour.
struct _ColorRamp: Sendable {
    let c0: SIMD4<Float>, c1: SIMD4<Float>

    init(_ a: [Double], _ b: [Double]) {
        c0 = SIMD4(a.map(Float.init))
        c1 = SIMD4(b.map(Float.init))
    }

    /// The colour at t in 0...1 (straight).
    @inline(__always) func color(_ t: Float) -> SIMD4<Float> {
        let p0 = SIMD4(c0.x * c0.w, c0.y * c0.w, c0.z * c0.w, c0.w), p1 = SIMD4(c1.x * c1.w, c1.y * c1.w, c1.z * c1.w, c1.w)
        let p = p0 + (p1 - p0) * t
        return p.w > 0 ? SIMD4(p.x / p.w, p.y / p.w, p.z / p.w, p.w) : .zero
    }
}

extension ParameterSpec {
    /// A straight sRGB-encoded RGBA colour.
    static func color(_ key: String, short: String, default value: [Double], help: String) -> ParameterSpec {
        .vector(key, short: short, default: value, count: 4, range: 0...1, help: help)
    }

    /// A point in pixels (y down).
    static func point(_ key: String, short: String, default value: [Double], help: String) -> ParameterSpec {
        .vector(key, short: short, default: value, count: 2, range: -1e7...1e7, help: help)
    }
}
