// The 8-bit Gaussian of a whole tile with 512-bit vectors, in three steps: the input bytes to
// 16-bit words (value x 256), once per value; the vertical pass over those words, in column
// strips that keep the 2r+1 rows it reads in L1; then the horizontal pass row by row, and the
// words back to bytes. With interpolated rows (large sigmas) the two passes run on the even
// rows only and each odd row is the cubic midpoint of four of them. The arithmetic per value is
// the baseline kernel's (GaussianKernel+Bytes.swift: pavgw of a symmetric pair, pmulhuw by its
// 0.16 weight, 16-bit sums, +128 and the high byte; the same midpoint steps), so the bytes are
// identical. Opaque RGBA tiles leave alpha out (it would come out 255 again):
// a quarter less work, the one thing the baseline cannot skip.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    // Nothing here is a type or a generic: the module is compiled for AVX-512, and any value
    // witness or specialisation it emitted could be chosen by the linker over the baseline copy of
    // the same symbol elsewhere (the Python suite checks the binary for AVX code outside it).

    /// Words from one row of the word buffers to the next: the passes run in whole 128-word steps
    /// and read up to 128 words past a row's last value.
    @inline(__always)
    private func _rowWords(width: Int, radius r: Int, words: Int) -> Int { (((width &+ 2 &* r) &* words &+ 127) & ~127) &+ 128 }

    /// Scratch `_gaussianTileAVX512` uses ahead of its word buffers: the broadcast weights (64 bytes
    /// each, up to radius `r`), then seven 64-byte permute tables.
    @inline(__always)
    private func _headerWords(radius r: Int) -> Int { 32 &* (r &+ 1) &+ 256 }

    /// The 16-bit words of scratch `_gaussianTileAVX512` needs for a tile (alpha included, since a
    /// tile may turn out not to be opaque).
    public func _gaussianTileScratchWordsAVX512(width: Int, height: Int, bytesPerPixel: Int, radius r: Int, interpolatingRows: Bool) -> Int {
        let rowWords = _rowWords(width: width, radius: r, words: bytesPerPixel)
        // Input rows, vertical-pass rows, (interpolating) the anchor rows' horizontal results, and
        // one output row.
        let rows = interpolatingRows ? (height &+ 2 &* r &+ 6) &+ 2 &* (height / 2 &+ 4) &+ 1 : (height &+ 2 &* r) &+ height &+ 1
        return _headerWords(radius: r) &+ rows &* rowWords &+ 256
    }

    /// Blurs one tile of `width` x `height` pixels of `bytesPerPixel` bytes (4 RGBA, 1 grey):
    /// `input` is pixel (−r, −m) of the output's input region, where the row margin m is r, or r + 3
    /// with `interpolatingRows` (rows `inputStride` bytes apart), `output` pixel (0, 0) (rows
    /// `outputStride` bytes apart). `pairs[k]` is twice the 0.16 weight at distance k, `centre` the
    /// centre weight. With `dropAlpha` (RGBA whose fixed-point weights give 255 back for 255), an
    /// input region found all opaque is filtered in R, G, B only and alpha written 255.
    /// With `interpolatingRows`, only rows even in image coordinates are filtered (`oddFirstRow`
    /// says whether output row 0 is odd) and each odd row is the cubic midpoint of the four even
    /// rows around it (`_midRowWords`). `scratch` holds `_gaussianTileScratchWordsAVX512` words.
    ///
    /// With `decode` and `encode` (linear light; RGBA, every input pixel opaque): each byte's word is
    /// `decode[byte]` (256 words) instead of byte x 256, and each output byte `encode[word]` (65536
    /// bytes) instead of the word's high byte; alpha is 255.
    ///
    /// With `detail` 1...3 (no interpolated rows) each blurred word b is combined with i, the
    /// input's word at the same pixel, before the encoding, b' = b − `blurOffset` being the blur:
    /// 1, unsharp: i + k (i − b') + `outputOffset` (`_unsharpWords`); 2, luminance detail:
    /// i + k L(i − b') + outputOffset on R, G, B, L the Rec. 709 luminance weights
    /// (`_sharpenLuminanceWords`); 3, shrunk detail: b' + k shrink(i − b', t) + outputOffset,
    /// shrink(d, t) = max(d − t, 0) + min(d + t, 0) (`_shrinkWords`). k is `detailAmount`, t
    /// `detailThreshold`. `blurOffset` is what the passes' words carry above the value (their
    /// rounding less their expected truncation); `outputOffset` what the encoding expects.
    @inline(never)
    public func _gaussianTileAVX512(
        input: UnsafeRawPointer, inputStride: Int, output: UnsafeMutableRawPointer, outputStride: Int,
        width: Int, height: Int, bytesPerPixel bpp: Int, dropAlpha: Bool,
        radius r: Int, centre: UInt16, pairs: UnsafePointer<UInt16>,
        interpolatingRows: Bool, oddFirstRow: Bool,
        scratch: UnsafeMutablePointer<UInt16>,
        decode: UnsafePointer<UInt16>? = nil, encode: UnsafePointer<UInt8>? = nil,
        detail: Int = 0, detailAmount: Float = 0, detailThreshold: Float = 0, blurOffset: Int = 0, outputOffset: Int = 0
    ) {
        let weights = UnsafeMutableRawPointer(scratch), tables = weights + 64 &* (r &+ 1)
        var k = 1
        while k <= r {
            weights.storeBytes(of: _mm512_set1_epi16(Int16(bitPattern: pairs[k])), toByteOffset: 64 &* k, as: __m512i.self)
            k &+= 1
        }
        _buildTables(tables)
        let body = weights + 2 &* _headerWords(radius: r)
        let margin = interpolatingRows ? r &+ 3 : r
        let inRows = height &+ 2 &* margin, inPixels = width &+ 2 &* r
        // Opaque RGBA leaves alpha out; the first alpha below 255 met while converting starts the
        // conversion again with it.
        var words = bpp
        if dropAlpha || decode != nil {
            let rowWords = _rowWords(width: width, radius: r, words: 3)
            var y = 0
            while y < inRows
                && _wordsFromBytes(
                    input + y &* inputStride, pixels: inPixels, bytesPerPixel: bpp, dropAlpha: true,
                    tables: tables, into: body + 2 &* y &* rowWords)
            {
                if let decode { _decodeWords(body + 2 &* y &* rowWords, count: 3 &* inPixels, table: decode) }
                y &+= 1
            }
            if y == inRows { words = 3 }
            precondition(decode == nil || words == 3, "linear-light tiles are opaque RGBA")
        }
        let rgb = words == 3
        let rowWords = _rowWords(width: width, radius: r, words: words), inWords = inPixels &* words
        let rowBytes = 2 &* rowWords, count = width &* words
        if !rgb {
            var y = 0
            while y < inRows {
                _ = _wordsFromBytes(
                    input + y &* inputStride, pixels: inPixels, bytesPerPixel: bpp, dropAlpha: false,
                    tables: tables, into: body + y &* rowBytes)
                y &+= 1
            }
        }
        let w = UnsafeRawPointer(weights)
        let source = body  // inRows rows of words
        let vertical = source + inRows &* rowBytes  // a row per filtered row
        if !interpolatingRows {
            let line = vertical + height &* rowBytes
            _verticalWords(
                source, rowBytes: rowBytes, firstCentre: r, centreStep: 1, rows: height, radius: r, centre: centre,
                weights: w, count: inWords, into: vertical)
            var y = 0
            while y < height {
                _horizontalWords(
                    vertical + (y &* rowBytes &+ 2 &* r &* words), step: words, radius: r, centre: centre,
                    weights: w, count: count, into: line)
                if detail != 0 {
                    // The input's words of this row's pixels: row y + r, from pixel r.
                    let own = UnsafeRawPointer(source + ((y &+ r) &* rowBytes &+ 2 &* r &* words))
                    let blur = Float(blurOffset), out = Float(outputOffset)
                    if detail == 2 {
                        _sharpenLuminanceWords(line, own: own, pixels: width, words: words, amount: detailAmount, blurOffset: blur, outputOffset: out)
                    } else if detail == 3 {
                        _shrinkWords(line, own: own, count: count, amount: detailAmount, threshold: detailThreshold, blurOffset: blur, outputOffset: out)
                    } else {
                        _unsharpWords(line, own: own, count: count, amount: detailAmount, blurOffset: blur, outputOffset: out)
                    }
                }
                if let encode {
                    _encodeWords(line, pixels: width, table: encode, into: output + y &* outputStride)
                } else {
                    _bytesFromWords(line, pixels: width, bytesPerPixel: bpp, dropAlpha: rgb, tables: tables, into: output + y &* outputStride)
                }
                y &+= 1
            }
            return
        }
        // Even rows (image coordinates) from the first one an output row needs (row −2, or −3 when
        // row 0 is odd) to the last (height + 1 or height + 2).
        let first = oddFirstRow ? -3 : -2
        let last = oddFirstRow ? ((height &+ 3) & ~1) &- 1 : (height &+ 2) & ~1
        let anchors = (last &- first) / 2 &+ 1
        let filtered = vertical + anchors &* rowBytes, line = filtered + anchors &* rowBytes
        _verticalWords(
            source, rowBytes: rowBytes, firstCentre: first &+ margin, centreStep: 2, rows: anchors, radius: r,
            centre: centre, weights: w, count: inWords, into: vertical)
        var j = 0
        while j < anchors {
            _horizontalWords(
                vertical + (j &* rowBytes &+ 2 &* r &* words), step: words, radius: r, centre: centre,
                weights: w, count: count, into: filtered + j &* rowBytes)
            j &+= 1
        }
        var y = 0
        while y < height {
            let anchor = (y &- first) >> 1  // the even row at or above y
            var row = UnsafeRawPointer(filtered + anchor &* rowBytes)
            if (y &- first) & 1 == 1 {
                let above = filtered + (anchor &- 1) &* rowBytes
                _midRowWords(above, above + rowBytes, above + 2 &* rowBytes, above + 3 &* rowBytes, count: count, into: line)
                row = UnsafeRawPointer(line)
            }
            if let encode {
                _encodeWords(row, pixels: width, table: encode, into: output + y &* outputStride)
            } else {
                _bytesFromWords(row, pixels: width, bytesPerPixel: bpp, dropAlpha: rgb, tables: tables, into: output + y &* outputStride)
            }
            y &+= 1
        }
    }

    /// 16 words from `p` at byte offset `at`, as floats.
    @inline(__always)
    private func _wordFloats(_ p: UnsafeRawPointer, _ at: Int) -> __m512 {
        _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(p.loadUnaligned(fromByteOffset: at, as: __m256i.self)))
    }

    /// 16 floats kept within 0...65535 (NaN taken as 0; infinities and huge amounts reach here
    /// from the Swift API) and rounded, ties to even, to words stored at byte offset `at`: the
    /// baseline's `_DetailKernel.word`. Clamped as floats because the conversion of anything
    /// beyond Int32 gives Int32.min.
    @inline(__always)
    private func _storeWords(_ v: __m512, _ line: UnsafeMutableRawPointer, _ at: Int) {
        // max_ps returns its second operand when either is NaN.
        let clamped = _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()), _mm512_set1_ps(65535))
        line.storeBytes(of: _mm512_cvtepi32_epi16(_mm512_cvtps_epi32(clamped)), toByteOffset: at, as: __m256i.self)
    }

    /// b = i + k (i − b + blurOffset) + outputOffset for `count` words b of `line` and i of `own`,
    /// rounded and kept within 0...65535 (16 words a step, through floats).
    @inline(__always)
    private func _unsharpWords(
        _ line: UnsafeMutableRawPointer, own: UnsafeRawPointer, count: Int, amount: Float, blurOffset: Float, outputOffset: Float
    ) {
        let k = _mm512_set1_ps(amount), off = _mm512_set1_ps(blurOffset), out = _mm512_set1_ps(outputOffset)
        var i = 0
        while i < 2 &* count {
            let own32 = _wordFloats(own, i), blur32 = _wordFloats(UnsafeRawPointer(line), i)
            // Multiply and add apart (no fused multiply-add): the baseline's roundings exactly.
            _storeWords(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(k, _mm512_add_ps(_mm512_sub_ps(own32, blur32), off)), own32), out), line, i)
            i &+= 32
        }
    }

    /// b = (b − blurOffset) + k shrink(i − (b − blurOffset), t) + outputOffset for `count` words,
    /// shrink(d, t) = max(d − t, 0) + min(d + t, 0); rounded, within 0...65535.
    @inline(__always)
    private func _shrinkWords(
        _ line: UnsafeMutableRawPointer, own: UnsafeRawPointer, count: Int, amount: Float, threshold: Float, blurOffset: Float,
        outputOffset: Float
    ) {
        let k = _mm512_set1_ps(amount), t = _mm512_set1_ps(threshold), off = _mm512_set1_ps(blurOffset)
        let out = _mm512_set1_ps(outputOffset), zero = _mm512_setzero_ps()
        var i = 0
        while i < 2 &* count {
            let b = _mm512_sub_ps(_wordFloats(UnsafeRawPointer(line), i), off), d = _mm512_sub_ps(_wordFloats(own, i), b)
            let shrunk = _mm512_add_ps(_mm512_max_ps(_mm512_sub_ps(d, t), zero), _mm512_min_ps(_mm512_add_ps(d, t), zero))
            _storeWords(_mm512_add_ps(_mm512_add_ps(b, _mm512_mul_ps(k, shrunk)), out), line, i)
            i &+= 32
        }
    }

    /// R, G, B = i + k L(i − b + blurOffset) + outputOffset per pixel of `words` words (alpha, the
    /// fourth, i + outputOffset), L = 0.2125 R + 0.7154 G + 0.0721 B; rounded, within 0...65535.
    /// RGB words go 16 pixels (48 words, three vectors) a step: each channel gathered from the
    /// three by two permutes, each pixel's detail spread back to its three words by one.
    @inline(__always)
    private func _sharpenLuminanceWords(
        _ line: UnsafeMutableRawPointer, own: UnsafeRawPointer, pixels: Int, words: Int, amount: Float, blurOffset: Float,
        outputOffset: Float
    ) {
        if words == 4 { return _sharpenLuminanceRGBAWords(line, own: own, pixels: pixels, amount: amount, blurOffset: blurOffset, outputOffset: outputOffset) }
        let lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
        let three = _mm512_set1_epi32(3), thirtyTwo = _mm512_set1_epi32(32)
        // Channel c of pixel j is word 3j + c: in the first two vectors below 32, in the third from 32.
        let index0 = _mm512_mullo_epi32(lane, three)
        let index1 = _mm512_add_epi32(index0, _mm512_set1_epi32(1)), index2 = _mm512_add_epi32(index0, _mm512_set1_epi32(2))
        // The lanes whose word is in the third vector: 3j + c at least 32 (j from 11, 11 and 10).
        let high0: __mmask16 = 0xF800, high1: __mmask16 = 0xF800, high2: __mmask16 = 0xFC00
        // Word n of the 48 belongs to pixel n / 3 (n x 21846 >> 16 for n below 48).
        @inline(__always) func pixelOf(_ first: Int32) -> __m512i {
            _mm512_srli_epi32(_mm512_mullo_epi32(_mm512_add_epi32(lane, _mm512_set1_epi32(first)), _mm512_set1_epi32(21846)), 16)
        }
        let spread0 = pixelOf(0), spread1 = pixelOf(16), spread2 = pixelOf(32)
        let k = _mm512_set1_ps(amount), off = _mm512_set1_ps(blurOffset), out = _mm512_set1_ps(outputOffset)
        let wr = _mm512_set1_ps(0.2125), wg = _mm512_set1_ps(0.7154), wb = _mm512_set1_ps(0.0721)
        @inline(__always) func gather(_ a: __m512, _ b: __m512, _ c: __m512, _ index: __m512i, _ fromC: __mmask16) -> __m512 {
            _mm512_mask_permutexvar_ps(_mm512_permutex2var_ps(a, index, b), fromC, _mm512_sub_epi32(index, thirtyTwo), c)
        }
        @inline(__always) func store(_ v: __m512, _ at: Int) { _storeWords(v, line, at) }
        var at = 0  // bytes: 96 a step
        while at < 6 &* pixels {
            let i0 = _wordFloats(own, at), i1 = _wordFloats(own, at &+ 32), i2 = _wordFloats(own, at &+ 64)
            let line0 = _wordFloats(UnsafeRawPointer(line), at), line1 = _wordFloats(UnsafeRawPointer(line), at &+ 32)
            let line2 = _wordFloats(UnsafeRawPointer(line), at &+ 64)
            let d0 = _mm512_add_ps(_mm512_sub_ps(i0, line0), off), d1 = _mm512_add_ps(_mm512_sub_ps(i1, line1), off)
            let d2 = _mm512_add_ps(_mm512_sub_ps(i2, line2), off)
            let r = gather(d0, d1, d2, index0, high0), g = gather(d0, d1, d2, index1, high1), b = gather(d0, d1, d2, index2, high2)
            let l = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(wr, r), _mm512_mul_ps(wg, g)), _mm512_mul_ps(wb, b))
            let detail = _mm512_add_ps(_mm512_mul_ps(k, l), out)
            store(_mm512_add_ps(i0, _mm512_permutexvar_ps(spread0, detail)), at)
            store(_mm512_add_ps(i1, _mm512_permutexvar_ps(spread1, detail)), at &+ 32)
            store(_mm512_add_ps(i2, _mm512_permutexvar_ps(spread2, detail)), at &+ 64)
            at &+= 96
        }
    }

    /// `_sharpenLuminanceWords` for RGBA words (a tile that turned out not to be opaque), a pixel
    /// at a time.
    @inline(__always)
    private func _sharpenLuminanceRGBAWords(
        _ line: UnsafeMutableRawPointer, own: UnsafeRawPointer, pixels: Int, amount: Float, blurOffset offset: Float, outputOffset: Float
    ) {
        let b = line.assumingMemoryBound(to: UInt16.self), i = own.assumingMemoryBound(to: UInt16.self)
        // NaN to 0, as `_storeWords`.
        @inline(__always) func word(_ v: Float) -> UInt16 { v > 0 ? UInt16(min(v, 65535).rounded(.toNearestOrEven)) : 0 }
        var p = 0
        while p < pixels {
            let at = p &* 4
            let r = Float(i[at]), g = Float(i[at &+ 1]), bl = Float(i[at &+ 2])
            let l = 0.2125 * (r - Float(b[at]) + offset) + 0.7154 * (g - Float(b[at &+ 1]) + offset) + 0.0721 * (bl - Float(b[at &+ 2]) + offset)
            let d = amount * l + outputOffset
            b[at] = word(r + d)
            b[at &+ 1] = word(g + d)
            b[at &+ 2] = word(bl + d)
            b[at &+ 3] = word(Float(i[at &+ 3]) + outputOffset)
            p &+= 1
        }
    }

    /// The cubic (Catmull-Rom) midpoint of rows b and c with neighbours a and d, in the baseline's
    /// integer steps: m = avg(b, c), e = avg(a, d), m + ((m >> 1) − (e >> 1)) >> 2 (arithmetic),
    /// saturated to 0...65535; for i in 0..<count rounded up to whole 32-word steps.
    @inline(__always)
    private func _midRowWords(
        _ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ c: UnsafeRawPointer, _ d: UnsafeRawPointer,
        count: Int, into o: UnsafeMutableRawPointer
    ) {
        let zero = _mm512_setzero_si512()
        var i = 0
        while i < 2 &* count {
            let m = _mm512_avg_epu16(b.loadUnaligned(fromByteOffset: i, as: __m512i.self), c.loadUnaligned(fromByteOffset: i, as: __m512i.self))
            let e = _mm512_avg_epu16(a.loadUnaligned(fromByteOffset: i, as: __m512i.self), d.loadUnaligned(fromByteOffset: i, as: __m512i.self))
            let delta = _mm512_srai_epi16(_mm512_sub_epi16(_mm512_srli_epi16(m, 1), _mm512_srli_epi16(e, 1)), 2)
            let up = _mm512_max_epi16(delta, zero), down = _mm512_max_epi16(_mm512_sub_epi16(zero, delta), zero)
            o.storeBytes(of: _mm512_subs_epu16(_mm512_adds_epu16(m, up), down), toByteOffset: i, as: __m512i.self)
            i &+= 64
        }
    }

    /// The seven byte-index tables for vpermb/vpermt2b, 64 bytes each at `t`: 0...2 take R, G, B of
    /// 32 RGBA pixels into the high bytes of 96 words (word g is channel g % 3 of pixel g / 3); 3 and
    /// 4 take 64 bytes into the high bytes of 64 words; 5 takes the high bytes of 48 words back to
    /// 16 RGBA pixels (alpha bytes are ORed in after); 6 takes the high bytes of 64 words.
    @inline(__always)
    private func _buildTables(_ t: UnsafeMutableRawPointer) {
        @inline(__always) func put(_ table: Int, _ i: Int, _ v: Int) {
            t.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: 64 &* table &+ i, as: UInt8.self)
        }
        var i = 0
        while i < 64 {
            let word = i >> 1, g1 = 32 &+ word, g2 = 64 &+ word
            put(0, i, (word / 3) &* 4 &+ word % 3)
            put(1, i, (g1 / 3) &* 4 &+ g1 % 3)
            put(2, i, (g2 / 3) &* 4 &+ g2 % 3)
            put(3, i, word)
            put(4, i, 32 &+ word)
            put(5, i, i & 3 == 3 ? 0 : 2 &* ((i >> 2) &* 3 &+ (i & 3)) &+ 1)
            put(6, i, 2 &* i &+ 1)
            i &+= 1
        }
    }

    @inline(__always)
    private func _tableAt(_ t: UnsafeMutableRawPointer, _ k: Int) -> __m512i { UnsafeRawPointer(t).loadUnaligned(fromByteOffset: 64 &* k, as: __m512i.self) }

    /// One row of pixels to words (byte x 256): every byte, or R, G, B of RGBA. Leaving alpha out,
    /// returns false (and stops) at the first alpha below 255.
    @inline(__always)
    private func _wordsFromBytes(
        _ s: UnsafeRawPointer, pixels: Int, bytesPerPixel: Int, dropAlpha: Bool,
        tables: UnsafeMutableRawPointer, into d: UnsafeMutableRawPointer
    ) -> Bool {
        let odd: UInt64 = 0xAAAA_AAAA_AAAA_AAAA  // the high byte of each word
        if dropAlpha {
            // 32 pixels (128 bytes) -> 96 words.
            let t0 = _tableAt(tables, 0), t1 = _tableAt(tables, 1), t2 = _tableAt(tables, 2)
            let full = _mm512_set1_epi8(-1), alphaBytes: UInt64 = 0x8888_8888_8888_8888
            let bytes = 4 &* pixels
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
            let t0 = _tableAt(tables, 3), t1 = _tableAt(tables, 4)
            let bytes = bytesPerPixel &* pixels
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

    /// Words holding bytes (x 256) to `table[byte]`, for `count` words rounded up to 32 (the rows
    /// have room): four two-register permutes over the 256-word table, picked by the byte's two
    /// top bits.
    @inline(__always)
    private func _decodeWords(_ row: UnsafeMutableRawPointer, count: Int, table: UnsafePointer<UInt16>) {
        let t = UnsafeRawPointer(table)
        @inline(__always) func part(_ k: Int) -> __m512i { t.loadUnaligned(fromByteOffset: 64 &* k, as: __m512i.self) }
        let t0 = part(0), t1 = part(1), t2 = part(2), t3 = part(3), t4 = part(4), t5 = part(5), t6 = part(6), t7 = part(7)
        let bit6 = _mm512_set1_epi16(64), bit7 = _mm512_set1_epi16(128)
        var i = 0
        while i < 2 &* count {
            let v = _mm512_srli_epi16(row.loadUnaligned(fromByteOffset: i, as: __m512i.self), 8)
            let a = _mm512_permutex2var_epi16(t0, v, t1), b = _mm512_permutex2var_epi16(t2, v, t3)
            let c = _mm512_permutex2var_epi16(t4, v, t5), d = _mm512_permutex2var_epi16(t6, v, t7)
            let m6 = _mm512_test_epi16_mask(v, bit6), m7 = _mm512_test_epi16_mask(v, bit7)
            let low = _mm512_mask_blend_epi16(m6, a, b), high = _mm512_mask_blend_epi16(m6, c, d)
            row.storeBytes(of: _mm512_mask_blend_epi16(m7, low, high), toByteOffset: i, as: __m512i.self)
            i &+= 64
        }
    }

    /// One row of finished linear words (R, G, B of each pixel in turn) to opaque RGBA pixels,
    /// each byte `table[word]`.
    @inline(__always)
    private func _encodeWords(_ s: UnsafeRawPointer, pixels: Int, table: UnsafePointer<UInt8>, into d: UnsafeMutableRawPointer) {
        let w = s.assumingMemoryBound(to: UInt16.self)
        var p = 0
        while p < pixels {
            let r = UInt32(table[Int(w[3 &* p])]), g = UInt32(table[Int(w[3 &* p &+ 1])]), b = UInt32(table[Int(w[3 &* p &+ 2])])
            d.storeBytes(of: r | g &<< 8 | b &<< 16 | 0xFF00_0000, toByteOffset: 4 &* p, as: UInt32.self)
            p &+= 1
        }
    }

    /// One row of finished words (the byte in the high half) to pixels; alpha 255 where dropped.
    @inline(__always)
    private func _bytesFromWords(
        _ s: UnsafeRawPointer, pixels: Int, bytesPerPixel: Int, dropAlpha: Bool,
        tables: UnsafeMutableRawPointer, into d: UnsafeMutableRawPointer
    ) {
        if dropAlpha {
            // 16 pixels (64 bytes) from 48 words (in the first 128 bytes at s).
            let t = _tableAt(tables, 5)
            let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000))
            let bytes = 4 &* pixels
            var i = 0, o = 0
            while i < bytes {
                let n = bytes &- i
                let mask: UInt64 = n >= 64 ? ~0 : (1 &<< UInt64(n)) &- 1
                let a = s.loadUnaligned(fromByteOffset: o, as: __m512i.self), b = s.loadUnaligned(fromByteOffset: o &+ 64, as: __m512i.self)
                _mm512_mask_storeu_epi8(d + i, mask, _mm512_or_si512(_mm512_permutex2var_epi8(a, t, b), alpha))
                i &+= 64; o &+= 96
            }
        } else {
            let t = _tableAt(tables, 6)
            let bytes = bytesPerPixel &* pixels
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

    /// out[y][i] = mulhi(in[c][i], centre) + Σₖ mulhi(avg(in[c − k][i], in[c + k][i]), w[k]) with centre row
    /// c = firstCentre + y·centreStep
    /// for i in 0..<count (rounded up to whole 128-word steps, which the buffers have room for), in
    /// strips of 256 words taken top to bottom. `w[k]` is pairs[k] in every lane.
    @inline(__always)
    private func _verticalWords(
        _ s: UnsafeRawPointer, rowBytes: Int, firstCentre: Int, centreStep: Int, rows: Int, radius r: Int, centre: UInt16,
        weights w: UnsafeRawPointer, count: Int, into d: UnsafeMutableRawPointer
    ) {
        let c = _mm512_set1_epi16(Int16(bitPattern: centre))
        var strip = 0
        while strip < count {
            let stripEnd = strip &+ 256 < count ? strip &+ 256 : count
            var y = 0
            while y < rows {
                let centreRow = s + (firstCentre &+ y &* centreStep) &* rowBytes, out = d + y &* rowBytes
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
                        let wk = w.loadUnaligned(fromByteOffset: 64 &* k, as: __m512i.self)
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
                y &+= 1
            }
            strip = stripEnd
        }
    }

    /// out[i] = 128 + mulhi(m[i], centre) + Σₖ mulhi(avg(m[i − step·k], m[i + step·k]), w[k]) for
    /// i in 0..<count, rounded up to whole 128-word steps (`m` readable that far plus step·r either
    /// side).
    @inline(__always)
    private func _horizontalWords(
        _ m: UnsafeRawPointer, step: Int, radius r: Int, centre: UInt16,
        weights w: UnsafeRawPointer, count: Int, into d: UnsafeMutableRawPointer
    ) {
        let c = _mm512_set1_epi16(Int16(bitPattern: centre)), half = _mm512_set1_epi16(128)
        var i = 0
        while i < count {
            @inline(__always) func at(_ j: Int) -> __m512i { m.loadUnaligned(fromByteOffset: 2 &* (i &+ j), as: __m512i.self) }
            var a0 = _mm512_add_epi16(_mm512_mulhi_epu16(at(0), c), half), a1 = _mm512_add_epi16(_mm512_mulhi_epu16(at(32), c), half)
            var a2 = _mm512_add_epi16(_mm512_mulhi_epu16(at(64), c), half), a3 = _mm512_add_epi16(_mm512_mulhi_epu16(at(96), c), half)
            var k = 1
            while k <= r {
                let wk = w.loadUnaligned(fromByteOffset: 64 &* k, as: __m512i.self), o = step &* k
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
