import SfumatoCore

/// Per-channel median over a `diameter` x `diameter` window (odd diameter). Reads its input over
/// the window around each output pixel, so compose with `clampedToExtent()` for clamped edges.
struct _MedianKernel: NeighborhoodKernel {
    let diameter: Int
    var radius: Int { diameter / 2 }

    var name: String { "median \(diameter)x\(diameter)" }
    var detail: String {
        diameter == 3
            ? "sorted columns, 16 bytes at a time"
            : diameter <= 7
                ? "sorted columns merged by a pruned network (four outputs, 16 bytes at a time) on 8-bit, selection on float"
                : "sliding 256-bin histograms (Huang) on 8-bit, selection on float"
    }
    var supportsBytes: Bool { true }
    var picksInputValues: Bool { true }
    var deviceKernel: DeviceKernel? { .median(diameter: diameter) }
    /// A median of opaque pixels is opaque.
    var keepsOpaque: Bool { true }

    func outputExtent(forInput extent: Rect) -> Rect { extent.insetBy(dx: -radius, dy: -radius) }
    func regionOfInterest(for output: Rect) -> Rect { output.insetBy(dx: -radius, dy: -radius) }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let out = output.rect
        if diameter == 3 {
            for y in out.y..<out.maxY {
                let a = input.pointer(x: out.x, y: y - 1), b = input.pointer(x: out.x, y: y), c = input.pointer(x: out.x, y: y + 1)
                let d = output.row(y)
                for x in 0..<out.width {
                    d[x] = _median9(a[x - 1], a[x], a[x + 1], b[x - 1], b[x], b[x + 1], c[x - 1], c[x], c[x + 1])
                }
            }
            return
        }
        let r = radius, n = diameter * diameter
        let values = scratch.buffer(of: Float.self, count: n)
        for y in out.y..<out.maxY {
            let d = output.row(y)
            for x in 0..<out.width {
                var result = SIMD4<Float>()
                for ch in 0..<4 {
                    var k = 0
                    for dy in -r...r {
                        let row = input.pointer(x: out.x + x - r, y: y + dy)
                        for dx in 0..<diameter { values[k] = row[dx][ch]; k += 1 }
                    }
                    result[ch] = _select(values, n, n / 2)
                }
                d[x] = result
            }
        }
    }

    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        if diameter == 5 || diameter == 7 { return medianBlocks(input: input, output: output, scratch: scratch) }
        if diameter != 3 { return huang(input: input, output: output, scratch: scratch) }
        median3x3(input: input, output: output, scratch: scratch)
    }
}

extension _MedianKernel {
    /// Huang's sliding-histogram median, four channels at once: moving one pixel right removes
    /// a column and adds a column (2 x diameter updates), and the median moves by a few levels.
    func huang(input: ByteTile, output: ByteTile, scratch: TileScratch) {
        let out = output.rect
        let r = radius, d = diameter
        let rank = (d * d - 1) / 2
        let hist = scratch.buffer(of: Int32.self, count: 4 * 256)
        for y in out.y..<out.maxY {
            hist.update(repeating: 0, count: 4 * 256)
            var median = SIMD4<Int32>(repeating: 0)
            var below = SIMD4<Int32>(repeating: 0)  // count of values < median, per channel
            for dy in -r...r {
                let row = input.pointer(x: out.x - r, y: y + dy)
                for k in 0..<(d * 4) { hist[(k & 3) * 256 + Int(row[k])] += 1 }
            }
            let dst = output.row(y)
            for x in 0..<out.width {
                if x > 0 {
                    // Slide: drop column x - 1 - r, add column x + r.
                    for dy in -r...r {
                        let old = input.pointer(x: out.x + x - 1 - r, y: y + dy)
                        let new = input.pointer(x: out.x + x + r, y: y + dy)
                        for c in 0..<4 {
                            let o = Int32(old[c]), n = Int32(new[c])
                            hist[c * 256 + Int(o)] -= 1
                            hist[c * 256 + Int(n)] += 1
                            if o < median[c] { below[c] -= 1 }
                            if n < median[c] { below[c] += 1 }
                        }
                    }
                }
                for c in 0..<4 {
                    var m = Int(median[c]), b = Int(below[c])
                    let h = hist + c * 256
                    while b > rank { m -= 1; b -= Int(h[m]) }
                    while b + Int(h[m]) <= rank { b += Int(h[m]); m += 1 }
                    median[c] = Int32(m)
                    below[c] = Int32(b)
                    dst[4 * x + c] = UInt8(m)
                }
            }
        }
    }
}

/// The k-th smallest of `n` values (reorders them).
func _select(_ v: UnsafeMutablePointer<Float>, _ n: Int, _ k: Int) -> Float {
    var lo = 0, hi = n - 1
    while lo < hi {
        let pivot = v[(lo + hi) / 2]
        var i = lo, j = hi
        while i <= j {
            while v[i] < pivot { i += 1 }
            while v[j] > pivot { j -= 1 }
            if i <= j { let t = v[i]; v[i] = v[j]; v[j] = t; i += 1; j -= 1 }
        }
        if k <= j { hi = j } else if k >= i { lo = i } else { return v[k] }
    }
    return v[k]
}

/// Lane-wise minimum and maximum written as compare-and-select (the standard library's generic
/// float versions handle NaN lane by lane and do not vectorise).
@inline(__always) func _min(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .< a) }
@inline(__always) func _max(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }

protocol _MinMax {
    static func _lo(_ a: Self, _ b: Self) -> Self
    static func _hi(_ a: Self, _ b: Self) -> Self
}
extension SIMD4: _MinMax where Scalar == Float {
    @inline(__always) static func _lo(_ a: Self, _ b: Self) -> Self { _min(a, b) }
    @inline(__always) static func _hi(_ a: Self, _ b: Self) -> Self { _max(a, b) }
}
extension SIMD16: _MinMax where Scalar == UInt8 {
    @inline(__always) static func _lo(_ a: Self, _ b: Self) -> Self { _umin(a, b) }
    @inline(__always) static func _hi(_ a: Self, _ b: Self) -> Self { _umax(a, b) }
}

@inline(__always) func _median9<T: _MinMax>(_ p0: T, _ p1: T, _ p2: T, _ p3: T, _ p4: T, _ p5: T, _ p6: T, _ p7: T, _ p8: T) -> T {
    var p0 = p0, p1 = p1, p2 = p2, p3 = p3, p4 = p4, p5 = p5, p6 = p6, p7 = p7, p8 = p8
    @inline(__always) func s(_ a: inout T, _ b: inout T) { let t = T._lo(a, b); b = T._hi(a, b); a = t }
    s(&p1, &p2); s(&p4, &p5); s(&p7, &p8); s(&p0, &p1); s(&p3, &p4); s(&p6, &p7)
    s(&p1, &p2); s(&p4, &p5); s(&p7, &p8); s(&p0, &p3); s(&p5, &p8); s(&p4, &p7)
    s(&p3, &p6); s(&p1, &p4); s(&p2, &p5); s(&p4, &p7); s(&p4, &p2); s(&p6, &p4)
    s(&p4, &p2)
    return p4
}
