import SfumatoCore

/// 8-bit correlation in 16-bit integers, for kernels whose weights are small multiples of a
/// power of two (the gallery's Laplacian, emboss, sharpen): every weight times 2^shift is a whole
/// number and no partial sum can leave the Int16 range, so the result is exact up to the final
/// rounding (half up), sixteen values (four pixels) per step, eight per vector operation.
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

    /// out = clamp(round((Σ w in + bias) / 2^shift)); alpha kept from the centre when `keepAlpha`
    /// (RGBA tiles; grey tiles have no alpha).
    func apply(input: ByteTile, output: ByteTile, keepAlpha: Bool) {
        let out = output.rect
        let n = out.width * input.channels
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
        let shift16 = Int16(shift)
        for y in out.y..<out.maxY {
            let d = output.row(y)
            for (t, tap) in taps.enumerated() { rows[t] = UnsafeRawPointer(input.pointer(x: out.x + tap.dx, y: y + tap.dy)) }
            var i = 0
            // Sixteen values per step: each tap's pointer and factor are loaded once for two
            // accumulators, and one saturating pack clamps and narrows both (the Laplacian on
            // 1920x1280, callgrind: 90.1 -> 74.1 M instructions).
            while i + 16 <= n {
                var lo = start, hi = start
                for t in 0..<count {
                    let v = rows[t].loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                    let w = factors[t]
                    lo &+= SIMD8<Int16>(truncatingIfNeeded: v.lowHalf) &* w
                    hi &+= SIMD8<Int16>(truncatingIfNeeded: v.highHalf) &* w
                }
                UnsafeMutableRawPointer(d + i).storeBytes(of: _packedBytes(lo &>> shift16, hi &>> shift16), as: SIMD16<UInt8>.self)
                i += 16
            }
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
            if keepAlpha && input.channels == 4 { _copyAlpha(from: input.pointer(x: out.x, y: y), to: d, count: out.width) }
        }
    }
}

/// Alpha bytes of `count` RGBA pixels from `source` into `destination` (colours untouched), four
/// pixels per step.
@inline(__always)
func _copyAlpha(from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
    let s = UnsafeRawPointer(source), d = UnsafeMutableRawPointer(destination)
    var x = 0
    while x + 4 <= count {
        let colour = d.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt32>.self) & 0x00FF_FFFF
        let alpha = s.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt32>.self) & 0xFF00_0000
        d.storeBytes(of: colour | alpha, toByteOffset: 4 * x, as: SIMD4<UInt32>.self)
        x += 4
    }
    while x < count { destination[4 * x + 3] = source[4 * x + 3]; x += 1 }
}

/// Sobel magnitude on 8-bit values: the gradients in 16-bit integers (exact), the magnitude
/// through a float square root, rounded; alpha kept. Per channel, on RGBA or grey tiles; the
/// Sobel of luma on RGBA is `_sobelGreyBytes`.
func _sobelBytes(input: ByteTile, output: ByteTile) {
    let out = output.rect, step = input.channels
    for y in out.y..<out.maxY {
        _sobelRow(
            above: UnsafeRawPointer(input.pointer(x: out.x - 1, y: y - 1)),
            row: UnsafeRawPointer(input.pointer(x: out.x - 1, y: y)),
            below: UnsafeRawPointer(input.pointer(x: out.x - 1, y: y + 1)),
            into: output.row(y), count: out.width * step, step: step)
        if step == 4 { _copyAlpha(from: input.pointer(x: out.x, y: y), to: output.row(y), count: out.width) }
    }
}

/// Sobel magnitude of luma on 8-bit values, written to R, G and B (alpha kept): luma = w · RGB in
/// float levels (not rounded to 8 bits, as the float path computes it), one row of one channel per
/// input row, each computed once and kept for the three output rows that read it; the gradient
/// four pixels per step on those rows. A quarter of the per-channel work.
func _sobelGreyBytes(input: ByteTile, output: ByteTile, weights: SIMD4<Float>, scratch: TileScratch) {
    let out = output.rect
    let w = out.width + 2  // columns out.x - 1 ... out.maxX
    let stride = (w + 3) & ~3
    let rows = scratch.buffer(of: Float.self, count: 3 * stride + 4)
    let wr = SIMD4<Float>(repeating: weights.x), wg = SIMD4<Float>(repeating: weights.y), wb = SIMD4<Float>(repeating: weights.z)
    /// Luma of image row y into buffer slot y mod 3.
    func luma(_ y: Int) -> UnsafeMutablePointer<Float> {
        let l = rows + ((y % 3 + 3) % 3) * stride
        let s = UnsafeRawPointer(input.pointer(x: out.x - 1, y: y))
        var x = 0
        while x + 4 <= w {
            let v = s.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<Int32>.self)
            let (r, g, b) = _channelLevels(v)
            UnsafeMutableRawPointer(l + x).storeBytes(of: r * wr + g * wg + b * wb, as: SIMD4<Float>.self)
            x += 4
        }
        while x < w {
            let p = s + 4 * x
            l[x] =
                Float(p.load(as: UInt8.self)) * weights.x + Float(p.load(fromByteOffset: 1, as: UInt8.self)) * weights.y
                + Float(p.load(fromByteOffset: 2, as: UInt8.self)) * weights.z
            x += 1
        }
        return l
    }
    _ = luma(out.y - 1)
    _ = luma(out.y)
    for y in out.y..<out.maxY {
        let c = luma(y + 1)
        let a = rows + (((y - 1) % 3 + 3) % 3) * stride, b = rows + ((y % 3 + 3) % 3) * stride
        let d = UnsafeMutableRawPointer(output.row(y))
        let centre = UnsafeRawPointer(input.pointer(x: out.x, y: y))
        var x = 0
        while x + 4 <= out.width {
            @inline(__always) func ld(_ p: UnsafeMutablePointer<Float>, _ dx: Int) -> SIMD4<Float> {
                UnsafeRawPointer(p + x + dx).loadUnaligned(as: SIMD4<Float>.self)
            }
            let a0 = ld(a, 0), a1 = ld(a, 1), a2 = ld(a, 2), c0 = ld(c, 0), c1 = ld(c, 1), c2 = ld(c, 2)
            let gx = (a2 - a0) + 2 * (ld(b, 2) - ld(b, 0)) + (c2 - c0)
            let gy = (c0 - a0) + 2 * (c1 - a1) + (c2 - a2)
            var m = _roundedInts((gx * gx + gy * gy).squareRoot())
            m = m | ((255 &- m) &>> 31)  // above 255 -> all ones
            m &= 0xFF
            let alpha = centre.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<Int32>.self) & Int32(bitPattern: 0xFF00_0000)
            d.storeBytes(of: m | (m &<< 8) | (m &<< 16) | alpha, toByteOffset: 4 * x, as: SIMD4<Int32>.self)
            x += 4
        }
        while x < out.width {
            let gx = (a[x + 2] - a[x]) + 2 * (b[x + 2] - b[x]) + (c[x + 2] - c[x])
            let gy = (c[x] - a[x]) + 2 * (c[x + 1] - a[x + 1]) + (c[x + 2] - a[x + 2])
            let m = UInt8(clamping: _roundedInts(SIMD4(repeating: (gx * gx + gy * gy).squareRoot()))[0])
            d.storeBytes(of: m, toByteOffset: 4 * x, as: UInt8.self)
            d.storeBytes(of: m, toByteOffset: 4 * x + 1, as: UInt8.self)
            d.storeBytes(of: m, toByteOffset: 4 * x + 2, as: UInt8.self)
            d.storeBytes(of: centre.load(fromByteOffset: 4 * x + 3, as: UInt8.self), toByteOffset: 4 * x + 3, as: UInt8.self)
            x += 1
        }
    }
}

/// One row of Sobel magnitudes: `count` bytes from rows that start one pixel left of the output,
/// neighbours `step` bytes apart (4 for RGBA, 1 for grey).
///
/// Sixteen bytes per step, read as eight 16-bit lanes: the low byte of each lane holds the even
/// bytes, the high byte the odd ones, so both halves come out with a mask and a shift, never a
/// widening conversion (the generic ones stay calls in a loop like this, 2x slower). A load
/// `step` bytes further keeps each byte's parity for RGBA (R, B even; G, A odd) and moves grey
/// pixels along by one: either way lane j of each half lines up with its own neighbours.
@inline(never)
func _sobelRow(
    above a: UnsafeRawPointer, row b: UnsafeRawPointer, below c: UnsafeRawPointer,
    into d: UnsafeMutablePointer<UInt8>, count n: Int, step: Int
) {
    var i = 0
    while i + 16 <= n {
        @inline(__always) func ld(_ p: UnsafeRawPointer, _ dx: Int) -> SIMD8<UInt16> {
            p.loadUnaligned(fromByteOffset: i + step * dx, as: SIMD8<UInt16>.self)
        }
        let a0 = ld(a, 0), a1 = ld(a, 1), a2 = ld(a, 2), b0 = ld(b, 0), b2 = ld(b, 2), c0 = ld(c, 0), c1 = ld(c, 1), c2 = ld(c, 2)
        @inline(__always) func lo(_ v: SIMD8<UInt16>) -> SIMD8<Int16> { unsafeBitCast(v & 0xFF, to: SIMD8<Int16>.self) }
        @inline(__always) func hi(_ v: SIMD8<UInt16>) -> SIMD8<Int16> { unsafeBitCast(v &>> 8, to: SIMD8<Int16>.self) }
        let even = _sobelMagnitudes(lo(a0), lo(a1), lo(a2), lo(b0), lo(b2), lo(c0), lo(c1), lo(c2))
        let odd = _sobelMagnitudes(hi(a0), hi(a1), hi(a2), hi(b0), hi(b2), hi(c0), hi(c1), hi(c2))
        UnsafeMutableRawPointer(d + i).storeBytes(of: even | (odd &<< 8), as: SIMD8<Int16>.self)
        i += 16
    }
    while i < n {
        func v(_ p: UnsafeRawPointer, _ dx: Int) -> Int32 { Int32(p.load(fromByteOffset: i + step * dx, as: UInt8.self)) }
        let gx = (v(a, 2) - v(a, 0)) + 2 * (v(b, 2) - v(b, 0)) + (v(c, 2) - v(c, 0))
        let gy = (v(c, 0) - v(a, 0)) + 2 * (v(c, 1) - v(a, 1)) + (v(c, 2) - v(a, 2))
        d[i] = UInt8(min(Float(gx * gx + gy * gy).squareRoot() + 0.5, 255))
        i += 1
    }
}

/// min(⌊√(Gx² + Gy²) + ½⌋, 255) for eight lanes of 0...255 values around each centre (the
/// three pixels above, left and right, the three below), in 16-bit lanes. The squares need 32
/// bits: even and odd lanes are split with shifts and joined back in place.
@inline(__always)
func _sobelMagnitudes(
    _ a0: SIMD8<Int16>, _ a1: SIMD8<Int16>, _ a2: SIMD8<Int16>, _ b0: SIMD8<Int16>, _ b2: SIMD8<Int16>,
    _ c0: SIMD8<Int16>, _ c1: SIMD8<Int16>, _ c2: SIMD8<Int16>
) -> SIMD8<Int16> {
    let gx = (a2 &- a0) &+ ((b2 &- b0) &<< 1) &+ (c2 &- c0)
    let gy = (c0 &- a0) &+ ((c1 &- a1) &<< 1) &+ (c2 &- a2)
    let x = unsafeBitCast(gx, to: SIMD4<Int32>.self), y = unsafeBitCast(gy, to: SIMD4<Int32>.self)
    let xe = (x &<< 16) &>> 16, xo = x &>> 16, ye = (y &<< 16) &>> 16, yo = y &>> 16
    let me = _roundedHypot(xe, ye), mo = _roundedHypot(xo, yo)
    let m = unsafeBitCast(me | (mo &<< 16), to: SIMD8<Int16>.self)
    return (m | ((255 &- m) &>> 15)) & 0xFF  // above 255 -> all ones -> 255
}

/// ⌊√(x² + y²) + ½⌋ per lane for |x|, |y| < 2¹¹, without per-lane conversion calls. The squares
/// are summed as floats, so the optimiser can see the root's argument is never negative and uses
/// sqrtps without an errno fallback. √ of an integer is never k + ½, so rounding to nearest is
/// rounding half up.
@inline(__always)
func _roundedHypot(_ x: SIMD4<Int32>, _ y: SIMD4<Int32>) -> SIMD4<Int32> {
    let fx = _float(fromSmallInts: x), fy = _float(fromSmallInts: y)
    return _roundedInts((fx * fx + fy * fy).squareRoot())
}

/// 16-bit lanes clamped to 0...255 as bytes, in bit operations that compile to one packuswb
/// (comparisons on integer SIMD lanes are built lane by lane by the standard library).
@inline(__always)
func _saturatedBytes(_ v: SIMD8<Int16>) -> SIMD8<UInt8> {
    let t = v & ~(v &>> 15)  // negatives to 0
    let u = t | ((255 &- t) &>> 15)  // above 255 to all ones
    return SIMD8<UInt8>(truncatingIfNeeded: u)
}
