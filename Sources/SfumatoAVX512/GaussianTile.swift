// The 8-bit Gaussian of a whole tile with 512-bit vectors, in three steps: the input bytes to
// 16-bit words (value x 256), once per value; the vertical pass over those words, in column
// strips that keep the 2r+1 rows it reads in L1; then the horizontal pass row by row, and the
// words back to bytes. The arithmetic per value is the baseline kernel's (GaussianKernel.swift:
// pavgw of a symmetric pair, pmulhuw by its 0.16 weight, 16-bit sums, +128 and the high byte),
// so the bytes are identical. Opaque RGBA tiles leave alpha out (it would come out 255 again):
// a quarter less work, the one thing the baseline cannot skip.

#if arch(x86_64)
import _Builtin_intrinsics.intel

/// Where a tile's pixels are and what they are.
public struct _GaussianTileLayout {
    /// Output size in pixels.
    public var width: Int, height: Int
    /// Bytes a pixel: 4 (RGBA) or 1 (grey).
    public var bytesPerPixel: Int
    /// RGBA whose input region may be all opaque: only R, G, B are filtered and alpha is
    /// written 255 if it is (the tile checks as it reads).
    public var dropAlpha: Bool
    public init(width: Int, height: Int, bytesPerPixel: Int, dropAlpha: Bool) {
        self.width = width; self.height = height; self.bytesPerPixel = bytesPerPixel; self.dropAlpha = dropAlpha
    }
    /// 16-bit values a pixel in the passes.
    var words: Int { dropAlpha ? 3 : bytesPerPixel }
    /// Words from one row of the word buffers to the next: the passes run in whole 128-word
    /// steps and read up to 128 words past a row's last value.
    func rowWords(radius r: Int) -> Int { (((width + 2 * r) * words + 127) & ~127) + 128 }
    /// The words of scratch `_gaussianTileAVX512` needs (alpha included: it may be needed).
    public func scratchWords(radius r: Int) -> Int {
        var all = self
        all.dropAlpha = false
        return (2 * height + 2 * r + 1) * all.rowWords(radius: r) + 256
    }
}

/// Blurs one tile: `input` is pixel (−r, −r) of the output's input region (rows `inputStride`
/// bytes apart), `output` pixel (0, 0) (rows `outputStride` bytes apart). `pairs[k]` is twice
/// the 0.16 weight at distance k, `centre` the centre weight. `scratch` holds
/// `layout.scratchWords(radius:)` words.
@inline(never)
public func _gaussianTileAVX512(input: UnsafeRawPointer, inputStride: Int, output: UnsafeMutableRawPointer, outputStride: Int,
                                layout: _GaussianTileLayout, radius r: Int, centre: UInt16, pairs: UnsafePointer<UInt16>,
                                scratch: UnsafeMutablePointer<UInt16>) {
    // Opaque RGBA leaves alpha out; the first alpha below 255 met while converting starts the
    // conversion again with it.
    var layout = layout
    let inRows = layout.height + 2 * r
    var converted = false
    if layout.dropAlpha {
        let rowWords = layout.rowWords(radius: r)
        converted = (0..<inRows).allSatisfy { y in
            _wordsFromBytes(input + y * inputStride, pixels: layout.width + 2 * r, layout: layout,
                            into: UnsafeMutableRawPointer(scratch) + 2 * y * rowWords)
        }
        layout.dropAlpha = converted
    }
    let rowWords = layout.rowWords(radius: r), inWords = (layout.width + 2 * r) * layout.words
    let source = UnsafeMutableRawPointer(scratch)                        // inRows rows of words
    let vertical = source + 2 * inRows * rowWords                          // height rows of words
    let line = vertical + 2 * layout.height * rowWords                     // one output row of words
    if !converted {
        for y in 0..<inRows {
            _ = _wordsFromBytes(input + y * inputStride, pixels: layout.width + 2 * r, layout: layout, into: source + 2 * y * rowWords)
        }
    }
    withUnsafeTemporaryAllocation(of: __m512i.self, capacity: r + 1) { w in
        for k in 1...r { w[k] = _mm512_set1_epi16(Int16(bitPattern: pairs[k])) }
        let weights = UnsafePointer(w.baseAddress!)
        _verticalWords(source, rowBytes: 2 * rowWords, rows: layout.height, radius: r, centre: centre, weights: weights,
                       count: inWords, into: vertical)
        for y in 0..<layout.height {
            _horizontalWords(vertical + 2 * (y * rowWords + r * layout.words), step: layout.words, radius: r, centre: centre,
                             weights: weights, count: layout.width * layout.words, into: line)
            _bytesFromWords(line, pixels: layout.width, layout: layout, into: output + y * outputStride)
        }
    }
}

/// A byte index table for vpermb/vpermt2b from a closure of the output byte.
@inline(__always)
private func _table(_ f: (Int) -> Int) -> __m512i {
    var t = SIMD64<UInt8>()
    for i in 0..<64 { t[i] = UInt8(truncatingIfNeeded: f(i)) }
    return unsafeBitCast(t, to: __m512i.self)
}

/// One row of pixels to words (byte x 256): every byte, or R, G, B of RGBA. Leaving alpha out,
/// returns false (and stops) at the first alpha below 255.
@inline(__always)
private func _wordsFromBytes(_ s: UnsafeRawPointer, pixels: Int, layout: _GaussianTileLayout, into d: UnsafeMutableRawPointer) -> Bool {
    let odd: UInt64 = 0xAAAA_AAAA_AAAA_AAAA           // the high byte of each word
    if layout.dropAlpha {
        // 32 pixels (128 bytes) -> 96 words; word g of the three outputs is channel g % 3 of pixel g / 3.
        let t0 = _table { ($0 / 2 / 3) * 4 + ($0 / 2) % 3 }
        let t1 = _table { ((32 + $0 / 2) / 3) * 4 + (32 + $0 / 2) % 3 }
        let t2 = _table { ((64 + $0 / 2) / 3) * 4 + (64 + $0 / 2) % 3 }
        let full = _mm512_set1_epi8(-1), alphaBytes: UInt64 = 0x8888_8888_8888_8888
        let bytes = 4 * pixels
        var i = 0, o = 0
        while i < bytes {
            let n = bytes &- i
            let m0: UInt64 = n >= 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let m1: UInt64 = n >= 128 ? ~0 : (n <= 64 ? 0 : (1 &<< UInt64(n &- 64)) &- 1)
            let a = _mm512_maskz_loadu_epi8(m0, s + i), b = _mm512_maskz_loadu_epi8(m1, s + (i &+ 64))
            // 255 - byte, tested at the alpha bytes actually loaded.
            let missingA = _mm512_andnot_si512(a, full), missingB = _mm512_andnot_si512(b, full)
            if _mm512_mask_test_epi8_mask(m0 & alphaBytes, missingA, missingA) | _mm512_mask_test_epi8_mask(m1 & alphaBytes, missingB, missingB) != 0 {
                return false
            }
            d.storeBytes(of: _mm512_maskz_permutex2var_epi8(odd, a, t0, b), toByteOffset: o, as: __m512i.self)
            d.storeBytes(of: _mm512_maskz_permutex2var_epi8(odd, a, t1, b), toByteOffset: o &+ 64, as: __m512i.self)
            d.storeBytes(of: _mm512_maskz_permutex2var_epi8(odd, a, t2, b), toByteOffset: o &+ 128, as: __m512i.self)
            i &+= 128; o &+= 192
        }
        return true
    } else {
        let t0 = _table { $0 / 2 }, t1 = _table { 32 + $0 / 2 }
        let bytes = layout.bytesPerPixel * pixels
        var i = 0
        while i < bytes {
            let n = bytes &- i
            let mask: UInt64 = n >= 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let a = _mm512_maskz_loadu_epi8(mask, s + i)
            d.storeBytes(of: _mm512_maskz_permutexvar_epi8(odd, t0, a), toByteOffset: 2 &* i, as: __m512i.self)
            d.storeBytes(of: _mm512_maskz_permutexvar_epi8(odd, t1, a), toByteOffset: 2 &* i &+ 64, as: __m512i.self)
            i &+= 64
        }
        return true
    }
}

/// One row of finished words (the byte in the high half) to pixels; alpha 255 where dropped.
@inline(__always)
private func _bytesFromWords(_ s: UnsafeRawPointer, pixels: Int, layout: _GaussianTileLayout, into d: UnsafeMutableRawPointer) {
    if layout.dropAlpha {
        // 16 pixels (64 bytes) from 48 words (in the first 128 bytes at s).
        let t = _table { ($0 % 4 == 3) ? 0 : 2 * (($0 / 4) * 3 + $0 % 4) + 1 }
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000))
        let bytes = 4 * pixels
        var i = 0, o = 0
        while i < bytes {
            let n = bytes &- i
            let mask: UInt64 = n >= 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let a = s.loadUnaligned(fromByteOffset: o, as: __m512i.self), b = s.loadUnaligned(fromByteOffset: o &+ 64, as: __m512i.self)
            _mm512_mask_storeu_epi8(d + i, mask, _mm512_or_si512(_mm512_permutex2var_epi8(a, t, b), alpha))
            i &+= 64; o &+= 96
        }
    } else {
        let t = _table { 2 * $0 + 1 }
        let bytes = layout.bytesPerPixel * pixels
        var i = 0
        while i < bytes {
            let n = bytes &- i
            let mask: UInt64 = n >= 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let a = s.loadUnaligned(fromByteOffset: 2 &* i, as: __m512i.self), b = s.loadUnaligned(fromByteOffset: 2 &* i &+ 64, as: __m512i.self)
            _mm512_mask_storeu_epi8(d + i, mask, _mm512_permutex2var_epi8(a, t, b))
            i &+= 64
        }
    }
}

/// out[y][i] = mulhi(in[y + r][i], centre) + Σₖ mulhi(avg(in[y + r − k][i], in[y + r + k][i]), w[k])
/// for i in 0..<count (rounded up to whole 128-word steps, which the buffers have room for), in
/// strips of 256 words taken top to bottom. `w[k]` is pairs[k] in every lane.
@inline(__always)
private func _verticalWords(_ s: UnsafeRawPointer, rowBytes: Int, rows: Int, radius r: Int, centre: UInt16,
                            weights w: UnsafePointer<__m512i>, count: Int, into d: UnsafeMutableRawPointer) {
    let c = _mm512_set1_epi16(Int16(bitPattern: centre))
    var strip = 0
    while strip < count {
        let stripEnd = min(strip &+ 256, count)
        for y in 0..<rows {
            let centreRow = s + (y &+ r) &* rowBytes, out = d + y &* rowBytes
            var i = 2 &* strip
            // Four vectors (128 words) a step: each weight is loaded once for four sums.
            while i < 2 &* stripEnd {
                @inline(__always) func load(_ p: UnsafeRawPointer, _ j: Int) -> __m512i { p.loadUnaligned(fromByteOffset: i &+ 64 &* j, as: __m512i.self) }
                var a0 = _mm512_mulhi_epu16(load(centreRow, 0), c), a1 = _mm512_mulhi_epu16(load(centreRow, 1), c)
                var a2 = _mm512_mulhi_epu16(load(centreRow, 2), c), a3 = _mm512_mulhi_epu16(load(centreRow, 3), c)
                var above = centreRow, below = centreRow
                var k = 1
                while k <= r {
                    above -= rowBytes; below += rowBytes
                    let wk = w[k]
                    a0 = _mm512_add_epi16(a0, _mm512_mulhi_epu16(_mm512_avg_epu16(load(above, 0), load(below, 0)), wk))
                    a1 = _mm512_add_epi16(a1, _mm512_mulhi_epu16(_mm512_avg_epu16(load(above, 1), load(below, 1)), wk))
                    a2 = _mm512_add_epi16(a2, _mm512_mulhi_epu16(_mm512_avg_epu16(load(above, 2), load(below, 2)), wk))
                    a3 = _mm512_add_epi16(a3, _mm512_mulhi_epu16(_mm512_avg_epu16(load(above, 3), load(below, 3)), wk))
                    k &+= 1
                }
                out.storeBytes(of: a0, toByteOffset: i, as: __m512i.self)
                out.storeBytes(of: a1, toByteOffset: i &+ 64, as: __m512i.self)
                out.storeBytes(of: a2, toByteOffset: i &+ 128, as: __m512i.self)
                out.storeBytes(of: a3, toByteOffset: i &+ 192, as: __m512i.self)
                i &+= 256
            }
        }
        strip = stripEnd
    }
}

/// out[i] = 128 + mulhi(m[i], centre) + Σₖ mulhi(avg(m[i − step·k], m[i + step·k]), w[k]) for
/// i in 0..<count, rounded up to whole 128-word steps (`m` readable that far plus step·r either
/// side).
@inline(__always)
private func _horizontalWords(_ m: UnsafeRawPointer, step: Int, radius r: Int, centre: UInt16,
                              weights w: UnsafePointer<__m512i>, count: Int, into d: UnsafeMutableRawPointer) {
    let c = _mm512_set1_epi16(Int16(bitPattern: centre)), half = _mm512_set1_epi16(128)
    var i = 0
    while i < count {
        @inline(__always) func at(_ j: Int) -> __m512i { m.loadUnaligned(fromByteOffset: 2 &* (i &+ j), as: __m512i.self) }
        var a0 = _mm512_add_epi16(_mm512_mulhi_epu16(at(0), c), half), a1 = _mm512_add_epi16(_mm512_mulhi_epu16(at(32), c), half)
        var a2 = _mm512_add_epi16(_mm512_mulhi_epu16(at(64), c), half), a3 = _mm512_add_epi16(_mm512_mulhi_epu16(at(96), c), half)
        var k = 1
        while k <= r {
            let wk = w[k], o = step &* k
            a0 = _mm512_add_epi16(a0, _mm512_mulhi_epu16(_mm512_avg_epu16(at(-o), at(o)), wk))
            a1 = _mm512_add_epi16(a1, _mm512_mulhi_epu16(_mm512_avg_epu16(at(32 &- o), at(32 &+ o)), wk))
            a2 = _mm512_add_epi16(a2, _mm512_mulhi_epu16(_mm512_avg_epu16(at(64 &- o), at(64 &+ o)), wk))
            a3 = _mm512_add_epi16(a3, _mm512_mulhi_epu16(_mm512_avg_epu16(at(96 &- o), at(96 &+ o)), wk))
            k &+= 1
        }
        d.storeBytes(of: a0, toByteOffset: 2 &* i, as: __m512i.self)
        d.storeBytes(of: a1, toByteOffset: 2 &* i &+ 64, as: __m512i.self)
        d.storeBytes(of: a2, toByteOffset: 2 &* i &+ 128, as: __m512i.self)
        d.storeBytes(of: a3, toByteOffset: 2 &* i &+ 192, as: __m512i.self)
        i &+= 128
    }
}
#endif
