import Foundation
import SfumatoCore

/// White points from colour temperature and tint, and the Bradford adaptation between two of
/// them as a matrix on linear sRGB.
enum _ChromaticAdaptation {
    /// The Planckian locus in CIE 1931 xy, Kim et al.'s cubic fits (2002), 1667...25000 K.
    static func planckian(_ kelvin: Double) -> (x: Double, y: Double) {
        let t = kelvin.bounded(1667, 25000)
        let t1 = 1e3 / t, t2 = t1 * t1, t3 = t2 * t1
        let x =
            t <= 4000
            ? -0.2661239 * t3 - 0.2343589 * t2 + 0.8776956 * t1 + 0.179910
            : -3.0258469 * t3 + 2.1070379 * t2 + 0.2226347 * t1 + 0.240390
        let x2 = x * x, x3 = x2 * x
        let y: Double
        if t <= 2222 {
            y = -1.1063814 * x3 - 1.34811020 * x2 + 2.18555832 * x - 0.20219683
        } else if t <= 4000 {
            y = -0.9549476 * x3 - 1.37418593 * x2 + 2.09137015 * x - 0.16748867
        } else {
            y = 3.0817580 * x3 - 5.87338670 * x2 + 3.75112997 * x - 0.37001483
        }
        return (x, y)
    }

    /// The white of `kelvin` moved `tint` x 1e-4 along the locus's normal in CIE 1960 uv, toward
    /// magenta for a positive tint (away from green), as XYZ with Y = 1.
    static func white(kelvin: Double, tint: Double) -> SIMD3<Double> {
        func uv(_ k: Double) -> (Double, Double) {
            let (x, y) = planckian(k)
            let d = -2 * x + 12 * y + 3
            return (4 * x / d, 6 * y / d)
        }
        var (u, v) = uv(kelvin)
        if tint != 0 {
            let step = max(1, kelvin * 1e-3)
            let (u0, v0) = uv(kelvin - step), (u1, v1) = uv(kelvin + step)
            var (nu, nv) = (-(v1 - v0), u1 - u0)
            let length = (nu * nu + nv * nv).squareRoot()
            (nu, nv) = (nu / length, nv / length)
            if nv > 0 { (nu, nv) = (-nu, -nv) }  // the normal pointing to smaller v: magenta
            u += tint * 1e-4 * nu
            v += tint * 1e-4 * nv
        }
        let d = 2 * u - 8 * v + 4
        let x = 3 * u / d, y = 2 * v / d
        return SIMD3(x / y, 1, (1 - x - y) / y)
    }

    static let bradford: [[Double]] = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
    static let rgbToXYZ: [[Double]] = [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
    }

    static func apply(_ m: [[Double]], _ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((0..<3).map { i in m[i][0] * v.x + m[i][1] * v.y + m[i][2] * v.z })
    }

    static func inverse(_ m: [[Double]]) -> [[Double]] {
        let a = m
        let det =
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        return [
            [(a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det, (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det, (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det],
            [(a[1][2] * a[2][0] - a[1][0] * a[2][2]) / det, (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det, (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det],
            [(a[1][0] * a[2][1] - a[1][1] * a[2][0]) / det, (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det, (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det]
        ]
    }

    /// The matrix on linear sRGB taking colours seen under `source` white to `target` white:
    /// RGB' = XYZ->RGB . B^-1 . diag(B target / B source) . B . RGB->XYZ.
    static func matrix(from source: SIMD3<Double>, to target: SIMD3<Double>) -> [[Double]] {
        let s = apply(bradford, source), t = apply(bradford, target)
        let scale = [[t.x / s.x, 0, 0], [0, t.y / s.y, 0], [0, 0, t.z / s.z]]
        let adapt = multiply(inverse(bradford), multiply(scale, bradford))
        return multiply(inverse(rgbToXYZ), multiply(adapt, rgbToXYZ))
    }
}

/// RGB' = M RGB on the straight colour, alpha kept.
struct _RGBMatrix: PixelFunction {
    let m: [[Float]]
    let name: String

    init(_ m: [[Double]], name: String) {
        self.m = m.map { $0.map(Float.init) }
        self.name = name
    }

    /// A diagonal matrix (a white point) scales each channel on its own.
    var isPerChannel: Bool { m[0][1] == 0 && m[0][2] == 0 && m[1][0] == 0 && m[1][2] == 0 && m[2][0] == 0 && m[2][1] == 0 }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let r0 = SIMD4(m[0][0], m[0][1], m[0][2], 0), r1 = SIMD4(m[1][0], m[1][1], m[1][2], 0), r2 = SIMD4(m[2][0], m[2][1], m[2][2], 0)
        for i in 0..<count {
            let p = pixels[i]
            let c = SIMD4(p.x, p.y, p.z, 0)
            pixels[i] = SIMD4((r0 * c).sum(), (r1 * c).sum(), (r2 * c).sum(), p.w)
        }
    }
}
