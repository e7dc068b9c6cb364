import Foundation
import SfumatoCore

/// Plain, slow, obviously right reference math in Double, one pixel at a time, for checking
/// filters against their definitions (docs/spec/FILTERS.md).
public enum Reference {
    /// sRGB decode (IEC 61966-2-1), sign-symmetric.
    public static func decode(_ v: Double) -> Double {
        let a = abs(v)
        let l = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
        return v < 0 ? -l : l
    }

    /// sRGB encode, sign-symmetric.
    public static func encode(_ l: Double) -> Double {
        let a = abs(l)
        let v = a <= 0.0031308 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
        return l < 0 ? -v : v
    }

    /// A stored 8-bit level to a working value.
    public static func toWorking(_ level: UInt8, _ ws: WorkingSpace) -> Double {
        ws == .linear ? decode(Double(level) / 255) : Double(level) / 255
    }

    /// A working value to the 8-bit level an 8-bit output must hold (clamped, rounded).
    public static func toLevel(_ v: Double, _ ws: WorkingSpace) -> Double {
        let e = ws == .linear ? encode(v) : v
        return (min(max(e, 0), 1) * 255).rounded()
    }

    /// The pixel (x, y) of an RGBA8 straight bitmap as working RGBA (colour straight, alpha 0...1).
    public static func working(_ b: Bitmap, _ x: Int, _ y: Int, _ ws: WorkingSpace) -> [Double] {
        let p = b.bytes(x: x, y: y)
        return [toWorking(p.x, ws), toWorking(p.y, ws), toWorking(p.z, ws), Double(p.w) / 255]
    }

    /// sign(x) |x|^p, with 0 staying 0 (docs/spec/FILTERS.md's extended-range rule).
    public static func power(_ x: Double, _ p: Double) -> Double {
        x == 0 ? 0 : (x < 0 ? -pow(-x, p) : pow(x, p))
    }

    /// A natural cubic spline through points, solved as a full linear system (independent of
    /// the engine's tridiagonal solver), flat outside, clamped to 0...1.
    public static func naturalSpline(_ points: [(Double, Double)], _ x: Double) -> Double {
        let p = points.sorted { $0.0 < $1.0 }
        let n = p.count
        if x <= p[0].0 { return min(max(p[0].1, 0), 1) }
        if x >= p[n - 1].0 { return min(max(p[n - 1].1, 0), 1) }
        // Unknowns: second derivatives M0..M(n-1); M0 = M(n-1) = 0.
        var a = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: n)
        a[0][0] = 1
        a[n - 1][n - 1] = 1
        for i in 1..<(n - 1) {
            let h0 = p[i].0 - p[i - 1].0, h1 = p[i + 1].0 - p[i].0
            a[i][i - 1] = h0 / 6
            a[i][i] = (h0 + h1) / 3
            a[i][i + 1] = h1 / 6
            a[i][n] = (p[i + 1].1 - p[i].1) / h1 - (p[i].1 - p[i - 1].1) / h0
        }
        // Gaussian elimination with partial pivoting.
        for c in 0..<n {
            let pivot = (c..<n).max { abs(a[$0][c]) < abs(a[$1][c]) }!
            a.swapAt(c, pivot)
            for r in 0..<n where r != c {
                let f = a[r][c] / a[c][c]
                for k in c...n { a[r][k] -= f * a[c][k] }
            }
        }
        let m = (0..<n).map { a[$0][n] / a[$0][$0] }
        var i = 0
        while x > p[i + 1].0 { i += 1 }
        let h = p[i + 1].0 - p[i].0, t = (x - p[i].0) / h
        // Cubic Hermite-free form: linear part plus the second-derivative correction.
        let linear = p[i].1 * (1 - t) + p[i + 1].1 * t
        let correction = h * h / 6 * ((pow(1 - t, 3) - (1 - t)) * m[i] + (pow(t, 3) - t) * m[i + 1])
        return min(max(linear + correction, 0), 1)
    }
}
