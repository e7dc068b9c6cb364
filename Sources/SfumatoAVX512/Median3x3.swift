// The 3x3 median of 8-bit RGBA rows with 512-bit vectors: the baseline kernel's sorted-columns
// method (SfumatoFilters' Median3x3.swift), 64 bytes a step instead of 16. Medians are exact, so
// the bytes are identical.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// One output row of 3x3 medians of RGBA pixels. `above`, `row` and `below` point at the input
    /// pixel left of the first output pixel in the three rows; `pixels` outputs are written to `d`.
    /// `sorted` holds 3 × (4·pixels + 136) bytes of scratch.
    @inline(never)
    public func _median3x3RowAVX512(
        above: UnsafeRawPointer, row: UnsafeRawPointer, below: UnsafeRawPointer, pixels: Int,
        sorted: UnsafeMutableRawPointer, into d: UnsafeMutableRawPointer
    ) {
        let columns = 4 * (pixels + 2)  // input bytes a row
        let plane = (columns + 64 + 63) & ~63  // each sorted row, with room for a whole last step
        let low = sorted, middle = sorted + plane, high = sorted + 2 * plane
        // Each column of the three rows sorted into low <= middle <= high.
        var i = 0
        while i < columns {
            let n = columns &- i < 64 ? columns &- i : 64
            let mask: UInt64 = n == 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            let a = _mm512_maskz_loadu_epi8(mask, above + i), b = _mm512_maskz_loadu_epi8(mask, row + i)
            let c = _mm512_maskz_loadu_epi8(mask, below + i)
            let ab = _mm512_min_epu8(a, b), AB = _mm512_max_epu8(a, b)
            let t = _mm512_max_epu8(ab, c)
            low.storeBytes(of: _mm512_min_epu8(ab, c), toByteOffset: i, as: __m512i.self)
            middle.storeBytes(of: _mm512_min_epu8(t, AB), toByteOffset: i, as: __m512i.self)
            high.storeBytes(of: _mm512_max_epu8(t, AB), toByteOffset: i, as: __m512i.self)
            i &+= 64
        }
        // median3(max of the lows, median3 of the middles, min of the highs) of three neighbouring columns.
        let bytes = 4 * pixels
        i = 0
        while i < bytes {
            let n = bytes &- i < 64 ? bytes &- i : 64
            let mask: UInt64 = n == 64 ? ~0 : (1 &<< UInt64(n)) &- 1
            @inline(__always) func at(_ p: UnsafeMutableRawPointer, _ o: Int) -> __m512i { p.loadUnaligned(fromByteOffset: i &+ o, as: __m512i.self) }
            let maxLow = _mm512_max_epu8(_mm512_max_epu8(at(low, 0), at(low, 4)), at(low, 8))
            let minHigh = _mm512_min_epu8(_mm512_min_epu8(at(high, 0), at(high, 4)), at(high, 8))
            let m0 = at(middle, 0), m1 = at(middle, 4), m2 = at(middle, 8)
            let midMiddle = _mm512_max_epu8(_mm512_min_epu8(m0, m1), _mm512_min_epu8(_mm512_max_epu8(m0, m1), m2))
            let median = _mm512_max_epu8(_mm512_min_epu8(maxLow, midMiddle), _mm512_min_epu8(_mm512_max_epu8(maxLow, midMiddle), minHigh))
            _mm512_mask_storeu_epi8(d + i, mask, median)
            i &+= 64
        }
    }
#endif
