// A 256-entry byte table applied to bytes, 64 at a time: two two-source byte permutes look up
// the low and high halves of the table, and each byte's top bit picks between them.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// d[i] = table[s[i]] for i in 0..<count (`d` may be `s`). `table` holds 256 bytes.
    @inline(never)
    public func _lookupBytesAVX512(_ table: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int) {
        let t = UnsafeRawPointer(table)
        let t0 = t.loadUnaligned(as: __m512i.self), t1 = t.loadUnaligned(fromByteOffset: 64, as: __m512i.self)
        let t2 = t.loadUnaligned(fromByteOffset: 128, as: __m512i.self), t3 = t.loadUnaligned(fromByteOffset: 192, as: __m512i.self)
        var i = 0
        while i < count {
            let n = count &- i < 64 ? count &- i : 64
            let mask: UInt64 = n == 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let v = _mm512_maskz_loadu_epi8(mask, s + i)
            let low = _mm512_permutex2var_epi8(t0, v, t1), high = _mm512_permutex2var_epi8(t2, v, t3)
            _mm512_mask_storeu_epi8(d + i, mask, _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), low, high))
            i &+= 64
        }
    }
#endif

#if arch(x86_64)
    /// Per-channel tables on opaque RGBA8 pixels, 16 at a time: each of the three tables (`tables`,
    /// 256 bytes each for R, G, B) looked up over all 64 bytes by the permutes above, then each
    /// byte taken from its channel's result (alpha from the source). Stops at the first 16 pixels
    /// with any alpha below 255 and returns how many pixels it mapped (a multiple of 16). `s` and
    /// `d` may be the same.
    @inline(never)
    public func _lookupOpaqueRGBAAVX512(_ tables: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let t = UnsafeRawPointer(tables)
        @inline(__always) func quarters(_ base: Int) -> (__m512i, __m512i, __m512i, __m512i) {
            (
                t.loadUnaligned(fromByteOffset: base, as: __m512i.self), t.loadUnaligned(fromByteOffset: base + 64, as: __m512i.self),
                t.loadUnaligned(fromByteOffset: base + 128, as: __m512i.self), t.loadUnaligned(fromByteOffset: base + 192, as: __m512i.self)
            )
        }
        let (r0, r1, r2, r3) = quarters(0), (g0, g1, g2, g3) = quarters(256), (b0, b1, b2, b3) = quarters(512)
        // Byte k of a pixel is channel k: masks of the G, B and A bytes of 16 pixels.
        let green: UInt64 = 0x2222_2222_2222_2222, blue: UInt64 = 0x4444_4444_4444_4444, alpha: UInt64 = 0x8888_8888_8888_8888
        let alphaBytes = _mm512_set1_epi32(-16_777_216)  // 0xFF000000: each pixel's alpha byte
        var i = 0
        while i &+ 16 <= count {
            let v = _mm512_loadu_si512(s + 4 &* i)
            // Any alpha bit clear: not all opaque.
            let clear = _mm512_andnot_si512(v, alphaBytes)
            if _mm512_test_epi64_mask(clear, clear) != 0 { break }
            let high = _mm512_movepi8_mask(v)
            let r = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(r0, v, r1), _mm512_permutex2var_epi8(r2, v, r3))
            let g = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(g0, v, g1), _mm512_permutex2var_epi8(g2, v, g3))
            let b = _mm512_mask_blend_epi8(high, _mm512_permutex2var_epi8(b0, v, b1), _mm512_permutex2var_epi8(b2, v, b3))
            let out = _mm512_mask_blend_epi8(alpha, _mm512_mask_blend_epi8(blue, _mm512_mask_blend_epi8(green, r, g), b), v)
            _mm512_storeu_si512(d + 4 &* i, out)
            i &+= 16
        }
        return i
    }
#endif
