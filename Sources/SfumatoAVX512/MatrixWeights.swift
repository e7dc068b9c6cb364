// A 3x4 colour matrix over opaque 8-bit RGBA in integers, 16 pixels a step: SfumatoCore's
// `_MatrixWeights` (Kernels/MatrixWeights.swift) with VNNI byte dot products. Each 15-bit weight
// W is split as 128·H + L (H a signed byte, L in 0...127), so a channel is two `vpdpbusd` over the
// pixel's four bytes, alpha 255 carrying the bias: (Σ p·H + 2^(F−8))·128 + Σ p·L
// = Σ p·W + 2^(F−1), exactly the baseline's integer, then shifted right by F.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// Channel `c`'s four weights as the high bytes and the low 7-bit parts, one pixel's worth
    /// in each 32-bit lane.
    @inline(__always)
    private func _split(_ w: UnsafePointer<Int16>, _ c: Int) -> (high: __m512i, low: __m512i) {
        var high: UInt32 = 0, low: UInt32 = 0
        for k in 0..<4 {
            let v = Int32(w[4 * c + k])
            high |= UInt32(UInt8(truncatingIfNeeded: v >> 7)) << (8 * k)
            low |= UInt32(v & 127) << (8 * k)
        }
        return (_mm512_set1_epi32(Int32(bitPattern: high)), _mm512_set1_epi32(Int32(bitPattern: low)))
    }

    /// Byte permutes for packed RGB: 16 pixels' 48 bytes spread to one pixel a 32-bit lane (the
    /// fourth byte a copy of blue, replaced by alpha), and the packed levels (per 128-bit lane
    /// r0..r3 g0..g3 b0..b3 b0..b3 of its four pixels) gathered back to 48 bytes of R G B.
    private let _rgbPermutes: (spread: SIMD64<UInt8>, gather: SIMD64<UInt8>) = {
        var spread = SIMD64<UInt8>(), gather = SIMD64<UInt8>()
        for j in 0..<64 { spread[j] = UInt8(3 * (j / 4) + min(j % 4, 2)) }
        for j in 0..<48 {
            let p = j / 3, c = j % 3
            gather[j] = UInt8(16 * (p / 4) + 4 * c + p % 4)
        }
        return (spread, gather)
    }()

    /// The weights of one matrix in lanes, and its levels for 16 pixels (one a 32-bit lane,
    /// R G B and 255 in its bytes): shared by the RGBA and packed-RGB kernels.
    private struct _MatrixLanes {
        let h0: __m512i, l0: __m512i, h1: __m512i, l1: __m512i, h2: __m512i, l2: __m512i
        let start: __m512i
        let shift: UInt32

        @inline(__always) init(_ w: UnsafePointer<Int16>, shift: Int) {
            (h0, l0) = _split(w, 0)
            (h1, l1) = _split(w, 1)
            (h2, l2) = _split(w, 2)
            start = _mm512_set1_epi32(Int32(1 << (shift - 8)))
            self.shift = UInt32(shift)
        }

        @inline(__always) func level(_ p: __m512i, _ h: __m512i, _ l: __m512i) -> __m512i {
            let high = _mm512_slli_epi32(_mm512_dpbusd_epi32(start, p, h), 7)
            return _mm512_srai_epi32(_mm512_dpbusd_epi32(high, p, l), shift)
        }

        /// The three channels' levels, clamped to bytes by signed saturation to 16 bits and then
        /// unsigned to 8: per 128-bit lane r0..r3 g0..g3 b0..b3 b0..b3 of its four pixels.
        @inline(__always) func bytes(_ p: __m512i) -> __m512i {
            let x = level(p, h0, l0), y = level(p, h1, l1), z = level(p, h2, l2)
            return _mm512_packus_epi16(_mm512_packs_epi32(x, y), _mm512_packs_epi32(z, z))
        }
    }

    /// Maps opaque pixels from `s` to `d`, 16 at a time: channel c becomes
    /// clamp(floor((Σ_k w[4c+k]·p_k + 2^(shift−1)) / 2^shift), 0, 255), p = (r, g, b, 255).
    /// `w` holds 12 weights in −16384...16383; `shift` is 8...14. Stops before the first group of
    /// 16 pixels with any alpha below 255 and returns how many pixels it mapped.
    @inline(never)
    public func _matrixWeightsAVX512(
        _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, count: Int, weights w: UnsafePointer<Int16>, shift: Int
    ) -> Int {
        guard (8...14).contains(shift) else { return 0 }
        let lanes = _MatrixLanes(w, shift: shift)
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000)), ones = _mm512_set1_epi32(-1)
        // The levels' bytes in pixel order (index -1, with its top bit set, gives a 0 for alpha).
        let order = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, -1, 1, 5, 9, -1, 2, 6, 10, -1, 3, 7, 11, -1))
        var i = 0
        while i &+ 16 <= count {
            let p = s.loadUnaligned(fromByteOffset: 4 &* i, as: __m512i.self)
            if _mm512_test_epi32_mask(_mm512_andnot_si512(p, ones), alpha) != 0 { break }
            d.storeBytes(of: _mm512_or_si512(_mm512_shuffle_epi8(lanes.bytes(p), order), alpha), toByteOffset: 4 &* i, as: __m512i.self)
            i &+= 16
        }
        return i
    }
#endif

#if arch(x86_64)
    /// `_matrixWeightsAVX512` from packed RGB to packed RGB (3 bytes a pixel, always opaque): the
    /// same integers, 16 pixels (48 bytes) a step; it reads and writes nothing past `count`
    /// pixels, and `d` must not overlap `s`. Returns how many pixels it mapped (a multiple of 16).
    @inline(never)
    public func _matrixWeightsRGBAVX512(
        _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer, count: Int, weights w: UnsafePointer<Int16>, shift: Int
    ) -> Int {
        guard (8...14).contains(shift) else { return 0 }
        let lanes = _MatrixLanes(w, shift: shift)
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000))
        let spread = unsafeBitCast(_rgbPermutes.spread, to: __m512i.self)
        let gather = unsafeBitCast(_rgbPermutes.gather, to: __m512i.self)
        let mask: UInt64 = (1 << 48) - 1
        @inline(__always) func levels(_ packed: __m512i) -> __m512i {
            _mm512_permutexvar_epi8(gather, lanes.bytes(_mm512_or_si512(_mm512_permutexvar_epi8(spread, packed), alpha)))
        }
        var i = 0
        // Whole 64-byte loads and stores while 22 pixels remain (masked ones are slow on some
        // processors): a store's last 16 bytes land on the next step's pixels, which that step
        // then writes (so `d` must not overlap `s`).
        while i &+ 22 <= count {
            let out = levels(s.loadUnaligned(fromByteOffset: 3 &* i, as: __m512i.self))
            d.storeBytes(of: out, toByteOffset: 3 &* i, as: __m512i.self)
            i &+= 16
        }
        while i &+ 16 <= count {
            _mm512_mask_storeu_epi8(d + 3 &* i, mask, levels(_mm512_maskz_loadu_epi8(mask, s + 3 &* i)))
            i &+= 16
        }
        return i
    }
#endif
