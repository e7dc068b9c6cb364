import SfumatoCore

/// The motion blur's box (an axis-aligned angle with a whole-pixel step) in linear light on words
/// (``_LinearWords``): the 8-bit route's running sums over decoded words, each mean encoded
/// through a table; within one level of the float route for the box's reasons (see
/// `_BoxKernel+Linear.swift`). A box of 2n + 1 words sums below 2^31 for every radius the filter
/// takes. Other angles keep floats: their bilinear taps gain nothing from words.
extension _MotionKernel {
    var supportsLinearBytes: Bool { box.map { 65280 * (2 * $0.half + 1) < Int(Int32.max) } ?? false }

    func applyLinear(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        guard let (half, vertical) = box else { throw SfumatoError.unsupported("\(name): no word route for \(detail)") }
        precondition(input.channels == 4 && out.channels == 4, "linear-light tiles are RGBA")
        let words = _LinearWords.shared
        let decode = words.decode, encode = words.encode(offset: 0)
        let o = out.rect, m = 2 * half + 1
        let scale = SIMD4<Float>(repeating: 1 / Float(m))
        @inline(__always) func word(_ p: UnsafeMutablePointer<UInt8>) -> SIMD4<Int32> { _linearWords(p, decode) }
        @inline(__always) func store(_ dst: UnsafeMutableRawPointer, _ x: Int, _ sum: SIMD4<Int32>) {
            dst.storeBytes(of: _encodedMean(sum, scale, encode), toByteOffset: 4 * x, as: UInt32.self)
        }
        if vertical {
            // Column sums over rows y - half...y + half, moved down a row at a time.
            let acc = scratch.buffer(of: SIMD4<Int32>.self, count: o.width)
            acc.update(repeating: .zero, count: o.width)
            for j in (o.y - half)...(o.y + half) {
                let row = input.pointer(x: o.x, y: j)
                for x in 0..<o.width { acc[x] &+= word(row + 4 * x) }
            }
            for y in o.y..<o.maxY {
                if y > o.y {
                    let plus = input.pointer(x: o.x, y: y + half), minus = input.pointer(x: o.x, y: y - half - 1)
                    for x in 0..<o.width { acc[x] &+= word(plus + 4 * x) &- word(minus + 4 * x) }
                }
                let dst = UnsafeMutableRawPointer(out.row(y))
                for x in 0..<o.width { store(dst, x, acc[x]) }
            }
            return
        }
        // Across: a running sum along each row.
        for y in o.y..<o.maxY {
            let src = input.pointer(x: o.x - half, y: y), dst = UnsafeMutableRawPointer(out.row(y))
            var sum = SIMD4<Int32>.zero
            for j in 0..<m { sum &+= word(src + 4 * j) }
            store(dst, 0, sum)
            for x in 1..<max(1, o.width) {
                sum &+= word(src + 4 * (x + m - 1)) &- word(src + 4 * (x - 1))
                store(dst, x, sum)
            }
        }
    }
}
