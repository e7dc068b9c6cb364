// Per-channel sums of opaque 8-bit RGBA rows, 64 bytes a step, in 16-bit lanes widened every 256
// steps. Exact, so the sums are the baseline's (`_LevelScan.addSums`, 16 bytes a step).

#if arch(x86_64)
    import CWideVectors
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

#if arch(x86_64)
    /// Adds the bytes of the first `bytes` bytes at `row` (packed RGB, `bytes` a multiple of
    /// 192: three 64-byte vectors a step, 64 pixels) to 192 position lanes: `lanes[32k + m]`
    /// gains, from each step, byte 64 (k / 2) + 2w + k % 2 with w = 2m for m < 16 and
    /// 2(m − 16) + 1 above (so its channel is that position modulo 3). Bytes gather in 16-bit
    /// lanes, widened into `lanes` (even words, then odd words) every 256 steps.
    @inline(never)
    public func _packedChannelSumsAVX512(_ row: UnsafeRawPointer, bytes: Int, lanes: UnsafeMutablePointer<UInt32>) {
        let even = _mm512_set1_epi16(0x00FF), zero = _mm512_setzero_si512()
        let out = UnsafeMutableRawPointer(lanes)
        @inline(__always) func widen(_ v: __m512i, _ k: Int) {
            let low = _mm512_and_si512(v, _mm512_set1_epi32(0xFFFF)), high = _mm512_srli_epi32(v, 16)
            let at = 128 &* k
            out.storeBytes(of: _mm512_add_epi32(out.loadUnaligned(fromByteOffset: at, as: __m512i.self), low), toByteOffset: at, as: __m512i.self)
            out.storeBytes(
                of: _mm512_add_epi32(out.loadUnaligned(fromByteOffset: at &+ 64, as: __m512i.self), high), toByteOffset: at &+ 64,
                as: __m512i.self)
        }
        var i = 0
        while i &+ 192 <= bytes {
            var e0 = zero, o0 = zero, e1 = zero, o1 = zero, e2 = zero, o2 = zero
            let end = min(bytes &- 191, i &+ 256 &* 192)
            while i < end {
                // Three lines eight steps ahead: the processor's own prefetchers start slowly on
                // a cold image (area average in the benchmark harness, medians of 3 runs of 21:
                // 2.3 -> 1.9 ms).
                sfumato_prefetch(row.advanced(by: i &+ 1536))
                sfumato_prefetch(row.advanced(by: i &+ 1600))
                sfumato_prefetch(row.advanced(by: i &+ 1664))
                let a = row.loadUnaligned(fromByteOffset: i, as: __m512i.self)
                let b = row.loadUnaligned(fromByteOffset: i &+ 64, as: __m512i.self)
                let c = row.loadUnaligned(fromByteOffset: i &+ 128, as: __m512i.self)
                e0 = _mm512_add_epi16(e0, _mm512_and_si512(a, even)); o0 = _mm512_add_epi16(o0, _mm512_srli_epi16(a, 8))
                e1 = _mm512_add_epi16(e1, _mm512_and_si512(b, even)); o1 = _mm512_add_epi16(o1, _mm512_srli_epi16(b, 8))
                e2 = _mm512_add_epi16(e2, _mm512_and_si512(c, even)); o2 = _mm512_add_epi16(o2, _mm512_srli_epi16(c, 8))
                i &+= 192
            }
            widen(e0, 0); widen(o0, 1); widen(e1, 2); widen(o1, 3); widen(e2, 4); widen(o2, 5)
        }
    }
#endif
