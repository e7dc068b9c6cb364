import SfumatoCore
#if arch(x86_64)
    import _Builtin_intrinsics.intel
    import SfumatoAVX512
#endif

extension _GaussianKernel {
    /// 8-bit fixed point, one row at a time: the vertical pass first, from the input rows (which
    /// stay in cache from row to row) into one 16-bit row holding 8 fractional bits (value x
    /// 256), then the horizontal pass from that row, which never leaves L1. Symmetric taps are
    /// added first (at half scale, so the sum still fits 16 bits) and weighted once, with one
    /// multiply-high (pmulhuw) per pair; the half-scale sums are averages (pavgw), exact in the
    /// vertical pass and rounded in the horizontal one. Each pair truncates less than 1/256 of a
    /// level, so a pass stays within (r + 1)/256 of a level of the float kernel before the final
    /// rounding (0.12 at σ 10, 0.24 at σ 19.9).
    ///
    /// With ``interpolatesRows`` only rows even in image coordinates are filtered; an odd row is
    /// the cubic midpoint of the four even rows around it (`_midRow`), so tiles agree wherever
    /// they are cut.
    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        #if arch(x86_64)
            if CPUFeatures.wideVectors { return applyAVX512(input: input, output: output, scratch: scratch) }
        #endif
        let out = output.rect, r = radius, fixed = fixedWeights
        // Centre weight, and twice each side weight (pairs are summed at half scale).
        let centre = SIMD8<UInt16>(repeating: fixed[0])
        let pairs = scratch.buffer(of: SIMD8<UInt16>.self, count: r + 1)
        for k in 1...r { pairs[k] = SIMD8(repeating: UInt16(min(65535, 2 * Int(fixed[k])))) }
        let bpp = input.channels  // bytes a pixel: 4 (RGBA) or 1 (grey)
        let n = out.width * bpp  // output values per row
        let span = n + 2 * bpp * r  // the vertical pass covers r pixels more on each side
        let rows = scratch.buffer(of: UnsafeRawPointer.self, count: 2 * r + 1)
        // The 16-bit rows, one after the other in one buffer: separate buffers start at the same
        // offset in a page, and a pass storing to one while loading from another at a multiple of
        // 4 KiB away stalls on false store-to-load dependencies.
        let interpolated = interpolatesRows
        let first = (out.y - 2) & ~1, last = (out.maxY + 2) & ~1
        let anchors = interpolated ? (last - first) / 2 + 1 : 0, pitch = (n + 16 + 31) & ~31 | 16
        let mid = scratch.buffer(of: UInt16.self, count: span + 48 + pitch * (anchors + 1))
        let line = mid + (span + 48), filtered = line + pitch
        /// Row `y` filtered, as words (value x 256, rounding included).
        func filteredRow(_ y: Int, into words: UnsafeMutablePointer<UInt16>, bytes: UnsafeMutablePointer<UInt8>? = nil) {
            for k in -r...r { rows[k + r] = UnsafeRawPointer(input.pointer(x: out.x - r, y: y + k)) }
            _verticalPass(rows: rows, radius: r, centre: centre, pairs: pairs, fixedCentre: fixed[0], count: span, into: mid)
            _horizontalPass(
                mid + bpp * r, step: bpp, radius: r, centre: centre, pairs: pairs, fixedCentre: fixed[0],
                count: n, into: words, bytes: bytes)
        }
        guard interpolated else {
            for y in out.y..<out.maxY { filteredRow(y, into: line, bytes: output.row(y)) }
            return
        }
        // The even rows from the first one an output row needs to the last (y − 3 ... y + 3 for
        // an odd row y).
        for j in 0..<anchors { filteredRow(first + 2 * j, into: filtered + j * pitch) }
        for y in out.y..<out.maxY {
            let anchor = (y - first) >> 1
            var row = filtered + anchor * pitch
            if y & 1 == 1 {
                let above = row - pitch
                _midRow(above, above + pitch, above + 2 * pitch, above + 3 * pitch, count: n, into: line)
                row = line
            }
            _storeHighBytes(row, count: n, into: output.row(y))
        }
    }

    #if arch(x86_64)
        /// The same arithmetic with 512-bit vectors (SfumatoAVX512's `_gaussianTileAVX512`); opaque
        /// RGBA tiles skip alpha when the fixed-point weights give 255 back for 255.
        /// With `linear` (decoding and encoding tables, ``_LinearWords``) the words are linear light.
        func applyAVX512(
            input: ByteTile, output: ByteTile, scratch: TileScratch,
            linear: (decode: UnsafePointer<UInt16>, encode: UnsafePointer<UInt8>)? = nil,
            detail: _DetailKernel.Words? = nil
        ) {
            let out = output.rect, r = radius, bpp = input.channels
            let fixed = fixedWeights
            let pairs = scratch.buffer(of: UInt16.self, count: r + 1)
            for k in 1...r { pairs[k] = UInt16(min(65535, 2 * Int(fixed[k]))) }
            let margin = interpolatesRows ? r + 3 : r
            let origin = input.pointer(x: out.x - r, y: out.y - margin)
            let words = _gaussianTileScratchWordsAVX512(
                width: out.width, height: out.height, bytesPerPixel: bpp, radius: r,
                interpolatingRows: interpolatesRows)
            _gaussianTileAVX512(
                input: origin, inputStride: bpp * input.stride, output: output.row(out.y),
                outputStride: bpp * output.stride, width: out.width, height: out.height, bytesPerPixel: bpp,
                dropAlpha: bpp == 4 && keepsOpaque, radius: r, centre: fixed[0], pairs: pairs,
                interpolatingRows: interpolatesRows, oddFirstRow: out.y & 1 == 1,
                scratch: scratch.buffer(of: UInt16.self, count: words), decode: linear?.decode, encode: linear?.encode,
                detail: detail?.mode ?? 0, detailAmount: detail?.amount ?? 0, detailThreshold: detail?.threshold ?? 0,
                blurOffset: detail?.blurOffset ?? 0, outputOffset: detail?.outputOffset ?? 0)
        }
    #endif
}

/// The vertical pass over `count` values: bytes from the 2r + 1 `rows` in, value x 256 out.
@inline(__always)
private func _verticalPass(
    rows: UnsafeMutablePointer<UnsafeRawPointer>, radius r: Int, centre: SIMD8<UInt16>,
    pairs: UnsafeMutablePointer<SIMD8<UInt16>>, fixedCentre: UInt16, count span: Int,
    into mid: UnsafeMutablePointer<UInt16>
) {
    let c = rows[r], midRaw = UnsafeMutableRawPointer(mid)
    var i = 0
    // Bytes go straight into the high halves of 16-bit lanes (value x 256, no shift), and a
    // pair's (a + b) x 128 is the average of a x 256 and b x 256, exact since both are even: one
    // pavgw instead of an add and a shift.
    @inline(__always) func load256(_ p: UnsafeRawPointer, _ at: Int) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
        _bytesTimes256(p.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))
    }
    // Thirty-two values per step in four independent sums (the multiply-highs of one sum wait on
    // each other; four keep the vector units busy, and the row pointers and the weight are
    // loaded once for all of them); the row's last few values eight at a time.
    while i &+ 32 <= span {
        let cv = load256(c, i), cv2 = load256(c, i &+ 16)
        var acc = _mulhi(cv.low, centre), acc2 = _mulhi(cv.high, centre)
        var acc3 = _mulhi(cv2.low, centre), acc4 = _mulhi(cv2.high, centre)
        var k = 1
        while k <= r {
            let pa = rows[r &- k], pb = rows[r &+ k], w = pairs[k]
            let a = load256(pa, i), b = load256(pb, i), a2 = load256(pa, i &+ 16), b2 = load256(pb, i &+ 16)
            acc &+= _mulhi(_average(a.low, b.low), w)
            acc2 &+= _mulhi(_average(a.high, b.high), w)
            acc3 &+= _mulhi(_average(a2.low, b2.low), w)
            acc4 &+= _mulhi(_average(a2.high, b2.high), w)
            k &+= 1
        }
        _storeWords(acc, acc2, acc3, acc4, to: midRaw, at: i)
        i &+= 32
    }
    while i &+ 8 <= span {
        let v = SIMD8<UInt16>(truncatingIfNeeded: c.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self)) &<< 8
        var acc = _mulhi(v, centre)
        var k = 1
        while k <= r {
            let a = SIMD8<UInt16>(truncatingIfNeeded: rows[r &- k].loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self))
            let b = SIMD8<UInt16>(truncatingIfNeeded: rows[r &+ k].loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self))
            acc &+= _mulhi((a &+ b) &<< 7, pairs[k])
            k &+= 1
        }
        midRaw.storeBytes(of: acc, toByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
        i &+= 8
    }
    while i < span {
        var acc = (UInt32(c.load(fromByteOffset: i, as: UInt8.self)) << 8 &* UInt32(fixedCentre)) >> 16
        for k in 1...r {
            let sum = UInt32(rows[r - k].load(fromByteOffset: i, as: UInt8.self)) + UInt32(rows[r + k].load(fromByteOffset: i, as: UInt8.self))
            acc += ((sum << 7) * UInt32(pairs[k][0])) >> 16
        }
        mid[i] = UInt16(min(acc, 65535))
        i += 1
    }
}

/// The horizontal pass: taps `step` values (a pixel) apart along the 16-bit row `m` (readable
/// step·r values either side), plus 128 for the final rounding; `count` words out, or their high
/// bytes when `bytes` is given (one pass fewer over the row).
@inline(__always)
private func _horizontalPass(
    _ mid: UnsafeMutablePointer<UInt16>, step bpp: Int, radius r: Int, centre: SIMD8<UInt16>,
    pairs: UnsafeMutablePointer<SIMD8<UInt16>>, fixedCentre: UInt16, count n: Int,
    into d: UnsafeMutablePointer<UInt16>, bytes: UnsafeMutablePointer<UInt8>? = nil
) {
    let m = UnsafeRawPointer(mid), out = UnsafeMutableRawPointer(d)
    // The sums are value x 256 (at most 65535): shifted down they are bytes, packed two vectors
    // to one store.
    @inline(__always) func packed(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD16<UInt8> {
        _packedBytes(SIMD8<Int16>(truncatingIfNeeded: a &>> 8), SIMD8<Int16>(truncatingIfNeeded: b &>> 8))
    }
    var i = 0
    @inline(__always) func at(_ j: Int) -> SIMD8<UInt16> { m.loadUnaligned(fromByteOffset: 2 &* j, as: SIMD8<UInt16>.self) }
    // Thirty-two values per step, each weight loaded once for all sums; the rest eight at a time.
    while i &+ 32 <= n {
        var acc = _mulhi(at(i), centre) &+ 128, acc2 = _mulhi(at(i &+ 8), centre) &+ 128
        var acc3 = _mulhi(at(i &+ 16), centre) &+ 128, acc4 = _mulhi(at(i &+ 24), centre) &+ 128
        var k = 1
        while k <= r {
            let w = pairs[k], o = bpp &* k
            // Half the pair's sum, rounded (pavgw): no overflow, no shifts.
            acc &+= _mulhi(_average(at(i &- o), at(i &+ o)), w)
            acc2 &+= _mulhi(_average(at(i &+ 8 &- o), at(i &+ 8 &+ o)), w)
            acc3 &+= _mulhi(_average(at(i &+ 16 &- o), at(i &+ 16 &+ o)), w)
            acc4 &+= _mulhi(_average(at(i &+ 24 &- o), at(i &+ 24 &+ o)), w)
            k &+= 1
        }
        if let bytes {
            UnsafeMutableRawPointer(bytes + i).storeBytes(of: packed(acc, acc2), as: SIMD16<UInt8>.self)
            UnsafeMutableRawPointer(bytes + i + 16).storeBytes(of: packed(acc3, acc4), as: SIMD16<UInt8>.self)
        } else {
            _storeWords(acc, acc2, acc3, acc4, to: out, at: i)
        }
        i &+= 32
    }
    while i &+ 8 <= n {
        var acc = _mulhi(at(i), centre) &+ 128
        var k = 1
        while k <= r {
            acc &+= _mulhi(_average(at(i &- bpp &* k), at(i &+ bpp &* k)), pairs[k])
            k &+= 1
        }
        if let bytes {
            UnsafeMutableRawPointer(bytes + i).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: acc &>> 8), as: SIMD8<UInt8>.self)
        } else {
            out.storeBytes(of: acc, toByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
        }
        i &+= 8
    }
    while i < n {
        var acc: UInt32 = 128 + (UInt32(mid[i]) * UInt32(fixedCentre)) >> 16
        for k in 1...r {
            let sum = (UInt32(mid[i - bpp * k]) + UInt32(mid[i + bpp * k]) + 1) >> 1
            acc += (sum * UInt32(pairs[k][0])) >> 16
        }
        if let bytes { bytes[i] = UInt8(truncatingIfNeeded: acc >> 8) } else { d[i] = UInt16(truncatingIfNeeded: acc) }
        i += 1
    }
}

/// The cubic (Catmull-Rom, −1 9 9 −1 over 16) midpoint of rows b and c, whose neighbours are
/// a and d, in 16-bit steps: m = avg(b, c), e = avg(a, d) (both rounded up, pavgw), then
/// m + ((m >> 1) − (e >> 1)) >> 2 with an arithmetic shift, saturated to 0...65535. The AVX-512
/// tile (`_midRowWords`) takes the same steps.
@inline(__always)
private func _midRow(
    _ a: UnsafeMutablePointer<UInt16>, _ b: UnsafeMutablePointer<UInt16>, _ c: UnsafeMutablePointer<UInt16>,
    _ d: UnsafeMutablePointer<UInt16>, count n: Int, into o: UnsafeMutablePointer<UInt16>
) {
    var i = 0
    while i &+ 8 <= n {
        @inline(__always) func at(_ p: UnsafeMutablePointer<UInt16>) -> SIMD8<UInt16> {
            UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<UInt16>.self)
        }
        UnsafeMutableRawPointer(o + i).storeBytes(of: _cubicMidpoint(at(a), at(b), at(c), at(d)), as: SIMD8<UInt16>.self)
        i &+= 8
    }
    while i < n {
        let m = (Int(b[i]) + Int(c[i]) + 1) >> 1, e = (Int(a[i]) + Int(d[i]) + 1) >> 1
        o[i] = UInt16(min(max(m + (((m >> 1) - (e >> 1)) >> 2), 0), 65535))
        i += 1
    }
}

/// `_midRow` on eight lanes: psrlw, psubw, psraw, pmaxsw, paddusw and psubusw on x86-64 (the
/// same steps written with SIMD masks compile to a lane at a time there, twice as slow as the
/// whole filter it saves).
@inline(__always)
private func _cubicMidpoint(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>, _ c: SIMD8<UInt16>, _ d: SIMD8<UInt16>) -> SIMD8<UInt16> {
    let m = _average(b, c), e = _average(a, d)
    #if arch(x86_64)
        let mv = unsafeBitCast(m, to: __m128i.self), ev = unsafeBitCast(e, to: __m128i.self), zero = _mm_setzero_si128()
        let delta = _mm_srai_epi16(_mm_sub_epi16(_mm_srli_epi16(mv, 1), _mm_srli_epi16(ev, 1)), 2)
        let up = _mm_max_epi16(delta, zero), down = _mm_max_epi16(_mm_sub_epi16(zero, delta), zero)
        return unsafeBitCast(_mm_subs_epu16(_mm_adds_epu16(mv, up), down), to: SIMD8<UInt16>.self)
    #else
        let delta = (SIMD8<Int16>(truncatingIfNeeded: m &>> 1) &- SIMD8<Int16>(truncatingIfNeeded: e &>> 1)) &>> 2
        let up = SIMD8<UInt16>(truncatingIfNeeded: delta.replacing(with: 0, where: delta .< 0))
        let down = SIMD8<UInt16>(truncatingIfNeeded: (0 &- delta).replacing(with: 0, where: delta .> 0))
        var v = m &+ up
        v.replace(with: .max, where: v .< m)
        let w = v &- down
        return w.replacing(with: 0, where: w .> v)
    #endif
}

/// The high byte of each of `count` words (the value once the 8 fractional bits go).
@inline(__always)
private func _storeHighBytes(_ s: UnsafeMutablePointer<UInt16>, count n: Int, into d: UnsafeMutablePointer<UInt8>) {
    let raw = UnsafeRawPointer(s)
    var i = 0
    while i &+ 16 <= n {
        let a = raw.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
        let b = raw.loadUnaligned(fromByteOffset: 2 &* i &+ 16, as: SIMD8<UInt16>.self)
        UnsafeMutableRawPointer(d + i).storeBytes(
            of: _packedBytes(
                SIMD8<Int16>(truncatingIfNeeded: a &>> 8),
                SIMD8<Int16>(truncatingIfNeeded: b &>> 8)),
            as: SIMD16<UInt8>.self)
        i &+= 16
    }
    while i < n {
        d[i] = UInt8(truncatingIfNeeded: s[i] >> 8)
        i += 1
    }
}

/// Stores 32 words (four vectors) at word index `i` of a word row.
@inline(__always)
func _storeWords(
    _ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>, _ c: SIMD8<UInt16>, _ d: SIMD8<UInt16>,
    to row: UnsafeMutableRawPointer, at i: Int
) {
    row.storeBytes(of: a, toByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
    row.storeBytes(of: b, toByteOffset: 2 &* (i &+ 8), as: SIMD8<UInt16>.self)
    row.storeBytes(of: c, toByteOffset: 2 &* (i &+ 16), as: SIMD8<UInt16>.self)
    row.storeBytes(of: d, toByteOffset: 2 &* (i &+ 24), as: SIMD8<UInt16>.self)
}
