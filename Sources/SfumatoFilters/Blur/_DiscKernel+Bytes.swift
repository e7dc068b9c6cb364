import SfumatoCore

/// The disc mean on 8-bit tiles: integer prefix sums of each row (exact: a row of 2^23 pixels of
/// 255 stays below 2^31), the disc's spans summed from them, and round(sum / n) by a float
/// multiply (exact while n < 16,000, r <= 71: see `_BoxKernel`'s bytes; within its rounding beyond).
extension _DiscKernel {
    var supportsBytes: Bool { true }
    var supportsGray: Bool { true }

    func apply(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        let o = out.rect, w = input.rect.width, h = input.rect.height
        let half = spans, scale = Float(1) / Float(count)
        // Each row offset's span as offsets into a prefix row: [x - hw, x + hw + 1).
        let starts = scratch.buffer(of: Int.self, count: half.count), ends = scratch.buffer(of: Int.self, count: half.count)
        for (k, hw) in half.enumerated() {
            starts[k] = -hw
            ends[k] = hw + 1
        }
        let spanCount = half.count
        if input.channels == 1 {
            let prefix = scratch.buffer(of: Int32.self, count: (w + 1) * h)
            for y in 0..<h {
                let src = input.row(input.rect.y + y), p = prefix + y * (w + 1)
                p[0] = 0
                for i in 0..<w { p[i + 1] = p[i] &+ Int32(src[i]) }
            }
            for y in o.y..<o.maxY {
                let dst = out.row(y)
                let first = prefix + (y - reach - input.rect.y) * (w + 1) + (o.x - input.rect.x)
                for x in 0..<o.width {
                    var acc: Int32 = 0
                    for k in 0..<spanCount {
                        let p = first + k * (w + 1) + x
                        acc &+= p[ends[k]] &- p[starts[k]]
                    }
                    dst[x] = UInt8(truncatingIfNeeded: _roundedInts(SIMD4(repeating: Float(acc) * scale)).x)
                }
            }
            return
        }
        let prefix = scratch.buffer(of: SIMD4<Int32>.self, count: (w + 1) * h)
        for y in 0..<h {
            let src = UnsafeRawPointer(input.row(input.rect.y + y)), p = prefix + y * (w + 1)
            p[0] = .zero
            for i in 0..<w {
                p[i + 1] = p[i] &+ _widenedBytes(src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt8>.self))
            }
        }
        let s = SIMD4<Float>(repeating: scale), small = 255 * count < 1 << 22
        for y in o.y..<o.maxY {
            let dst = UnsafeMutableRawPointer(out.row(y))
            let first = prefix + (y - reach - input.rect.y) * (w + 1) + (o.x - input.rect.x)
            for x in 0..<o.width {
                let acc = _discSum(first + x, pitch: w + 1, starts: starts, ends: ends, spans: spanCount)
                let level = _roundedInts(_floats(acc, small: small) * s)
                dst.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: level), toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
            }
        }
    }
}

/// The sum over a disc of RGBA prefix rows: for each of `spans` rows (`pitch` apart from
/// `first`, the centre column's entry in the top row), its span [starts[k], ends[k]).
@inline(__always)
func _discSum(
    _ first: UnsafeMutablePointer<SIMD4<Int32>>, pitch: Int, starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>,
    spans: Int
) -> SIMD4<Int32> {
    var acc = SIMD4<Int32>.zero
    for k in 0..<spans {
        let p = first + k * pitch
        acc &+= p[ends[k]] &- p[starts[k]]
    }
    return acc
}
