import Foundation
#if arch(x86_64)
    import SfumatoAVX512
#endif

extension _WarpKernel {
    /// Whether the rows apply: a map that shrinks nowhere (no widening), sampled bilinearly or
    /// bicubically. Turns, shears, enlargements and most perspective corrections are this case.
    var usesAffineRows: Bool {
        widest <= 1 + 1e-12 && (sampling == .bilinear || sampling == .bicubic)
    }

    /// The same pixels as the general sampler, faster: the point is two multiply-adds from the
    /// pixel's coordinates (and a division, for a projective map), and the 2x2 (bilinear) or 4x4
    /// (bicubic) block's weights come from the kernel's formula, not its table. A pixel whose
    /// block is not all inside the input (the transparent soft edge) is left to `edge`, the
    /// general sampler.
    func applyAffineRows<R: _TileReader, W: _TileWriter>(input tile: R, output out: W, have: Rect, edge: (Int, Int) -> SIMD4<Float>) {
        if sampling == .bilinear, let bytes = tile as? _ByteReader, let target = out as? _ByteWriter {
            return bilinearBytes(bytes.tile, target.tile, have: have, edge: edge)
        }
        let m = inverse.m
        let (a, b, c, d, e, f) = (m[0], m[1], m[2], m[3], m[4], m[5])
        let cubic = sampling == .bicubic
        let before = cubic ? 1 : 0, after = cubic ? 2 : 1
        // The block's first tap may be as low as have.x + before; its last as high as maxX - 1.
        let xLow = Double(have.x + before), xHigh = Double(have.maxX - 1 - after)
        // Past these a point's block (no widening here) reads nothing inside the input.
        let farLow = (x: Double(have.x - 3), y: Double(have.y - 3)), farHigh = (x: Double(have.maxX + 2), y: Double(have.maxY + 2))
        let yLow = Double(have.y + before), yHigh = Double(have.maxY - 1 - after)
        let affine = forward.isAffine
        for y in out.rect.y..<out.rect.maxY {
            let cy = Double(y) + 0.5
            let rowU = b * cy + c - 0.5, rowV = e * cy + f - 0.5
            // An affine row's pixels far outside lie before and after one interval of x (the
            // transparent corners of a turn, a quarter of its pixels): zero there without the
            // per-pixel test, which still decides every pixel of the interval.
            var xs = out.rect.x..<out.rect.maxX
            if affine, let near = Self.nearColumns(a: a, rowU: rowU, d: d, rowV: rowV, low: farLow, high: farHigh, in: xs) {
                for x in xs.lowerBound..<near.lowerBound { out.set(x, y, .zero) }
                for x in near.upperBound..<xs.upperBound { out.set(x, y, .zero) }
                xs = near
            }
            for x in xs {
                let cx = Double(x) + 0.5
                let (u, v) = affine ? (a * cx + rowU, d * cx + rowV) : projected(cx, cy)
                let fu = _floor(u), fv = _floor(v)
                // Also false for NaN: the general sampler decides those.
                guard fu >= xLow, fu <= xHigh, fv >= yLow, fv <= yHigh else {
                    // Far outside (the transparent corners of a turn): no tap reaches the input.
                    out.set(x, y, fu < farLow.x || fu > farHigh.x || fv < farLow.y || fv > farHigh.y ? .zero : edge(x, y))
                    continue
                }
                let ix = Int(fu), iy = Int(fv)
                let tx = Float(u - fu), ty = Float(v - fv)
                if cubic {
                    let wx = Self.keys(tx), wy = Self.keys(ty)
                    var acc = SIMD4<Float>.zero
                    for r in 0..<4 {
                        let sy = iy - 1 + r
                        let line =
                            tile.pixel(ix - 1, sy) * wx.x + tile.pixel(ix, sy) * wx.y + tile.pixel(ix + 1, sy) * wx.z
                            + tile.pixel(ix + 2, sy) * wx.w
                        acc += line * wy[r]
                    }
                    out.set(x, y, acc)
                } else {
                    let t0 = tile.pixel(ix, iy), t1 = tile.pixel(ix + 1, iy)
                    let b0 = tile.pixel(ix, iy + 1), b1 = tile.pixel(ix + 1, iy + 1)
                    let upper = t0 + (t1 - t0) * tx
                    let lower = b0 + (b1 - b0) * tx
                    out.set(x, y, upper + (lower - upper) * ty)
                }
            }
        }
    }

    /// The columns of `columns` whose point (a (x + 0.5) + rowU, d (x + 0.5) + rowV) may have its
    /// floor within `low...high` on both axes, widened by a pixel each side; nil where the
    /// bounds are not finite (the caller then tests every pixel).
    static func nearColumns(
        a: Double, rowU: Double, d: Double, rowV: Double, low: (x: Double, y: Double), high: (x: Double, y: Double), in columns: Range<Int>
    ) -> Range<Int>? {
        var lo = Double(columns.lowerBound), hi = Double(columns.upperBound)
        // floor(t) in [l, h] is t in [l, h + 1): for t = k (x + 0.5) + r, an interval of x.
        // False where no x has it.
        func narrow(_ k: Double, _ r: Double, _ l: Double, _ h: Double) -> Bool {
            if k == 0 { return r >= l && r < h }
            let x0 = (l - r) / k - 0.5, x1 = (h - r) / k - 0.5
            lo = max(lo, min(x0, x1) - 1)
            hi = min(hi, max(x0, x1) + 1)
            return true
        }
        guard narrow(a, rowU, low.x, high.x + 1), narrow(d, rowV, low.y, high.y + 1) else { return columns.lowerBound..<columns.lowerBound }
        guard lo.isFinite, hi.isFinite else { return nil }
        if hi <= lo { return columns.lowerBound..<columns.lowerBound }
        let first = max(columns.lowerBound, Int(lo.rounded(.down))), end = min(columns.upperBound, Int(hi.rounded(.up)))
        return first < end ? first..<end : columns.lowerBound..<columns.lowerBound
    }

    /// Bilinear rows from and to 8-bit tiles in fixed point (`_bilinearBytes`): fractions of
    /// 1/256 pixel, so within a level of the float route's lerp (the weights move by at most
    /// 1/512, the sum by half a level, before the rounding).
    ///
    /// An affine map's point moves by the same step every pixel: it is stepped in 32.32 fixed
    /// point along the whole row. A projective map's point moves along a curve; it is stepped the
    /// same way over spans short enough that the straight line between their exact end points
    /// stays within `spanTolerance` of the curve (bounded from the map's second derivative), so
    /// that one division serves a span instead of every pixel.
    private func bilinearBytes(_ tile: ByteTile, _ out: ByteTile, have: Rect, edge: (Int, Int) -> SIMD4<Float>) {
        let m = inverse.m
        let (a, b, c, d, e, f) = (m[0], m[1], m[2], m[3], m[4], m[5])
        let xLow = Double(have.x), xHigh = Double(have.maxX - 2), yLow = Double(have.y), yHigh = Double(have.maxY - 2)
        let affine = forward.isAffine
        let span = _BilinearSpan(tile: tile, have: have)
        for y in out.rect.y..<out.rect.maxY {
            let cy = Double(y) + 0.5
            let rowU = b * cy + c - 0.5, rowV = e * cy + f - 0.5
            let dst = UnsafeMutableRawPointer(out.row(y))
            let cx0 = Double(out.rect.x) + 0.5, cx1 = Double(out.rect.maxX - 1) + 0.5
            if affine {
                let u0 = a * cx0 + rowU, v0 = d * cx0 + rowV
                // Rows whose start is far outside any tile (a hostile map) take the general path.
                if span.fits(u0, v0, a, d) {
                    span.run(dst, y: y, x0: out.rect.x, x1: out.rect.maxX, x: out.rect.x, u: u0, v: v0, du: a, dv: d, edge: edge)
                    continue
                }
            }
            var start = out.rect.x
            if !affine, let length = projectiveSpan(rowStart: cx0, rowEnd: cx1, cy: cy) {
                // Each span's exact ends (the last span's end the row's, where W > 0 was checked).
                while start < out.rect.maxX {
                    let x1 = min(start + length, out.rect.maxX)
                    let (u0, v0) = projected(Double(start) + 0.5, cy), (u1, v1) = projected(Double(x1) + 0.5, cy)
                    let du = (u1 - u0) / Double(x1 - start), dv = (v1 - v0) / Double(x1 - start)
                    guard span.fits(u0, v0, du, dv) else { break }
                    span.run(dst, y: y, x0: out.rect.x, x1: x1, x: start, u: u0, v: v0, du: du, dv: dv, edge: edge)
                    start = x1
                }
            }
            // N / W and M / W, their numerators and denominator stepped along the row, a
            // division a pixel (a projective map that bends too fast for spans, or a point past
            // the fixed-point range).
            let cxs = Double(start) + 0.5
            var nu = a * cxs + b * cy + c, nv = d * cxs + e * cy + f, nw = m[6] * cxs + m[7] * cy + m[8]
            for x in start..<out.rect.maxX {
                let r = nw > 0 ? 1 / nw : .nan
                let u = nu * r - 0.5, v = nv * r - 0.5
                nu += a
                nv += d
                nw += m[6]
                let o = 4 &* (x &- out.rect.x)
                // floor(u) in [xLow, xHigh] is u in [xLow, xHigh + 1) (false for NaN too).
                guard u >= xLow, u < xHigh + 1, v >= yLow, v < yHigh + 1 else {
                    let far = u < xLow - 3 || u > xHigh + 4 || v < yLow - 3 || v > yHigh + 4
                    dst.storeBytes(of: far ? SIMD4<UInt8>() : _Convert.floatToBytes(edge(x, y)), toByteOffset: o, as: SIMD4<UInt8>.self)
                    continue
                }
                // Inside the tile, so within Int's range: floor by truncation, one down for negatives.
                let tu = _truncated(u), tv = _truncated(v)
                let iu = Double(tu) > u ? tu &- 1 : tu, iv = Double(tv) > v ? tv &- 1 : tv
                let fx = Int32(truncatingIfNeeded: _truncated((u - Double(iu)) * 256 + 0.5))
                let fy = Int32(truncatingIfNeeded: _truncated((v - Double(iv)) * 256 + 0.5))
                let p = span.base + ((iv &- span.ty0) &* span.rowBytes &+ 4 &* (iu &- span.tx0))
                dst.storeBytes(of: _bilinearBytes(top: p, bottom: p + span.rowBytes, fx: fx, fy: fy), toByteOffset: o, as: SIMD4<UInt8>.self)
            }
        }
    }

    /// How far a projected point may stray from the straight line a span steps along, in pixels:
    /// an eighth of the 1/256-pixel steps of the bilinear weights.
    static let spanTolerance = 1.0 / 2048

    /// The span length (pixels, 8...256) over which a row of a projective map, pixel centres
    /// `rowStart`...`rowEnd` at height `cy`, stays within ``spanTolerance`` of straight; nil where
    /// the row reaches behind the viewer or bends so fast that spans would be short.
    ///
    /// Along the row u = N / W with N and W linear in x (slopes a and g): u'' = -2 g K / W³,
    /// K = a W - g N constant along the row; a straight line through a span's ends strays from
    /// the curve by at most L² max|u''| / 8. So for v, with slope d.
    private func projectiveSpan(rowStart: Double, rowEnd: Double, cy: Double) -> Int? {
        let m = inverse.m
        let g = m[6]
        let w0 = g * rowStart + m[7] * cy + m[8], w1 = g * (rowEnd + 1) + m[7] * cy + m[8]
        let wMin = min(w0, w1)
        guard wMin > 0, wMin.isFinite else { return nil }
        let n0 = m[0] * rowStart + m[1] * cy + m[2], n1 = m[3] * rowStart + m[4] * cy + m[5]
        let ku = m[0] * w0 - g * n0, kv = m[3] * w0 - g * n1
        let bend = 2 * abs(g) * max(abs(ku), abs(kv)) / (wMin * wMin * wMin)
        guard bend.isFinite else { return nil }
        let length = bend > 0 ? (8 * Self.spanTolerance / bend).squareRoot() : 256
        return length >= 8 ? Int(min(length, 256)) : nil
    }

    /// A pixel centre mapped back through a projective map, less half a pixel (the sampling
    /// grid's origin); NaN where it falls behind the viewer.
    @inline(__always) private func projected(_ cx: Double, _ cy: Double) -> (Double, Double) {
        let p = inverse.apply(x: cx, y: cy)
        return p.w > 0 ? (p.x - 0.5, p.y - 0.5) : (.nan, .nan)
    }

    /// Keys' cubic (a = -0.75) at distances 1 + t, t, 1 - t, 2 - t: the weights of taps -1...2
    /// for a point t (0 ≤ t < 1) past tap 0. They sum to 1.
    @inline(__always) static func keys(_ t: Float) -> SIMD4<Float> {
        let a: Float = -0.75
        func near(_ x: Float) -> Float { ((a + 2) * x - (a + 3)) * x * x + 1 }
        func far(_ x: Float) -> Float { ((a * x - 5 * a) * x + 8 * a) * x - 4 * a }
        return SIMD4(far(1 + t), near(t), near(1 - t), far(2 - t))
    }
}

/// Bilinear samples of an 8-bit tile along a straight line of output pixels, the point stepped in
/// 32.32 fixed point (drift below 2^-32 a step: 2^-19 over an 8192-pixel row).
struct _BilinearSpan {
    let base: UnsafeRawPointer, rowBytes: Int, tx0: Int, ty0: Int
    let have: Rect
    /// Where a pixel's 2x2 block may start: inside, it is sampled here; near, by `edge`.
    let first: (x: Int, y: Int), last: (x: Int, y: Int)
    static let unit = 4_294_967_296.0

    init(tile: ByteTile, have: Rect) {
        base = UnsafeRawPointer(tile.base)
        rowBytes = 4 * tile.stride
        (tx0, ty0) = (tile.rect.x, tile.rect.y)
        self.have = have
        first = (have.x, have.y)
        last = (have.maxX - 2, have.maxY - 2)
    }

    /// Whether a line from (u, v) stepping (du, dv) stays in the fixed point's range over a row.
    func fits(_ u: Double, _ v: Double, _ du: Double, _ dv: Double) -> Bool {
        abs(u) < 1e9 && abs(v) < 1e9 && abs(du) < 1e3 && abs(dv) < 1e3
    }

    /// Output pixels x...x1 - 1 of row `y` (the row's first pixel x0 at `dst`), pixel x's
    /// point at (u, v) (the sampling grid's, less half a pixel), stepping (du, dv) a pixel;
    /// pixels whose block meets the input's edge from `edge`.
    @inline(__always)
    func run(
        _ dst: UnsafeMutableRawPointer, y: Int, x0: Int, x1: Int, x: Int, u: Double, v: Double, du: Double, dv: Double,
        edge: (Int, Int) -> SIMD4<Float>
    ) {
        var fu = Int64((u * Self.unit).rounded(.down)), fv = Int64((v * Self.unit).rounded(.down))
        let stepU = Int64((du * Self.unit).rounded()), stepV = Int64((dv * Self.unit).rounded())
        var x = x
        #if arch(x86_64)
            // Eight pixels a step while their blocks lie inside; sixteen here after each stop
            // (the edges, the transparent corners), then eight a step again.
            if CPUFeatures.wideVectors {
                while x1 - x >= 8 {
                    let done = _bilinearRowAVX512(
                        dst + 4 &* (x &- x0), count: x1 - x, u: fu, v: fv, du: stepU, dv: stepV, base: base, rowBytes: rowBytes,
                        originX: tx0, originY: ty0, lowX: first.x, lowY: first.y, highX: last.x, highY: last.y)
                    fu &+= Int64(done) &* stepU
                    fv &+= Int64(done) &* stepV
                    x += done
                    let end = min(x + 16, x1)
                    step(dst, y: y, x0: x0, x: x, x1: end, fu: &fu, fv: &fv, stepU: stepU, stepV: stepV, edge: edge)
                    x = end
                }
            }
        #endif
        step(dst, y: y, x0: x0, x: x, x1: x1, fu: &fu, fv: &fv, stepU: stepU, stepV: stepV, edge: edge)
    }

    /// Pixels x ..< x1 one at a time, from the point (fu, fv) in 32.32 fixed point, advanced.
    @inline(__always)
    private func step(
        _ dst: UnsafeMutableRawPointer, y: Int, x0: Int, x: Int, x1: Int, fu: inout Int64, fv: inout Int64, stepU: Int64, stepV: Int64,
        edge: (Int, Int) -> SIMD4<Float>
    ) {
        for x in x..<x1 {
            let iu = Int(truncatingIfNeeded: fu &>> 32), iv = Int(truncatingIfNeeded: fv &>> 32)
            let o = 4 &* (x &- x0)
            if iu >= first.x && iu <= last.x && iv >= first.y && iv <= last.y {
                let fx = Int32(truncatingIfNeeded: ((fu & 0xFFFF_FFFF) &+ 0x80_0000) &>> 24)
                let fy = Int32(truncatingIfNeeded: ((fv & 0xFFFF_FFFF) &+ 0x80_0000) &>> 24)
                let p = base + ((iv &- ty0) &* rowBytes &+ 4 &* (iu &- tx0))
                dst.storeBytes(of: _bilinearBytes(top: p, bottom: p + rowBytes, fx: fx, fy: fy), toByteOffset: o, as: SIMD4<UInt8>.self)
            } else if iu < have.x &- 3 || iu > have.maxX &+ 2 || iv < have.y &- 3 || iv > have.maxY &+ 2 {
                dst.storeBytes(of: 0, toByteOffset: o, as: UInt32.self)  // far outside: transparent
            } else {
                dst.storeBytes(of: _Convert.floatToBytes(edge(x, y)), toByteOffset: o, as: SIMD4<UInt8>.self)
            }
            fu &+= stepU
            fv &+= stepV
        }
    }
}
