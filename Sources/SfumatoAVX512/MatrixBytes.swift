// A 3x4 colour matrix over opaque 8-bit RGBA, 16 pixels a step: the baseline loop of
// SfumatoCore's PointProgram.swift (`mapMatrixTail`, plain rounding table) with the same float
// products and sums in the same order, so the same table steps and the same bytes.
//
// The rounding after the matrix is done in integers, which gives the baseline's results exactly
// and takes fewer instructions: the baseline clamps and rounds to a table step (0...2^14) with
// the 1.5 x 2^23 trick and then rounds step x 255 / 2^14 to a level, both in floats, half to
// even. Here the step is `cvtps2dq` (half to even, the default rounding mode) after one
// `minps`, clamped in 16-bit lanes, and the level is `pmulhrsw` by 510, which is
// floor((step x 255 + 2^13) / 2^14): half up, which differs from half to even only at a tie,
// and the one step with a tie (8192, level 127.5) rounds up to the even 128 either way.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// Maps opaque pixels from `s` to `d`: channel c becomes the level nearest
    /// clamp(round((m[c][0]·r + m[c][1]·g) + m[c][2]·b + m[c][3]), 0, 2^14) · 255 / 2^14, where `m`
    /// is 12 floats row by row (already in table steps) and r, g, b are the bytes. Stops before
    /// the first group of 16 pixels with any alpha below 255 and returns how many pixels it
    /// mapped; maps none unless `steps` is 2^14 (the table the integer rounding is exact for).
    @inline(never)
    public func _matrixBytesAVX512(
        _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, count: Int, matrix m: UnsafePointer<Float>, steps: Int
    ) -> Int {
        guard steps == 1 << 14 else { return 0 }
        @inline(__always) func all(_ v: Float) -> __m512 { _mm512_set1_ps(v) }
        let m00 = all(m[0]), m01 = all(m[1]), m02 = all(m[2]), b0 = all(m[3])
        let m10 = all(m[4]), m11 = all(m[5]), m12 = all(m[6]), b1 = all(m[7])
        let m20 = all(m[8]), m21 = all(m[9]), m22 = all(m[10]), b2 = all(m[11])
        let top = all(16384), topWords = _mm512_set1_epi16(16384), zero = _mm512_setzero_si512()
        let toLevels = _mm512_set1_epi16(510), byte = _mm512_set1_epi32(0xFF)
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000)), ones = _mm512_set1_epi32(-1)
        // Each 128-bit lane of the packed bytes holds r0..r3 g0..g3 b0..b3 b0..b3 of its four
        // pixels; this puts them in pixel order (index -1, with its top bit set, gives a 0 for alpha).
        let order = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, -1, 1, 5, 9, -1, 2, 6, 10, -1, 3, 7, 11, -1))
        // The step nearest v, as a 32-bit integer: `minps` with the limit first, so that NaN
        // (which `minps` passes on as its second operand) converts to the integer indefinite,
        // which the word clamp below makes 0, as the baseline's clamp makes NaN 0.
        @inline(__always) func step(_ v: __m512) -> __m512i { _mm512_cvtps_epi32(_mm512_min_ps(top, v)) }
        @inline(__always) func row(_ a: __m512, _ b: __m512, _ c: __m512, _ o: __m512, _ r: __m512, _ g: __m512, _ bl: __m512) -> __m512 {
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a, r), _mm512_mul_ps(b, g)), _mm512_mul_ps(c, bl)), o)
        }
        // Steps in 16-bit lanes (saturated), clamped to 0...2^14, then levels.
        @inline(__always) func levels(_ steps: __m512i) -> __m512i {
            _mm512_mulhrs_epi16(_mm512_min_epi16(_mm512_max_epi16(steps, zero), topWords), toLevels)
        }
        var i = 0
        while i &+ 16 <= count {
            let p = s.loadUnaligned(fromByteOffset: 4 &* i, as: __m512i.self)
            if _mm512_test_epi32_mask(_mm512_andnot_si512(p, ones), alpha) != 0 { break }
            let r = _mm512_cvtepi32_ps(_mm512_and_si512(p, byte))
            let g = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(p, 8), byte))
            let b = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(p, 16), byte))
            let x = step(row(m00, m01, m02, b0, r, g, b))
            let y = step(row(m10, m11, m12, b1, r, g, b))
            let z = step(row(m20, m21, m22, b2, r, g, b))
            let xy = levels(_mm512_packs_epi32(x, y)), zz = levels(_mm512_packs_epi32(z, z))
            let pixels = _mm512_shuffle_epi8(_mm512_packus_epi16(xy, zz), order)
            d.storeBytes(of: _mm512_or_si512(pixels, alpha), toByteOffset: 4 &* i, as: __m512i.self)
            i &+= 16
        }
        return i
    }
#endif
