import SfumatoCore

/// The box mean on 8-bit tiles: integer running sums across, then down a row at a time, and
/// round(sum / n) for n = (2r + 1)^2. Sums stay below 2^31 for every radius (255 x 501^2), so
/// they are exact; the division is a float multiply, exact for r <= 62 (the nearest a mean of
/// integers comes to a half is 1 / 2n, more than the product's error) and within its rounding
/// for wider boxes. The float route reads each byte as b / 255 and gives the same level there.
extension _BoxKernel {
    var supportsBytes: Bool { true }
    var supportsGray: Bool { true }

    func apply(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        let o = out.rect, rows = input.rect.height, side = 2 * r + 1
        let scale = 1 / Float(side * side)
        if input.channels == 1 {
            let mid = scratch.buffer(of: Int32.self, count: o.width * rows)
            for j in 0..<rows {
                let src = input.row(input.rect.y + j) - input.rect.x, dst = mid + j * o.width
                var acc: Int32 = 0
                for x in (o.x - r)...(o.x + r) { acc &+= Int32(src[x]) }
                dst[0] = acc
                for x in (o.x + 1)..<o.maxX {
                    acc &+= Int32(src[x + r]) &- Int32(src[x - r - 1])
                    dst[x - o.x] = acc
                }
            }
            let acc = scratch.buffer(of: Int32.self, count: o.width)
            _columnSums(mid, o.width, first: o.y - input.rect.y - r, side: side, into: acc)
            for y in o.y..<o.maxY {
                if y > o.y { _slide(mid, o.width, adding: y - input.rect.y + r, removing: y - input.rect.y - r - 1, acc) }
                let dst = out.row(y)
                for x in 0..<o.width { dst[x] = UInt8(truncatingIfNeeded: _roundedInts(SIMD4(repeating: Float(acc[x]) * scale)).x) }
            }
            return
        }
        let mid = scratch.buffer(of: SIMD4<Int32>.self, count: o.width * rows)
        for j in 0..<rows {
            let src = UnsafeRawPointer(input.row(input.rect.y + j) - 4 * input.rect.x), dst = mid + j * o.width
            @inline(__always) func px(_ x: Int) -> SIMD4<Int32> {
                _widenedBytes(src.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt8>.self))
            }
            var acc = SIMD4<Int32>.zero
            for x in (o.x - r)...(o.x + r) { acc &+= px(x) }
            dst[0] = acc
            for x in (o.x + 1)..<o.maxX {
                acc &+= px(x + r) &- px(x - r - 1)
                dst[x - o.x] = acc
            }
        }
        let acc = scratch.buffer(of: SIMD4<Int32>.self, count: o.width)
        _columnSums(mid, o.width, first: o.y - input.rect.y - r, side: side, into: acc)
        let s = SIMD4<Float>(repeating: scale), small = 255 * side * side < 1 << 22
        for y in o.y..<o.maxY {
            if y > o.y { _slide(mid, o.width, adding: y - input.rect.y + r, removing: y - input.rect.y - r - 1, acc) }
            let dst = UnsafeMutableRawPointer(out.row(y))
            for x in 0..<o.width {
                let level = _roundedInts(_floats(acc[x], small: small) * s)
                dst.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: level), toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
            }
        }
    }
}

/// `acc[x]` = the sum of `side` rows of `mid` (rows `width` apart) from row `first`.
@inline(__always)
func _columnSums<T: SIMD>(_ mid: UnsafeMutablePointer<T>, _ width: Int, first: Int, side: Int, into acc: UnsafeMutablePointer<T>)
where T.Scalar: FixedWidthInteger {
    acc.update(repeating: .zero, count: width)
    for j in first..<(first + side) {
        let row = mid + j * width
        for x in 0..<width { acc[x] &+= row[x] }
    }
}

@inline(__always)
func _columnSums(_ mid: UnsafeMutablePointer<Int32>, _ width: Int, first: Int, side: Int, into acc: UnsafeMutablePointer<Int32>) {
    acc.update(repeating: 0, count: width)
    for j in first..<(first + side) {
        let row = mid + j * width
        for x in 0..<width { acc[x] &+= row[x] }
    }
}

/// Moves the column sums down a row: row `adding` in, row `removing` out.
@inline(__always)
func _slide<T: SIMD>(_ mid: UnsafeMutablePointer<T>, _ width: Int, adding: Int, removing: Int, _ acc: UnsafeMutablePointer<T>)
where T.Scalar: FixedWidthInteger {
    let plus = mid + adding * width, minus = mid + removing * width
    for x in 0..<width { acc[x] &+= plus[x] &- minus[x] }
}

@inline(__always)
func _slide(_ mid: UnsafeMutablePointer<Int32>, _ width: Int, adding: Int, removing: Int, _ acc: UnsafeMutablePointer<Int32>) {
    let plus = mid + adding * width, minus = mid + removing * width
    for x in 0..<width { acc[x] &+= plus[x] &- minus[x] }
}

/// Integer sums as floats: through the exact small-integer route when every sum is below 2^22
/// (`small`), else the generic conversion.
@inline(__always)
func _floats(_ v: SIMD4<Int32>, small: Bool) -> SIMD4<Float> {
    small ? _float(fromSmallInts: v) : SIMD4<Float>(v)
}
