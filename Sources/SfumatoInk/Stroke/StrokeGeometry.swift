import Foundation

/// A straight piece of a smoothed stroke: a disc swept from (ax, ay, radius ar) to (bx, by, br),
/// with opacity and colour varying linearly along it. Coordinates are layer pixels.
struct _Piece {
    var ax: Float, ay: Float, ar: Float
    var bx: Float, by: Float, br: Float
    var oa: Float, ob: Float
    var ca: SIMD3<Float>, cb: SIMD3<Float>
    var textured: Bool

    /// From its start to its end, in layer pixels.
    var direction: SIMD2<Float> { SIMD2(bx - ax, by - ay) }

    /// Pixels the piece may touch (with a pixel of anti-aliasing margin).
    var bounds: (x0: Int, y0: Int, x1: Int, y1: Int) {
        let r = max(ar, br) + 1.5 + (textured ? _Graphite.reach(max(ar, br)) : 0)
        return (
            Int((min(ax, bx) - r).rounded(.down)), Int((min(ay, by) - r).rounded(.down)),
            Int((max(ax, bx) + r).rounded(.up)), Int((max(ay, by) + r).rounded(.up))
        )
    }
}

/// Smooths ink points with a centripetal Catmull-Rom spline (alpha 1/2: no cusps or loops on
/// uneven sample spacing) and cuts each span into straight pieces, merging runs that stay on
/// one line with linearly varying width, so a long straight stroke is a single piece.
enum _StrokeGeometry {
    /// Pieces for the span from points[i] to points[i + 1] (with neighbours i - 1 and i + 2 when
    /// present; missing ones are reflected), scaled by `scale` (document to layer pixels).
    static func span(_ p: [InkPoint], _ i: Int, scale: Double) -> [_Piece] {
        let n = p.count
        let p1 = p[i], p2 = p[i + 1]
        func xy(_ q: InkPoint) -> SIMD2<Double> { SIMD2(q.x, q.y) }
        let b = xy(p1), c = xy(p2)
        var a = i > 0 ? xy(p[i - 1]) : b - (c - b)
        var d = i + 2 < n ? xy(p[i + 2]) : c + (c - b)
        let chord = ((c - b) * (c - b)).sum().squareRoot()
        if chord < 1e-6 { return [piece(b, b, p1, p2, 0, 1, scale)] }
        if ((b - a) * (b - a)).sum() < 1e-12 { a = b - (c - b) }
        if ((d - c) * (d - c)).sum() < 1e-12 { d = c + (c - b) }
        let t0 = 0.0
        let t1 = t0 + pow(((b - a) * (b - a)).sum(), 0.25)
        let t2 = t1 + pow(((c - b) * (c - b)).sum(), 0.25)
        let t3 = t2 + pow(((d - c) * (d - c)).sum(), 0.25)
        func at(_ t: Double) -> SIMD2<Double> {
            let a1 = a * ((t1 - t) / (t1 - t0)) + b * ((t - t0) / (t1 - t0))
            let a2 = b * ((t2 - t) / (t2 - t1)) + c * ((t - t1) / (t2 - t1))
            let a3 = c * ((t3 - t) / (t3 - t2)) + d * ((t - t2) / (t3 - t2))
            let b1 = a1 * ((t2 - t) / (t2 - t0)) + a2 * ((t - t0) / (t2 - t0))
            let b2 = a2 * ((t3 - t) / (t3 - t1)) + a3 * ((t - t1) / (t3 - t1))
            return b1 * ((t2 - t) / (t2 - t1)) + b2 * ((t - t1) / (t2 - t1))
        }
        let count = Int(min(64, max(1, (chord * scale / 3).rounded(.up))))  // in Double: no overflow
        var points: [(SIMD2<Double>, Double)] = [(b, 0)]
        for k in 1...count {
            let u = Double(k) / Double(count)
            points.append((k == count ? c : at(t1 + (t2 - t1) * u), u))
        }
        // Merge points that lie on the line between their neighbours (within 0.05 px).
        var kept: [(SIMD2<Double>, Double)] = [points[0]]
        var j = 1
        while j < points.count - 1 {
            let start = kept[kept.count - 1].0, end = points[j + 1].0, mid = points[j].0
            let dir = end - start
            let len = (dir * dir).sum().squareRoot()
            let off = len > 0 ? abs(dir.x * (mid.y - start.y) - dir.y * (mid.x - start.x)) / len : 0
            if off * scale > 0.05 { kept.append(points[j]) }
            j += 1
        }
        kept.append(points[points.count - 1])
        var out: [_Piece] = []
        for k in 0..<(kept.count - 1) {
            out.append(piece(kept[k].0, kept[k + 1].0, p1, p2, kept[k].1, kept[k + 1].1, scale))
        }
        return out
    }

    /// A piece between positions at fractions ua and ub of the way from ink point p1 to p2.
    static func piece(
        _ a: SIMD2<Double>, _ b: SIMD2<Double>, _ p1: InkPoint, _ p2: InkPoint, _ ua: Double, _ ub: Double,
        _ scale: Double
    ) -> _Piece {
        func lerp(_ x: Double, _ y: Double, _ u: Double) -> Double { x + (y - x) * u }
        func lerpc(_ u: Double) -> SIMD3<Float> { p1.color + (p2.color - p1.color) * Float(u) }
        return _Piece(
            ax: Float(a.x * scale), ay: Float(a.y * scale), ar: Float(lerp(p1.radius, p2.radius, ua) * scale),
            bx: Float(b.x * scale), by: Float(b.y * scale), br: Float(lerp(p1.radius, p2.radius, ub) * scale),
            oa: Float(lerp(p1.opacity, p2.opacity, ua)), ob: Float(lerp(p1.opacity, p2.opacity, ub)),
            ca: lerpc(ua), cb: lerpc(ub), textured: p1.textured || p2.textured)
    }
}
