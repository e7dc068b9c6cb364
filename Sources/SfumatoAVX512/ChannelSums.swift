// Per-channel sums of opaque 8-bit RGBA rows, 64 bytes a step, in 16-bit lanes widened every 256
// steps. Exact, so the sums are the baseline's (`_LevelScan.addSums`, 16 bytes a step).

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// The sums of R, G, B and A over the first `bytes` bytes at `row` (RGBA8, `bytes` a multiple
    /// of 64).
    /// 32-bit lanes added into 64-bit sums.
    @inline(__always)
    private func _widenedSum(_ sum: __m512i, _ lanes: __m512i) -> __m512i {
        let low = _mm512_and_si512(lanes, _mm512_set1_epi64(0xFFFF_FFFF)), high = _mm512_srli_epi64(lanes, 32)
        return _mm512_add_epi64(sum, _mm512_add_epi64(low, high))
    }

    @inline(never)
    public func _channelSumsAVX512(_ row: UnsafeRawPointer, bytes: Int) -> SIMD4<UInt64> {
        // R and B in the 16-bit halves of each 32-bit lane, G and A in a second vector: two
        // masks, a shift and two 16-bit additions a step; the halves go into 64-bit sums before
        // a 16-bit lane can pass 65,535 (256 steps of at most 255).
        let pairs = _mm512_set1_epi32(0x00FF_00FF), low = _mm512_set1_epi32(0xFFFF), zero = _mm512_setzero_si512()
        var r = zero, g = zero, b = zero, a = zero
        var i = 0
        while i &+ 64 <= bytes {
            var rb = zero, ga = zero
            let end = min(bytes &- 63, i &+ 256 &* 64)
            while i < end {
                let p = row.loadUnaligned(fromByteOffset: i, as: __m512i.self)
                rb = _mm512_add_epi16(rb, _mm512_and_si512(p, pairs))
                ga = _mm512_add_epi16(ga, _mm512_and_si512(_mm512_srli_epi32(p, 8), pairs))
                i &+= 64
            }
            r = _widenedSum(r, _mm512_and_si512(rb, low))
            b = _widenedSum(b, _mm512_srli_epi32(rb, 16))
            g = _widenedSum(g, _mm512_and_si512(ga, low))
            a = _widenedSum(a, _mm512_srli_epi32(ga, 16))
        }
        return SIMD4(
            UInt64(bitPattern: _mm512_reduce_add_epi64(r)), UInt64(bitPattern: _mm512_reduce_add_epi64(g)),
            UInt64(bitPattern: _mm512_reduce_add_epi64(b)), UInt64(bitPattern: _mm512_reduce_add_epi64(a)))
    }
#endif
