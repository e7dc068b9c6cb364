// Threshold binary over straight 8-bit RGBA, 16 pixels a step: the baseline loop of
// SfumatoFilters' `_Threshold` (Convolution.swift) with the same float operations in the same
// order, so the same pixels pass.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// For each pixel: luma = ((R/255)·w0 + (G/255)·w1) + (B/255)·w2 from the bytes; R, G, B become
    /// `on` where luma > threshold, else `off`, and 0 where alpha is 0; alpha is kept. Returns how
    /// many pixels it mapped (whole groups of 16; the caller maps the rest).
    @inline(never)
    public func _thresholdBytesAVX512(
        _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, count: Int,
        w0: Float, w1: Float, w2: Float, threshold: Float, on: UInt8, off: UInt8
    ) -> Int {
        let byte = _mm512_set1_epi32(0xFF), alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000))
        let scale = _mm512_set1_ps(1 / 255)
        let wr = _mm512_set1_ps(w0), wg = _mm512_set1_ps(w1), wb = _mm512_set1_ps(w2), t = _mm512_set1_ps(threshold)
        let onV = _mm512_set1_epi32(Int32(on) &* 0x01_0101), offV = _mm512_set1_epi32(Int32(off) &* 0x01_0101)
        var i = 0
        while i &+ 16 <= count {
            let p = s.loadUnaligned(fromByteOffset: 4 &* i, as: __m512i.self)
            let r = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(p, byte)), scale)
            let g = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(p, 8), byte)), scale)
            let b = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(p, 16), byte)), scale)
            let l = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(r, wr), _mm512_mul_ps(g, wg)), _mm512_mul_ps(b, wb))
            // Above where threshold - l is negative (its sign bit), as the baseline tests it.
            let above = _mm512_movepi32_mask(_mm512_castps_si512(_mm512_sub_ps(t, l)))
            let visible = _mm512_test_epi32_mask(p, alpha)
            let colour = _mm512_maskz_mov_epi32(visible, _mm512_mask_blend_epi32(above, offV, onV))
            d.storeBytes(of: _mm512_or_si512(colour, _mm512_and_si512(p, alpha)), toByteOffset: 4 &* i, as: __m512i.self)
            i &+= 16
        }
        return i
    }
#endif
