import Foundation
import SfumatoCore

/// The mean of 2n + 1 bilinear samples along a segment through the pixel centre:
/// p + (k radius / n)(cos a, sin a), k = -n...n, n = max(1, ceil(radius)).
///
/// Every pixel's samples sit at the same offsets from it, so their bilinear weights add up to one
/// fixed kernel: a few taps a sample, computed once (in Double) and applied as a sparse
/// convolution. A kernel that is a run of equal taps along a row or a column (an axis-aligned
/// angle with a whole-pixel step: the default angle with a whole radius) is a box, and 8-bit tiles
/// take running sums for it.
struct _MotionKernel: NeighborhoodKernel {
    let radius: Double, angle: Double
    /// Offsets (dx, dy) from the output pixel and weights, summing to 1.
    let taps: [(dx: Int, dy: Int, weight: Float)]
    /// For a box along one axis: its half-length and whether it runs down columns.
    let box: (half: Int, vertical: Bool)?

    init(radius: Double, angle: Double) {
        self.radius = radius
        self.angle = angle
        let n = max(1, Int(radius.rounded(.up)))
        let sx = cos(angle) * radius / Double(n), sy = sin(angle) * radius / Double(n)
        var weights: [Int: [Int: Double]] = [:]
        for k in -n...n {
            let u = Double(k) * sx, v = Double(k) * sy
            let x0 = u.rounded(.down), y0 = v.rounded(.down)
            let fx = u - x0, fy = v - y0
            for (dx, wx) in [(0, 1 - fx), (1, fx)] where wx > 1e-12 {
                for (dy, wy) in [(0, 1 - fy), (1, fy)] where wy > 1e-12 {
                    weights[Int(y0) + dy, default: [:]][Int(x0) + dx, default: 0] += wx * wy / Double(2 * n + 1)
                }
            }
        }
        var taps: [(dx: Int, dy: Int, weight: Float)] = []
        for (dy, row) in weights.sorted(by: { $0.key < $1.key }) {
            for (dx, w) in row.sorted(by: { $0.key < $1.key }) { taps.append((dx, dy, Float(w))) }
        }
        self.taps = taps
        // A box: 2n + 1 taps of weight 1 / (2n + 1) at -n...n along one axis.
        let m = 2 * n + 1, same = taps.count == m && taps.allSatisfy { abs(Double($0.weight) * Double(m) - 1) < 1e-6 }
        if same && taps.allSatisfy({ $0.dy == 0 }) && Set(taps.map(\.dx)) == Set(-n...n) {
            box = (n, false)
        } else if same && taps.allSatisfy({ $0.dx == 0 }) && Set(taps.map(\.dy)) == Set(-n...n) {
            box = (n, true)
        } else {
            box = nil
        }
    }

    var name: String { "CIMotionBlur" }
    var detail: String { box.map { "a \(2 * $0.half + 1)-pixel box \($0.vertical ? "down" : "across")" } ?? "\(taps.count) taps along \(angle) rad" }
    func outputExtent(forInput extent: Rect) -> Rect { extent }

    /// How far the taps reach from the pixel, each way.
    var reach: Int { taps.reduce(1) { max($0, abs($1.dx), abs($1.dy)) } }

    func regionOfInterest(for output: Rect) -> Rect { output.insetBy(dx: -reach, dy: -reach) }

    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        let o = out.rect
        for y in o.y..<o.maxY {
            let dst = out.row(y)
            dst.update(repeating: .zero, count: o.width)
            for t in taps {
                let src = input.pointer(x: o.x + t.dx, y: y + t.dy)
                let w = t.weight
                for x in 0..<o.width { dst[x] += src[x] * w }
            }
        }
    }

    /// Only the box runs on 8-bit tiles: integer running sums, round(sum / (2n + 1)).
    var supportsBytes: Bool { box != nil }
    var supportsGray: Bool { box != nil }

    func apply(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        guard let (half, vertical) = box else { throw SfumatoError.unsupported("\(name): no 8-bit route for \(detail)") }
        let o = out.rect, c = input.channels, m = 2 * half + 1
        let scale = Float(1) / Float(m)
        @inline(__always) func level(_ sum: Int32) -> UInt8 {
            UInt8(truncatingIfNeeded: _roundedInts(SIMD4(repeating: Float(sum) * scale)).x)
        }
        let n = o.width * c
        let acc = scratch.buffer(of: Int32.self, count: n)
        if vertical {
            // Column sums over rows y - half...y + half, moved down a row at a time.
            acc.update(repeating: 0, count: n)
            for j in (o.y - half)...(o.y + half) {
                let row = input.pointer(x: o.x, y: j)
                for i in 0..<n { acc[i] &+= Int32(row[i]) }
            }
            for y in o.y..<o.maxY {
                if y > o.y {
                    let plus = input.pointer(x: o.x, y: y + half), minus = input.pointer(x: o.x, y: y - half - 1)
                    for i in 0..<n { acc[i] &+= Int32(plus[i]) &- Int32(minus[i]) }
                }
                let dst = out.row(y)
                for i in 0..<n { dst[i] = level(acc[i]) }
            }
            return
        }
        if c == 4 {
            // Across, RGBA: the four channels' running sums together.
            let s = SIMD4<Float>(repeating: scale), small = 255 * m < 1 << 22
            for y in o.y..<o.maxY {
                let src = UnsafeRawPointer(input.pointer(x: o.x - half, y: y)), dst = UnsafeMutableRawPointer(out.row(y))
                @inline(__always) func px(_ i: Int) -> SIMD4<Int32> { _widenedBytes(src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt8>.self)) }
                @inline(__always) func store(_ x: Int, _ sum: SIMD4<Int32>) {
                    let v = small ? _float(fromSmallInts: sum) : SIMD4<Float>(sum)
                    dst.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: _roundedInts(v * s)), toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
                }
                var sum = SIMD4<Int32>.zero
                for j in 0..<m { sum &+= px(j) }
                store(0, sum)
                for x in 1..<max(1, o.width) {
                    sum &+= px(x + m - 1) &- px(x - 1)
                    store(x, sum)
                }
            }
            return
        }
        // Across, grey: a running sum along each row.
        for y in o.y..<o.maxY {
            let src = input.pointer(x: o.x - half, y: y), dst = out.row(y)
            for k in 0..<c {
                var sum: Int32 = 0
                for j in 0..<m { sum &+= Int32(src[j * c + k]) }
                dst[k] = level(sum)
                for x in 1..<max(1, o.width) {
                    sum &+= Int32(src[(x + m - 1) * c + k]) &- Int32(src[(x - 1) * c + k])
                    dst[x * c + k] = level(sum)
                }
            }
        }
    }
}
