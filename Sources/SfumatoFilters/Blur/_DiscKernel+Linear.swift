import SfumatoCore

/// The disc mean in linear light on words (``_LinearWords``): the 8-bit route's prefix sums over
/// each row's decoded words, and each mean encoded through a table. Within one level of the float
/// route for the box's reasons (see `_BoxKernel+Linear.swift`). Prefix sums wrap in 32 bits; the
/// spans' differences come out right while a disc's sum fits in 32 unsigned bits, 65280 x n <
/// 2^32, n up to 65,793 pixels (a radius of about 144); wider discs keep floats.
extension _DiscKernel {
    var supportsLinearBytes: Bool { count < 65_793 }

    func applyLinear(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        precondition(input.channels == 4 && out.channels == 4, "linear-light tiles are RGBA")
        let words = _LinearWords.shared
        let decode = words.decode, encode = words.encode(offset: 0)
        let o = out.rect, w = input.rect.width, h = input.rect.height
        let half = spans
        let starts = scratch.buffer(of: Int.self, count: half.count), ends = scratch.buffer(of: Int.self, count: half.count)
        for (k, hw) in half.enumerated() {
            starts[k] = -hw
            ends[k] = hw + 1
        }
        let prefix = scratch.buffer(of: SIMD4<Int32>.self, count: (w + 1) * h)
        for y in 0..<h {
            let src = input.row(input.rect.y + y), p = prefix + y * (w + 1)
            p[0] = .zero
            for i in 0..<w {
                p[i + 1] = p[i] &+ _linearWords(src + 4 * i, decode)
            }
        }
        let scale = SIMD4<Float>(repeating: 1 / Float(count)), spanCount = half.count
        for y in o.y..<o.maxY {
            let dst = UnsafeMutableRawPointer(out.row(y))
            let first = prefix + (y - reach - input.rect.y) * (w + 1) + (o.x - input.rect.x)
            for x in 0..<o.width {
                let acc = _discSum(first + x, pitch: w + 1, starts: starts, ends: ends, spans: spanCount)
                dst.storeBytes(of: _encodedMean(acc, scale, encode), toByteOffset: 4 * x, as: UInt32.self)
            }
        }
    }
}
