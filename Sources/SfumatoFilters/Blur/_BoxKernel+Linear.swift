import SfumatoCore

/// The box mean in linear light on words (``_LinearWords``): each input row decoded to words
/// once, the 8-bit route's running sums over them, and each mean encoded through a table.
///
/// A word is its byte's linear value within half a unit, so the mean of the words is the mean of
/// the linear values within half a unit, and rounding it to a word adds at most another half: one
/// unit in all, against the 19.8 units of the darkest level step, so every byte is the float
/// route's or its neighbour. Sums wrap in 32 bits and come out right while the window's sum fits
/// in 32 unsigned bits: 65280 x (2r + 1)^2 < 2^32 for r up to 127; wider boxes keep floats.
extension _BoxKernel {
    var supportsLinearBytes: Bool { r <= 127 }

    func applyLinear(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        precondition(input.channels == 4 && out.channels == 4, "linear-light tiles are RGBA")
        let words = _LinearWords.shared
        let decode = words.decode, encode = words.encode(offset: 0)
        let o = out.rect, rows = input.rect.height, side = 2 * r + 1, span = o.width + 2 * r
        // One input row at a time as words (alpha left out: the tiles are opaque).
        let decoded = scratch.buffer(of: SIMD4<Int32>.self, count: span)
        let mid = scratch.buffer(of: SIMD4<Int32>.self, count: o.width * rows)
        for j in 0..<rows {
            let src = input.row(input.rect.y + j) + 4 * (o.x - r - input.rect.x)
            for i in 0..<span {
                decoded[i] = _linearWords(src + 4 * i, decode)
            }
            let dst = mid + j * o.width
            var acc = SIMD4<Int32>.zero
            for i in 0..<side { acc &+= decoded[i] }
            dst[0] = acc
            for x in 1..<o.width {
                acc &+= decoded[x + 2 * r] &- decoded[x - 1]
                dst[x] = acc
            }
        }
        let acc = scratch.buffer(of: SIMD4<Int32>.self, count: o.width)
        _columnSums(mid, o.width, first: o.y - input.rect.y - r, side: side, into: acc)
        let scale = SIMD4<Float>(repeating: 1 / Float(side * side))
        for y in o.y..<o.maxY {
            if y > o.y { _slide(mid, o.width, adding: y - input.rect.y + r, removing: y - input.rect.y - r - 1, acc) }
            let dst = UnsafeMutableRawPointer(out.row(y))
            for x in 0..<o.width { dst.storeBytes(of: _encodedMean(acc[x], scale, encode), toByteOffset: 4 * x, as: UInt32.self) }
        }
    }
}
