import SfumatoCore

/// The cell means in linear light on words (``_LinearWords``), as the box mean's: each byte
/// decoded to its word, a cell's words summed and the mean encoded through a table. A word is
/// within half a unit of its byte's linear value and the rounded mean within another half: one
/// unit, below the 19.8 of the darkest level step, so every byte is the float route's or its
/// neighbour. Sums come out right in 32 unsigned bits while 65280 n < 2^32: cells of up to
/// 256 x 256 pixels.
extension _CellMeanKernel {
    var supportsLinearBytes: Bool { size <= 256 }

    func applyLinear(input: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        precondition(input.channels == 4 && out.channels == 4, "linear-light tiles are RGBA")
        let words = _LinearWords.shared
        let decode = UnsafePointer(words.decode), encode = words.encode(offset: 0)
        let o = out.rect, scale = SIMD4<Float>(repeating: 1 / Float(size * size))
        forEachCell(in: o) { cx, cy, rows, columns in
            var acc = SIMD4<Int32>.zero
            for y in cy..<(cy + size) {
                let src = input.pointer(x: cx, y: y)
                for i in 0..<size { acc &+= _linearWords(src + 4 * i, decode) }
            }
            let mean = _encodedMean(acc, scale, encode)
            for y in rows {
                let dst = UnsafeMutableRawPointer(out.pointer(x: columns.lowerBound, y: y))
                for i in 0..<columns.count { dst.storeBytes(of: mean, toByteOffset: 4 * i, as: UInt32.self) }
            }
        }
    }
}
