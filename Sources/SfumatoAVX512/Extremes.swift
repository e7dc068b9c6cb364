// Morphology's row combinations with 512-bit vectors: the largest or smallest byte across a set
// of rows (SfumatoFilters' RunningExtreme.swift, `combineAll` and `combinePair`), 128 bytes a
// step with masked row ends. Exact, so the bytes are the baseline's.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    @inline(__always)
    private func _pick(_ a: __m512i, _ b: __m512i, _ max: Bool) -> __m512i { max ? _mm512_max_epu8(a, b) : _mm512_min_epu8(a, b) }

    /// Byte masks for a 128-byte step with `left` bytes left in the row: the first and second 64.
    @inline(__always)
    private func _stepMasks(_ left: Int) -> (UInt64, UInt64) {
        (left >= 64 ? ~0 : (1 &<< UInt64(left)) &- 1, left >= 128 ? ~0 : (left <= 64 ? 0 : (1 &<< UInt64(left &- 64)) &- 1))
    }

    @inline(__always)
    private func _row(_ rows: UnsafeRawPointer, _ k: Int) -> UnsafeRawPointer {
        rows.load(fromByteOffset: 8 &* k, as: UnsafeRawPointer.self)
    }

    /// The extreme of rows `from` ..< `to` (at least one) over the 128 bytes at `i`, masked by the step's
    /// two byte masks: the first 64 bytes and the second.
    @inline(__always)
    private func _extremeStep(
        _ rows: UnsafeRawPointer, from: Int, to: Int, at i: Int, _ m0: UInt64, _ m1: UInt64,
        _ max: Bool
    ) -> (__m512i, __m512i) {
        let first = _row(rows, from) + i
        var a = _mm512_maskz_loadu_epi8(m0, first), b = _mm512_maskz_loadu_epi8(m1, first + 64)
        var k = from &+ 1
        while k < to {
            let p = _row(rows, k) + i
            a = _pick(a, _mm512_maskz_loadu_epi8(m0, p), max)
            b = _pick(b, _mm512_maskz_loadu_epi8(m1, p + 64), max)
            k &+= 1
        }
        return (a, b)
    }

    /// out[i] = the largest (`max`) or smallest byte of rows[0][i] ... rows[count − 1][i], for i in
    /// 0..<n. `rows` holds `count` ≥ 1 row pointers.
    @inline(never)
    public func _extremeRowsAVX512(_ rows: UnsafeRawPointer, count: Int, max: Bool, n: Int, into out: UnsafeMutableRawPointer) {
        @inline(__always) func run(_ max: Bool) {
            var i = 0
            while i < n {
                let (m0, m1) = _stepMasks(n &- i)
                let (a, b) = _extremeStep(rows, from: 0, to: count, at: i, m0, m1, max)
                _mm512_mask_storeu_epi8(out + i, m0, a)
                _mm512_mask_storeu_epi8(out + (i &+ 64), m1, b)
                i &+= 128
            }
        }
        if max { run(true) } else { run(false) }
    }

    /// Two windows one row apart: out0 = extreme of rows 0 ..< count − 1, out1 = extreme of rows
    /// 1 ..< count, the shared rows combined once. `count` ≥ 3.
    @inline(never)
    public func _extremePairAVX512(
        _ rows: UnsafeRawPointer, count: Int, max: Bool, n: Int,
        into out0: UnsafeMutableRawPointer, _ out1: UnsafeMutableRawPointer
    ) {
        @inline(__always) func run(_ max: Bool) {
            let firstRow = _row(rows, 0), lastRow = _row(rows, count &- 1)
            var i = 0
            while i < n {
                let (m0, m1) = _stepMasks(n &- i)
                let (a, b) = _extremeStep(rows, from: 1, to: count &- 1, at: i, m0, m1, max)
                let f = firstRow + i, l = lastRow + i
                _mm512_mask_storeu_epi8(out0 + i, m0, _pick(a, _mm512_maskz_loadu_epi8(m0, f), max))
                _mm512_mask_storeu_epi8(out0 + (i &+ 64), m1, _pick(b, _mm512_maskz_loadu_epi8(m1, f + 64), max))
                _mm512_mask_storeu_epi8(out1 + i, m0, _pick(a, _mm512_maskz_loadu_epi8(m0, l), max))
                _mm512_mask_storeu_epi8(out1 + (i &+ 64), m1, _pick(b, _mm512_maskz_loadu_epi8(m1, l + 64), max))
                i &+= 128
            }
        }
        if max { run(true) } else { run(false) }
    }
#endif
