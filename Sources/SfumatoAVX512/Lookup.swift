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
