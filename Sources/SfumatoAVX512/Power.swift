// sign(x)·|x|^power on floats, 16 lanes a step: SfumatoCore's `vectorPow` (VectorMath.swift) with
// the same operations in the same order (no fused multiply-adds), so the same floats.

#if arch(x86_64)
    import CWideVectors
    import _Builtin_intrinsics.intel

    /// Raises the first multiple of 16 of `count` floats at `p` in place to `power` (sign kept,
    /// `0^power` and denormals 0), as `vectorPow` does lane by lane. Returns how many it raised.
    @inline(never)
    public func _powAVX512(_ p: UnsafeMutablePointer<Float>, count: Int, power: Float) -> Int {
        @inline(__always) func all(_ v: Float) -> __m512 { _mm512_set1_ps(v) }
        @inline(__always) func mul(_ a: __m512, _ b: __m512) -> __m512 { _mm512_mul_ps(a, b) }
        @inline(__always) func add(_ a: __m512, _ b: __m512) -> __m512 { _mm512_add_ps(a, b) }
        @inline(__always) func sub(_ a: __m512, _ b: __m512) -> __m512 { _mm512_sub_ps(a, b) }
        /// One step of Horner's rule, a multiply then an add (no fused multiply-add), as the baseline.
        @inline(__always) func step(_ acc: __m512, _ x: __m512, _ c: __m512) -> __m512 { add(mul(acc, x), c) }
        /// c0 x^5 + ... + c5 by Horner's rule.
        @inline(__always) func horner(
            _ x: __m512, _ c0: __m512, _ c1: __m512, _ c2: __m512, _ c3: __m512, _ c4: __m512, _ c5: __m512
        ) -> __m512 { step(step(step(step(step(c0, x, c1), x, c2), x, c3), x, c4), x, c5) }
        let magic = _mm512_set1_epi32(0x4B40_0000), magicFloat = all(12_582_912)
        // The baseline's `_float(fromSmallInts:)` and `_roundedInts`: integers through the mantissa.
        @inline(__always) func float(_ v: __m512i) -> __m512 { sub(_mm512_castsi512_ps(_mm512_add_epi32(v, magic)), magicFloat) }
        @inline(__always) func rounded(_ v: __m512) -> __m512i { _mm512_sub_epi32(_mm512_castps_si512(add(v, magicFloat)), magic) }
        let one = all(1), root2 = all(1.414_213_5), log2e = all(1.442_695_04), ln2 = all(0.693_147_18)
        // The baseline's constants, divided in Float as its literals are.
        @inline(__always) func inverse(_ n: Float) -> __m512 { all(Float(1) / n) }
        let l0 = inverse(11), l1 = inverse(9), l2 = inverse(7), l3 = inverse(5), l4 = inverse(3), l5 = one
        let e0 = inverse(5040), e1 = inverse(720), e2 = inverse(120), e3 = inverse(24), e4 = inverse(6)
        let e5 = all(0.5), e6 = one, e7 = one
        let low = all(-126), high = all(127.99), smallest = all(Float.leastNormalMagnitude), exponent = all(power)
        let mantissaBits = _mm512_set1_epi32(0x007F_FFFF), oneBits = _mm512_set1_epi32(0x3F80_0000)
        let signMask = _mm512_set1_epi32(Int32(bitPattern: 0x8000_0000)), magnitudeMask = _mm512_set1_epi32(0x7FFF_FFFF)
        let bias = _mm512_set1_epi32(127), ones = _mm512_set1_epi32(1), zero = _mm512_setzero_ps()
        var i = 0
        while i &+ 16 <= count {
            let x = _mm512_castps_si512(UnsafeRawPointer(p + i).loadUnaligned(as: __m512.self))
            let signBits = _mm512_and_si512(x, signMask), bits = _mm512_and_si512(x, magnitudeMask)
            let magnitude = _mm512_castsi512_ps(bits)
            // log2(magnitude)
            var e = _mm512_sub_epi32(_mm512_srai_epi32(bits, 23), bias)
            var m = _mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(bits, mantissaBits), oneBits))
            let big = sfumato_less_ps(root2, m)
            m = _mm512_mask_mov_ps(m, big, mul(m, all(0.5)))
            e = _mm512_mask_mov_epi32(e, big, _mm512_add_epi32(e, ones))
            let t = _mm512_div_ps(sub(m, one), add(m, one))
            let t2 = mul(t, t)
            let s = horner(t2, l0, l1, l2, l3, l4, l5)
            let lnMantissa = mul(mul(all(2), t), s)
            let log2 = add(float(e), mul(lnMantissa, log2e))
            // exp2(log2 · power)
            let y = mul(log2, exponent)
            let clamped = _mm512_min_ps(_mm512_max_ps(y, low), high)
            let whole = rounded(clamped)
            let f = mul(sub(clamped, float(whole)), ln2)
            let q = step(step(horner(f, e0, e1, e2, e3, e4, e5), f, e6), f, e7)
            let scale = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(whole, bias), 23))
            var result = mul(q, scale)
            result = _mm512_mask_mov_ps(result, sfumato_less_ps(y, low), zero)
            result = _mm512_mask_mov_ps(result, sfumato_less_ps(magnitude, smallest), zero)
            let out = _mm512_or_si512(_mm512_castps_si512(result), signBits)
            UnsafeMutableRawPointer(p + i).storeBytes(of: _mm512_castsi512_ps(out), as: __m512.self)
            i &+= 16
        }
        return i
    }
#endif
