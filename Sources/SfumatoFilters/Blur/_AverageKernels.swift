import Foundation
import SfumatoCore

/// The mean over a (2r + 1) x (2r + 1) square: running sums across, then down.
struct _BoxKernel: NeighborhoodKernel {
    let r: Int
    var name: String { "CIBoxBlur" }
    var detail: String { "\(2 * r + 1)x\(2 * r + 1) running sums" }
    func outputExtent(forInput extent: Rect) -> Rect { extent }
    func regionOfInterest(for output: Rect) -> Rect { output.insetBy(dx: -r, dy: -r) }

    /// Running sums in Double, so that a pixel's mean does not depend on where its tile starts.
    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        let o = out.rect, rows = input.rect.height
        let mid = scratch.buffer(of: SIMD4<Double>.self, count: o.width * rows)
        let scale = 1 / Double((2 * r + 1) * (2 * r + 1))
        for j in 0..<rows {
            let src = input.row(input.rect.y + j) - input.rect.x, dst = mid + j * o.width
            var acc = SIMD4<Double>.zero
            for x in (o.x - r)...(o.x + r) { acc += SIMD4<Double>(src[x]) }
            dst[0] = acc
            for x in (o.x + 1)..<o.maxX {
                acc += SIMD4<Double>(src[x + r]) - SIMD4<Double>(src[x - r - 1])
                dst[x - o.x] = acc
            }
        }
        let top = o.y - input.rect.y
        for x in 0..<o.width {
            var acc = SIMD4<Double>.zero
            for j in (top - r)...(top + r) { acc += mid[j * o.width + x] }
            out.row(o.y)[x] = SIMD4<Float>(acc * scale)
            for y in 1..<o.height {
                acc += mid[(top + y + r) * o.width + x] - mid[(top + y - r - 1) * o.width + x]
                out.row(o.y + y)[x] = SIMD4<Float>(acc * scale)
            }
        }
    }
}

/// The mean over the pixels whose centres lie within `radius` of the centre pixel's: for each row
/// offset dy, a span of half-width floor(sqrt(r^2 - dy^2)), summed from prefix sums of the row.
struct _DiscKernel: NeighborhoodKernel {
    let radius: Double
    var reach: Int { Int(radius.rounded(.down)) }
    var name: String { "CIDiscBlur" }
    var detail: String { "radius \(radius), \(count) pixels" }
    /// Half-widths per row offset -reach...reach.
    var spans: [Int] { (-reach...reach).map { dy in Int((radius * radius - Double(dy * dy)).squareRoot().rounded(.down)) } }
    var count: Int { spans.reduce(0) { $0 + 2 * $1 + 1 } }
    func outputExtent(forInput extent: Rect) -> Rect { extent }
    func regionOfInterest(for output: Rect) -> Rect { output.insetBy(dx: -reach, dy: -reach) }

    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        let o = out.rect, w = input.rect.width
        // prefix[y][i] = the sum of the row's first i pixels (i = 0...w), in Double: long rows.
        let prefix = scratch.buffer(of: SIMD4<Double>.self, count: (w + 1) * input.rect.height)
        for y in 0..<input.rect.height {
            let src = input.row(input.rect.y + y), p = prefix + y * (w + 1)
            p[0] = .zero
            for i in 0..<w { p[i + 1] = p[i] + SIMD4<Double>(src[i]) }
        }
        let half = spans, scale = 1 / Double(count)
        for y in o.y..<o.maxY {
            let dst = out.row(y)
            for x in o.x..<o.maxX {
                var acc = SIMD4<Double>.zero
                for (k, hw) in half.enumerated() {
                    let p = prefix + (y + k - reach - input.rect.y) * (w + 1)
                    acc += p[x + hw + 1 - input.rect.x] - p[x - hw - input.rect.x]
                }
                dst[x - o.x] = SIMD4<Float>(acc * scale)
            }
        }
    }
}

/// Bilinear sample of a tile at (px, py) in pixel coordinates (centres at index + 0.5); the tile
/// must cover the four pixels around the point.
@inline(__always)
func _bilinear(_ t: FloatTile, _ px: Double, _ py: Double) -> SIMD4<Float> {
    let u = px - 0.5, v = py - 0.5
    let x0 = _floorInt(u), y0 = _floorInt(v)
    let fx = Float(u - Double(x0)), fy = Float(v - Double(y0))
    let r0 = t.row(y0) - t.rect.x, r1 = t.row(y0 + 1) - t.rect.x
    let top = r0[x0] + (r0[x0 + 1] - r0[x0]) * fx
    let bottom = r1[x0] + (r1[x0 + 1] - r1[x0]) * fx
    return top + (bottom - top) * fy
}

/// The mean of bilinear samples from the pixel centre p toward the centre c, over `fraction` of
/// the way: q_k = p + (c - p) fraction k / n, k = 0...n, n = max(1, ceil(fraction |c - p|)) up
/// to `maximumSteps` (a streak longer than that is sampled more sparsely, so that a far centre
/// costs a bounded time per pixel).
struct _ZoomKernel: NeighborhoodKernel {
    let cx: Double, cy: Double, fraction: Double
    static let maximumSteps = 256
    var name: String { "CIZoomBlur" }
    var detail: String { "toward (\(cx), \(cy)), \(fraction * 100)% of the way" }
    func outputExtent(forInput extent: Rect) -> Rect { extent }
    func regionOfInterest(for output: Rect) -> Rect {
        // The segments stay within the rectangle and its copy shrunk toward the centre.
        let k = 1 - fraction
        let xs = [Double(output.x), Double(output.maxX)].map { cx + ($0 - cx) * k }
        let ys = [Double(output.y), Double(output.maxY)].map { cy + ($0 - cy) * k }
        let x0 = min(Double(output.x), xs.min()!), x1 = max(Double(output.maxX), xs.max()!)
        let y0 = min(Double(output.y), ys.min()!), y1 = max(Double(output.maxY), ys.max()!)
        return Rect(
            x: Int(x0.rounded(.down)) - 2, y: Int(y0.rounded(.down)) - 2, width: Int((x1 - x0).rounded(.up)) + 5, height: Int((y1 - y0).rounded(.up)) + 5)
    }

    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        for y in out.rect.y..<out.rect.maxY {
            let dst = out.row(y)
            for x in out.rect.x..<out.rect.maxX {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                let ex = (cx - px) * fraction, ey = (cy - py) * fraction
                let n = min(max(1, _ceilInt((ex * ex + ey * ey).squareRoot())), Self.maximumSteps)
                // Two sums, even and odd samples: one chain of dependent additions would wait on
                // each sample in turn (the loop is latency-bound).
                var even = SIMD4<Float>.zero, odd = SIMD4<Float>.zero
                let step = 1 / Double(n)
                var k = 0
                while k < n {
                    let t = Double(k) * step, u = Double(k + 1) * step
                    even += _bilinear(input, px + ex * t, py + ey * t)
                    odd += _bilinear(input, px + ex * u, py + ey * u)
                    k += 2
                }
                if k == n { even += _bilinear(input, px + ex, py + ey) }
                dst[x - out.rect.x] = (even + odd) / Float(n + 1)
            }
        }
    }
}
