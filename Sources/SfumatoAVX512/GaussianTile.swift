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
    /// RGBA whose input region is all opaque: only R, G, B are filtered; alpha is written 255.
    public var dropAlpha: Bool
    public init(width: Int, height: Int, bytesPerPixel: Int, dropAlpha: Bool) {
        self.width = width; self.height = height; self.bytesPerPixel = bytesPerPixel; self.dropAlpha = dropAlpha
    }
    /// 16-bit values a pixel in the passes.
    var words: Int { dropAlpha ? 3 : bytesPerPixel }
    /// Words from one row of the word buffers to the next: the passes run in whole 64-word
    /// steps and read up to 64 words past a row's last value.
    func rowWords(radius r: Int) -> Int { (((width + 2 * r) * words + 63) & ~63) + 64 }
    /// The words of scratch `_gaussianTileAVX512` needs.
    public func scratchWords(radius r: Int) -> Int { (2 * height + 2 * r + 1) * rowWords(radius: r) + 128 }
}

/// Blurs one tile: `input` is pixel (−r, −r) of the output's input region (rows `inputStride`
/// bytes apart), `output` pixel (0, 0) (rows `outputStride` bytes apart). `pairs[k]` is twice
/// the 0.16 weight at distance k, `centre` the centre weight. `scratch` holds
/// `layout.scratchWords(radius:)` words.
@inline(never)
public func _gaussianTileAVX512(input: UnsafeRawPointer, inputStride: Int, output: UnsafeMutableRawPointer, outputStride: Int,
                                layout: _GaussianTileLayout, radius r: Int, centre: UInt16, pairs: UnsafePointer<UInt16>,
                                scratch: UnsafeMutablePointer<UInt16>) {
    let rowWords = layout.rowWords(radius: r)
    let inRows = layout.height + 2 * r, inWords = (layout.width + 2 * r) * layout.words
    let source = UnsafeMutableRawPointer(scratch)                        // inRows rows of words
    let vertical = source + 2 * inRows * rowWords                          // height rows of words
    let line = vertical + 2 * layout.height * rowWords                     // one output row of words
    for y in 0..<inRows {
        _wordsFromBytes(input + y * inputStride, pixels: layout.width + 2 * r, layout: layout, into: source + 2 * y * rowWords)
    }
    _verticalWords(source, rowBytes: 2 * rowWords, rows: layout.height, radius: r, centre: centre, pairs: pairs,
                   count: inWords, into: vertical)
    for y in 0..<layout.height {
        _horizontalWords(vertical + 2 * (y * rowWords + r * layout.words), step: layout.words, radius: r, centre: centre,
                         pairs: pairs, count: layout.width * layout.words, into: line)
        _bytesFromWords(line, pixels: layout.width, layout: layout, into: output + y * outputStride)
    }
}

/// Whether every alpha byte of `rows` rows of `pixels` RGBA pixels is 255.
@inline(never)
public func _isOpaqueAVX512(_ p: UnsafeRawPointer, stride: Int, pixels: Int, rows: Int) -> Bool {
    let full = _mm512_set1_epi8(-1)
    let alpha: UInt64 = 0x8888_8888_8888_8888
    let bytes = 4 * pixels
    for y in 0..<rows {
        let row = p + y * stride
        var i = 0
        while i < bytes {
            let n = min(64, bytes &- i)
            let mask: UInt64 = n == 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let missing = _mm512_andnot_si512(_mm512_maskz_loadu_epi8(mask, row + i), full)   // 255 - byte
            if _mm512_mask_test_epi8_mask(mask & alpha, missing, missing) != 0 { return false }
            i &+= 64
        }
    }
    return true
}

/// A byte index table for vpermb/vpermt2b from a closure of the output byte.
@inline(__always)
private func _table(_ f: (Int) -> Int) -> __m512i {
    var t = SIMD64<UInt8>()
    for i in 0..<64 { t[i] = UInt8(truncatingIfNeeded: f(i)) }
    return unsafeBitCast(t, to: __m512i.self)
}

/// One row of pixels to words (byte x 256): every byte, or R, G, B of RGBA.
@inline(__always)
private func _wordsFromBytes(_ s: UnsafeRawPointer, pixels: Int, layout: _GaussianTileLayout, into d: UnsafeMutableRawPointer) {
    let odd: UInt64 = 0xAAAA_AAAA_AAAA_AAAA           // the high byte of each word
    if layout.dropAlpha {
        // 32 pixels (128 bytes) -> 96 words; word g of the three outputs is channel g % 3 of pixel g / 3.
        let t0 = _table { ($0 / 2 / 3) * 4 + ($0 / 2) % 3 }
        let t1 = _table { ((32 + $0 / 2) / 3) * 4 + (32 + $0 / 2) % 3 }
        let t2 = _table { ((64 + $0 / 2) / 3) * 4 + (64 + $0 / 2) % 3 }
        let bytes = 4 * pixels
        var i = 0, o = 0
        while i < bytes {
            let n = bytes &- i
            let m0: UInt64 = n >= 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let m1: UInt64 = n >= 128 ? ~0 : (n <= 64 ? 0 : (1 &<< UInt64(n &- 64)) &- 1)
            let a = _mm512_maskz_loadu_epi8(m0, s + i), b = _mm512_maskz_loadu_epi8(m1, s + (i &+ 64))
            d.storeBytes(of: _mm512_maskz_permutex2var_epi8(odd, a, t0, b), toByteOffset: o, as: __m512i.self)
            d.storeBytes(of: _mm512_maskz_permutex2var_epi8(odd, a, t1, b), toByteOffset: o &+ 64, as: __m512i.self)
            d.storeBytes(of: _mm512_maskz_permutex2var_epi8(odd, a, t2, b), toByteOffset: o &+ 128, as: __m512i.self)
            i &+= 128; o &+= 192
        }
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

/// out[y][i] = mulhi(in[y + r][i], centre) + Σₖ mulhi(avg(in[y + r − k][i], in[y + r + k][i]), pairs[k])
/// for i in 0..<count (rounded up to whole vectors, which the buffers have room for), in strips
/// of 256 words taken top to bottom.
@inline(__always)
private func _verticalWords(_ s: UnsafeRawPointer, rowBytes: Int, rows: Int, radius r: Int, centre: UInt16,
                            pairs: UnsafePointer<UInt16>, count: Int, into d: UnsafeMutableRawPointer) {
    let c = _mm512_set1_epi16(Int16(bitPattern: centre))
    var strip = 0
    while strip < count {
        let stripEnd = min(strip &+ 256, count)
        for y in 0..<rows {
            let centreRow = s + (y &+ r) &* rowBytes, out = d + y &* rowBytes
            var i = 2 &* strip
            while i < 2 &* stripEnd {
                var lo = _mm512_mulhi_epu16(centreRow.loadUnaligned(fromByteOffset: i, as: __m512i.self), c)
                var hi = _mm512_mulhi_epu16(centreRow.loadUnaligned(fromByteOffset: i &+ 64, as: __m512i.self), c)
                var above = centreRow, below = centreRow
                var k = 1
                while k <= r {
                    above -= rowBytes; below += rowBytes
                    let w = _mm512_set1_epi16(Int16(bitPattern: pairs[k]))
                    lo = _mm512_add_epi16(lo, _mm512_mulhi_epu16(_mm512_avg_epu16(above.loadUnaligned(fromByteOffset: i, as: __m512i.self),
                                                                                  below.loadUnaligned(fromByteOffset: i, as: __m512i.self)), w))
                    hi = _mm512_add_epi16(hi, _mm512_mulhi_epu16(_mm512_avg_epu16(above.loadUnaligned(fromByteOffset: i &+ 64, as: __m512i.self),
                                                                                  below.loadUnaligned(fromByteOffset: i &+ 64, as: __m512i.self)), w))
                    k &+= 1
                }
                out.storeBytes(of: lo, toByteOffset: i, as: __m512i.self)
                out.storeBytes(of: hi, toByteOffset: i &+ 64, as: __m512i.self)
                i &+= 128
            }
        }
        strip = stripEnd
    }
}

/// out[i] = 128 + mulhi(m[i], centre) + Σₖ mulhi(avg(m[i − step·k], m[i + step·k]), pairs[k]) for
/// i in 0..<count, rounded up to whole vectors (`m` readable that far plus step·r either side).
@inline(__always)
private func _horizontalWords(_ m: UnsafeRawPointer, step: Int, radius r: Int, centre: UInt16,
                              pairs: UnsafePointer<UInt16>, count: Int, into d: UnsafeMutableRawPointer) {
    let c = _mm512_set1_epi16(Int16(bitPattern: centre)), half = _mm512_set1_epi16(128)
    @inline(__always) func at(_ j: Int) -> __m512i { m.loadUnaligned(fromByteOffset: 2 &* j, as: __m512i.self) }
    var i = 0
    while i < count {
        var acc = _mm512_add_epi16(_mm512_mulhi_epu16(at(i), c), half)
        var acc2 = _mm512_add_epi16(_mm512_mulhi_epu16(at(i &+ 32), c), half)
        var k = 1
        while k <= r {
            let w = _mm512_set1_epi16(Int16(bitPattern: pairs[k])), o = step &* k
            acc = _mm512_add_epi16(acc, _mm512_mulhi_epu16(_mm512_avg_epu16(at(i &- o), at(i &+ o)), w))
            acc2 = _mm512_add_epi16(acc2, _mm512_mulhi_epu16(_mm512_avg_epu16(at(i &+ 32 &- o), at(i &+ 32 &+ o)), w))
            k &+= 1
        }
        d.storeBytes(of: acc, toByteOffset: 2 &* i, as: __m512i.self)
        d.storeBytes(of: acc2, toByteOffset: 2 &* i &+ 64, as: __m512i.self)
        i &+= 64
    }
}
#endif
