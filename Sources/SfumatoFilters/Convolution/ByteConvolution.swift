import SfumatoCore

/// 8-bit correlation in 16-bit integers, for kernels whose weights are small multiples of a
/// power of two (the gallery's Laplacian, emboss, sharpen): every weight times 2^shift is a whole
/// number and no partial sum can leave the Int16 range, so the result is exact up to the final
/// rounding (half up), eight values (two pixels) per vector operation.
struct _IntegerKernel: Sendable {
    let width: Int
    let height: Int
    /// Weights times 2^shift, row-major.
    let weights: [Int16]
    let shift: Int
    /// Bias times 255 times 2^shift.
    let bias: Int32

    init?(width: Int, height: Int, weights: [Float], bias: Float) {
        for shift in 0...6 {
            let scale = Float(1 << shift)
            let scaled = weights.map { $0 * scale }
            guard scaled.allSatisfy({ $0 == $0.rounded() && abs($0) <= 255 }) else { continue }
            let b = bias * 255 * scale
            guard b == b.rounded() else { continue }
            // Worst case partial sums over 8-bit inputs must fit Int16.
            let positive = scaled.filter { $0 > 0 }.reduce(0, +) * 255, negative = scaled.filter { $0 < 0 }.reduce(0, +) * 255
            guard positive + max(b, 0) + Float(1 << shift) <= 32767, negative + min(b, 0) >= -32768 else { return nil }
            self.width = width
            self.height = height
            self.weights = scaled.map { Int16($0) }
            self.shift = shift
            self.bias = Int32(b)
            return
        }
        return nil
    }

    /// out = clamp(round((Σ w in + bias) / 2^shift)); alpha kept from the centre when `keepAlpha`.
    func apply(input: ByteTile, output: ByteTile, keepAlpha: Bool) {
        let out = output.rect
        let n = out.width * 4
        let rx = width / 2, ry = height / 2
        let round = Int16(shift > 0 ? 1 << (shift - 1) : 0)
        let taps: [(dx: Int, dy: Int, w: Int16)] = (0..<(width * height)).compactMap { i in
            weights[i] == 0 ? nil : (i % width - rx, i / width - ry, weights[i])
        }
        let start = SIMD8<Int16>(repeating: Int16(truncatingIfNeeded: bias) &+ round)
        let count = taps.count
        // Hot loop on raw pointers: no array bounds checks or reference counting per vector.
        let rows = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: count)
        let factors = UnsafeMutablePointer<SIMD8<Int16>>.allocate(capacity: count)
        defer { rows.deallocate(); factors.deallocate() }
        for (t, tap) in taps.enumerated() { factors[t] = SIMD8(repeating: tap.w) }
        for y in out.y..<out.maxY {
            let d = output.row(y)
            for (t, tap) in taps.enumerated() { rows[t] = UnsafeRawPointer(input.pointer(x: out.x + tap.dx, y: y + tap.dy)) }
            var i = 0
            while i + 8 <= n {
                var acc = start
                for t in 0..<count {
                    let v = SIMD8<Int16>(truncatingIfNeeded: rows[t].loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self))
                    acc &+= v &* factors[t]
                }
                UnsafeMutableRawPointer(d + i).storeBytes(of: _saturatedBytes(acc &>> Int16(shift)), as: SIMD8<UInt8>.self)
                i += 8
            }
            while i < n {
                var acc = Int32(bias) + Int32(round)
                for t in 0..<count { acc += Int32(rows[t].load(fromByteOffset: i, as: UInt8.self)) * Int32(factors[t][0]) }
                d[i] = UInt8(min(max(acc >> Int32(shift), 0), 255))
                i += 1
            }
            if keepAlpha {
                let c = input.pointer(x: out.x, y: y)
                for x in 0..<out.width { d[4 * x + 3] = c[4 * x + 3] }
            }
        }
    }
}

/// Sobel magnitude on 8-bit values: the gradients in 16-bit integers (exact), the magnitude
/// through a float square root, rounded; alpha kept.
func _sobelBytes(input: ByteTile, output: ByteTile, grey: SIMD4<Float>?, scratch: TileScratch) {
    let out = output.rect
    var source = input
    if let g = grey {
        // Luma first (rounded to 8 bits would lose precision: keep it exact by working on the
        // float path instead). Callers only take this path without grey weights.
        _ = g
        source = input
    }
    let n = out.width * 4
    for y in out.y..<out.maxY {
        let a = UnsafeRawPointer(source.pointer(x: out.x - 1, y: y - 1))
        let b = UnsafeRawPointer(source.pointer(x: out.x - 1, y: y))
        let c = UnsafeRawPointer(source.pointer(x: out.x - 1, y: y + 1))
        let d = output.row(y)
        var i = 0
        while i + 8 <= n {
            func ld(_ p: UnsafeRawPointer, _ dx: Int) -> SIMD8<Int16> {
                SIMD8<Int16>(truncatingIfNeeded: p.loadUnaligned(fromByteOffset: i + 4 * dx, as: SIMD8<UInt8>.self))
            }
            let gx = (ld(a, 2) &- ld(a, 0)) &+ ((ld(b, 2) &- ld(b, 0)) &<< 1) &+ (ld(c, 2) &- ld(c, 0))
            let gy = (ld(c, 0) &- ld(a, 0)) &+ ((ld(c, 1) &- ld(a, 1)) &<< 1) &+ (ld(c, 2) &- ld(a, 2))
            let lo = SIMD4<Int32>(truncatingIfNeeded: gx.lowHalf), hi = SIMD4<Int32>(truncatingIfNeeded: gx.highHalf)
            let ylo = SIMD4<Int32>(truncatingIfNeeded: gy.lowHalf), yhi = SIMD4<Int32>(truncatingIfNeeded: gy.highHalf)
            let m0 = SIMD4<Float>(lo &* lo &+ ylo &* ylo), m1 = SIMD4<Float>(hi &* hi &+ yhi &* yhi)
            var r = SIMD8<UInt8>()
            for k in 0..<4 {
                r[k] = UInt8(min(m0[k].squareRoot() + 0.5, 255))
                r[k + 4] = UInt8(min(m1[k].squareRoot() + 0.5, 255))
            }
            UnsafeMutableRawPointer(d + i).storeBytes(of: r, as: SIMD8<UInt8>.self)
            i += 8
        }
        while i < n {
            func v(_ p: UnsafeRawPointer, _ dx: Int) -> Int32 { Int32(p.load(fromByteOffset: i + 4 * dx, as: UInt8.self)) }
            let gx = (v(a, 2) - v(a, 0)) + 2 * (v(b, 2) - v(b, 0)) + (v(c, 2) - v(c, 0))
            let gy = (v(c, 0) - v(a, 0)) + 2 * (v(c, 1) - v(a, 1)) + (v(c, 2) - v(a, 2))
            d[i] = UInt8(min(Float(gx * gx + gy * gy).squareRoot() + 0.5, 255))
            i += 1
        }
        let centre = input.pointer(x: out.x, y: y)
        for x in 0..<out.width { d[4 * x + 3] = centre[4 * x + 3] }
    }
}

/// 16-bit lanes clamped to 0...255 as bytes, in bit operations that compile to one packuswb
/// (comparisons on integer SIMD lanes are built lane by lane by the standard library).
@inline(__always)
func _saturatedBytes(_ v: SIMD8<Int16>) -> SIMD8<UInt8> {
    let t = v & ~(v &>> 15)               // negatives to 0
    let u = t | ((255 &- t) &>> 15)       // above 255 to all ones
    return SIMD8<UInt8>(truncatingIfNeeded: u)
}
