// A 3x4 colour matrix over opaque 8-bit RGBA, 16 pixels a step: the baseline loop of
// SfumatoCore's PointProgram.swift (`mapMatrixTail`, plain rounding table) with the same float
// operations in the same order, so the bytes are identical.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// Maps opaque pixels from `s` to `d`: channel c becomes the level nearest
    /// clamp((m[c][0]·r + m[c][1]·g) + m[c][2]·b + m[c][3], 0, top) · step, where `m` is 12 floats
    /// row by row (already in table steps) and r, g, b are the bytes. Stops before the first group
    /// of 16 pixels with any alpha below 255 and returns how many pixels it mapped.
    @inline(never)
    public func _matrixBytesAVX512(
        _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, count: Int,
        matrix m: UnsafePointer<Float>, top: Float, step: Float
    ) -> Int {
        @inline(__always) func all(_ v: Float) -> __m512 { _mm512_set1_ps(v) }
        let m00 = all(m[0]), m01 = all(m[1]), m02 = all(m[2]), b0 = all(m[3])
        let m10 = all(m[4]), m11 = all(m[5]), m12 = all(m[6]), b1 = all(m[7])
        let m20 = all(m[8]), m21 = all(m[9]), m22 = all(m[10]), b2 = all(m[11])
        let magic = all(12_582_912), highest = all(12_582_912 + top), stepV = all(step)
        let bias = _mm512_set1_epi32(0x4B40_0000), byte = _mm512_set1_epi32(0xFF)
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000)), ones = _mm512_set1_epi32(-1)
        // The nearest table step, clamped, then the nearest level of it (the 1.5 x 2^23 trick both times).
        @inline(__always) func level(_ v: __m512) -> __m512i {
            let clamped = _mm512_min_ps(_mm512_max_ps(_mm512_add_ps(v, magic), magic), highest)
            let scaled = _mm512_mul_ps(_mm512_sub_ps(clamped, magic), stepV)
            return _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(scaled, magic)), bias)
        }
        @inline(__always) func row(_ a: __m512, _ b: __m512, _ c: __m512, _ o: __m512, _ r: __m512, _ g: __m512, _ bl: __m512) -> __m512 {
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a, r), _mm512_mul_ps(b, g)), _mm512_mul_ps(c, bl)), o)
        }
        var i = 0
        while i &+ 16 <= count {
            let p = s.loadUnaligned(fromByteOffset: 4 &* i, as: __m512i.self)
            if _mm512_test_epi32_mask(_mm512_andnot_si512(p, ones), alpha) != 0 { break }
            let r = _mm512_cvtepi32_ps(_mm512_and_si512(p, byte))
            let g = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(p, 8), byte))
            let b = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(p, 16), byte))
            let x = level(row(m00, m01, m02, b0, r, g, b))
            let y = _mm512_slli_epi32(level(row(m10, m11, m12, b1, r, g, b)), 8)
            let z = _mm512_slli_epi32(level(row(m20, m21, m22, b2, r, g, b)), 16)
            d.storeBytes(of: _mm512_or_si512(_mm512_or_si512(x, y), _mm512_or_si512(z, alpha)), toByteOffset: 4 &* i, as: __m512i.self)
            i &+= 16
        }
        return i
    }
#endif
