// Blend modes over opaque 8-bit RGBA rows, 16 pixels a step: the baseline's lane arithmetic
// (SfumatoFilters' `_opaqueByteRows` with each mode's closure) on 512-bit vectors, so the same
// bytes. Both rows' alpha must be 255 throughout a step; the twin stops before the first step
// that is not, and the baseline takes over there.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// How a step's colour channels combine, per byte.
    public enum _OpaqueBlendAVX512: Sendable {
        /// round(b · s / 255), as `_dividedBy255(b &* s)`.
        case multiply
        /// |b − s|.
        case difference
        /// min(b, s).
        case darken
        /// max(b, s).
        case lighten
        /// max(b − s, 0).
        case subtract
        /// min(b + s, 255).
        case linearDodge
        /// max(b + s − 255, 0), as b − (255 − s) saturated.
        case linearBurn
    }

    /// Blends `count` pixels of source `f` over backdrop `b` into `o` while both are opaque, 16
    /// pixels a step. Returns how many pixels it wrote (whole steps; the caller does the rest).
    @inline(never)
    public func _opaqueBlendBytesAVX512(
        _ mode: _OpaqueBlendAVX512, _ f: UnsafeRawPointer, _ b: UnsafeRawPointer, _ o: UnsafeMutableRawPointer, count: Int
    ) -> Int {
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000)), zero = _mm512_setzero_si512()
        let half = _mm512_set1_epi16(128)
        var i = 0
        while i &+ 16 <= count {
            let s = f.loadUnaligned(fromByteOffset: 4 &* i, as: __m512i.self)
            let d = b.loadUnaligned(fromByteOffset: 4 &* i, as: __m512i.self)
            // Zero in every lane where both alphas are 255.
            let missing = _mm512_xor_si512(_mm512_and_si512(_mm512_and_si512(s, d), alpha), alpha)
            guard _mm512_test_epi32_mask(missing, missing) == 0 else { break }
            let r: __m512i
            switch mode {
            case .difference:
                r = _mm512_or_si512(_mm512_subs_epu8(d, s), _mm512_subs_epu8(s, d))
            case .darken:
                r = _mm512_min_epu8(d, s)
            case .lighten:
                r = _mm512_max_epu8(d, s)
            case .subtract:
                r = _mm512_subs_epu8(d, s)
            case .linearDodge:
                r = _mm512_adds_epu8(d, s)
            case .linearBurn:
                r = _mm512_subs_epu8(d, _mm512_xor_si512(s, _mm512_set1_epi8(-1)))
            case .multiply:
                // Words in lane order within each 128-bit lane; packing undoes the interleave.
                func product(_ x: __m512i, _ y: __m512i) -> __m512i {
                    let t = _mm512_add_epi16(_mm512_mullo_epi16(x, y), half)
                    return _mm512_srli_epi16(_mm512_add_epi16(t, _mm512_srli_epi16(t, 8)), 8)
                }
                let low = product(_mm512_unpacklo_epi8(d, zero), _mm512_unpacklo_epi8(s, zero))
                let high = product(_mm512_unpackhi_epi8(d, zero), _mm512_unpackhi_epi8(s, zero))
                r = _mm512_packus_epi16(low, high)
            }
            o.storeBytes(of: _mm512_or_si512(r, alpha), toByteOffset: 4 &* i, as: __m512i.self)
            i &+= 16
        }
        return i
    }
#endif
