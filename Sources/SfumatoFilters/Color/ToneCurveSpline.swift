/// The tone curve's function: a natural cubic spline through control points (second derivative
/// zero at both ends), flat beyond the first and last point, clamped to 0...1 (docs/spec/FILTERS.md, a choice).
///
/// The studio's curve editor draws ``samples(count:)`` of this very function, so what the user
/// sees is what ``ToneCurve`` applies.
///
/// ```swift
/// let f = ToneCurveSpline(points: [(0, 0), (0.25, 0.4), (0.5, 0.6), (0.75, 0.8), (1, 1)])
/// f.value(at: 0.25)   // 0.4 exactly
/// ```
public struct ToneCurveSpline: Sendable, Equatable {
    /// Control points sorted by x (at most one per x).
    public let xs: [Double]
    public let ys: [Double]
    /// Second derivatives at the control points.
    let m: [Double]

    /// A spline through `points` (any order; for equal x the last point wins; points with a NaN
    /// coordinate are left out). Without any point, the identity line through (0, 0) and (1, 1).
    public init(points: [(Double, Double)]) {
        var merged: [Double: Double] = [:]
        for (x, y) in points where !x.isNaN && !y.isNaN { merged[x] = y }
        if merged.isEmpty { merged = [0: 0, 1: 1] }
        let sorted = merged.sorted { $0.key < $1.key }
        xs = sorted.map(\.key)
        ys = sorted.map(\.value)
        let n = xs.count
        var m = [Double](repeating: 0, count: n)
        if n > 2 {
            // Tridiagonal system for interior second derivatives (Thomas algorithm).
            var a = [Double](repeating: 0, count: n), b = a, c = a, d = a
            for i in 1..<(n - 1) {
                let h0 = xs[i] - xs[i - 1], h1 = xs[i + 1] - xs[i]
                a[i] = h0
                b[i] = 2 * (h0 + h1)
                c[i] = h1
                d[i] = 6 * ((ys[i + 1] - ys[i]) / h1 - (ys[i] - ys[i - 1]) / h0)
            }
            for i in 2..<(n - 1) {
                let w = a[i] / b[i - 1]
                b[i] -= w * c[i - 1]
                d[i] -= w * d[i - 1]
            }
            m[n - 2] = d[n - 2] / b[n - 2]
            if n > 3 {
                for i in stride(from: n - 3, through: 1, by: -1) { m[i] = (d[i] - c[i] * m[i + 1]) / b[i] }
            }
        }
        self.m = m
    }

    /// The curve at `x`, in 0...1.
    public func value(at x: Double) -> Double {
        let n = xs.count
        if n == 1 { return clamp(ys[0]) }
        if x <= xs[0] { return clamp(ys[0]) }
        if x >= xs[n - 1] { return clamp(ys[n - 1]) }
        var i = 0
        while i < n - 2 && x > xs[i + 1] { i += 1 }
        let h = xs[i + 1] - xs[i]
        let t = x - xs[i], u = xs[i + 1] - x
        let v =
            m[i] * u * u * u / (6 * h) + m[i + 1] * t * t * t / (6 * h)
            + (ys[i] / h - m[i] * h / 6) * u + (ys[i + 1] / h - m[i + 1] * h / 6) * t
        return clamp(v)
    }

    private func clamp(_ v: Double) -> Double { v.bounded(0, 1) }

    /// `count` evenly spaced samples over 0...1 (count >= 2), for drawing.
    public func samples(count: Int) -> [Double] {
        (0..<count).map { value(at: Double($0) / Double(count - 1)) }
    }

    public static func == (a: ToneCurveSpline, b: ToneCurveSpline) -> Bool { a.xs == b.xs && a.ys == b.ys }
}
