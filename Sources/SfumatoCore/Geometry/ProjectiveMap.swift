import Foundation

/// A projective map of the image plane (a homography), in pixel coordinates:
/// `x' = (m0 x + m1 y + m2) / w`, `y' = (m3 x + m4 y + m5) / w`, `w = m6 x + m7 y + m8`.
///
/// Affine maps are the ones with `m6 = m7 = 0, m8 = 1`. Points with `w <= 0` lie behind the
/// viewer: they map nowhere.
///
/// ```swift
/// // The photo's corners moved to four points (a keystone correction run backwards):
/// let t = ProjectiveMap(mapping: photo.extent, to: [(40, 0), (960, 30), (1000, 700), (0, 660)])
/// ```
public struct ProjectiveMap: Hashable, Sendable, CustomStringConvertible {
    /// The nine entries, row by row.
    public var m: [Double]

    /// The map with entries `m` (nine numbers, row by row).
    public init(_ m: [Double]) {
        precondition(m.count == 9, "a projective transform has nine entries")
        self.m = m
    }

    /// The affine map as a projective one.
    public init(_ t: AffineMap) {
        m = [t.a, t.c, t.tx, t.b, t.d, t.ty, 0, 0, 1]
    }

    /// The map taking the corners of `rect` (top left, top right, bottom right, bottom left) to
    /// `corners`; nil when no projective map does (three corners on a line, say) or a number is
    /// not finite.
    public init?(mapping rect: Rect, to corners: [(x: Double, y: Double)]) {
        guard corners.count == 4, !rect.isEmpty, corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        let x0 = Double(rect.x), y0 = Double(rect.y), x1 = Double(rect.maxX), y1 = Double(rect.maxY)
        let from = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        // Eight equations in m0...m7 (m8 = 1): x' (m6 x + m7 y + 1) = m0 x + m1 y + m2, and so for y'.
        var rows: [[Double]] = []
        for ((x, y), c) in zip(from, corners) {
            rows.append([x, y, 1, 0, 0, 0, -c.x * x, -c.x * y, c.x])
            rows.append([0, 0, 0, x, y, 1, -c.y * x, -c.y * y, c.y])
        }
        guard let h = _solve(rows) else { return nil }
        let t = ProjectiveMap(h + [1])
        guard t.isFinite else { return nil }
        self = t
    }

    /// Whether the map is affine (its last row 0 0 1).
    public var isAffine: Bool { m[6] == 0 && m[7] == 0 && m[8] == 1 }

    /// Whether every entry is a finite number.
    public var isFinite: Bool { m.allSatisfy(\.isFinite) }

    /// Where (x, y) goes, and its w (the point maps nowhere when w <= 0).
    public func apply(x: Double, y: Double) -> (x: Double, y: Double, w: Double) {
        let w = m[6] * x + m[7] * y + m[8]
        return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w, w)
    }

    /// The map that undoes this one; nil when it is singular (or not finite).
    public var inverted: ProjectiveMap? {
        guard isFinite else { return nil }
        let a = m
        let c0 = a[4] * a[8] - a[5] * a[7], c1 = a[5] * a[6] - a[3] * a[8], c2 = a[3] * a[7] - a[4] * a[6]
        let det = a[0] * c0 + a[1] * c1 + a[2] * c2
        let scale = a.map(abs).max() ?? 0
        guard det.isFinite, abs(det) > 1e-12 * max(1, scale * scale * scale) else { return nil }
        let inv = [
            c0, a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
            c1, a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
            c2, a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]
        ].map { $0 / det }
        let t = ProjectiveMap(inv)
        return t.isFinite ? t : nil
    }

    /// The 2x2 derivative of the map at (x, y): how far the image of a small step across (the
    /// first column) and down (the second) moves, `[dx'/dx, dx'/dy, dy'/dx, dy'/dy]`.
    public func jacobian(x: Double, y: Double) -> [Double] {
        let w = m[6] * x + m[7] * y + m[8]
        let u = m[0] * x + m[1] * y + m[2], v = m[3] * x + m[4] * y + m[5]
        let w2 = w * w
        return [
            (m[0] * w - u * m[6]) / w2, (m[1] * w - u * m[7]) / w2,
            (m[3] * w - v * m[6]) / w2, (m[4] * w - v * m[7]) / w2
        ]
    }

    public var description: String { "[" + m.map(_short).joined(separator: " ") + "]" }
}

/// Gaussian elimination with partial pivoting on an n x (n+1) augmented matrix; nil if singular.
func _solve(_ rows: [[Double]]) -> [Double]? {
    var a = rows
    let n = a.count
    for col in 0..<n {
        guard let pivot = (col..<n).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12 else { return nil }
        a.swapAt(col, pivot)
        for r in 0..<n where r != col {
            let f = a[r][col] / a[col][col]
            if f == 0 { continue }
            for k in col...n { a[r][k] -= f * a[col][k] }
        }
    }
    return (0..<n).map { a[$0][n] / a[$0][$0] }
}
