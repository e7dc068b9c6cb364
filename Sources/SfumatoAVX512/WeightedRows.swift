// Weighted sums of byte rows as floats, 64 bytes a step: the vertical pass of a shrinking
// resample on 8-bit tiles (`_weightedByteRows` in SfumatoCore is the baseline, 16 bytes a step).

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// out[k] = sum over t of Float(rows[t][k]) x weights[t], taps in order, each product
    /// rounded and then added (no fused multiply-add: the baseline's roundings exactly), for k
    /// in whole 64-byte steps of `bytes`. Returns how many bytes it did; the caller does the rest.
    @inline(never)
    public func _weightedByteRowsAVX512(
        _ rows: UnsafePointer<UnsafePointer<UInt8>>, weights: UnsafePointer<Float>, taps: Int, bytes: Int,
        into out: UnsafeMutablePointer<Float>
    ) -> Int {
        @inline(__always) func floats(_ p: UnsafeRawPointer, _ at: Int) -> __m512 {
            _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(p.loadUnaligned(fromByteOffset: at, as: __m128i.self)))
        }
        var k = 0
        while k &+ 64 <= bytes {
            var a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0
            var t = 0
            while t < taps {
                let p = UnsafeRawPointer(rows[t] + k), c = _mm512_set1_ps(weights[t])
                a0 = _mm512_add_ps(a0, _mm512_mul_ps(floats(p, 0), c))
                a1 = _mm512_add_ps(a1, _mm512_mul_ps(floats(p, 16), c))
                a2 = _mm512_add_ps(a2, _mm512_mul_ps(floats(p, 32), c))
                a3 = _mm512_add_ps(a3, _mm512_mul_ps(floats(p, 48), c))
                t &+= 1
            }
            let o = UnsafeMutableRawPointer(out + k)
            o.storeBytes(of: a0, toByteOffset: 0, as: __m512.self)
            o.storeBytes(of: a1, toByteOffset: 64, as: __m512.self)
            o.storeBytes(of: a2, toByteOffset: 128, as: __m512.self)
            o.storeBytes(of: a3, toByteOffset: 192, as: __m512.self)
            k &+= 64
        }
        return k
    }
#endif
