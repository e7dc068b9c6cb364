// The horizontal pass of the recursive (Deriche) Gaussian on four rows at once: each 512-bit
// vector holds pixel i of four rows (RGBA floats, a row per 128-bit lane). Along a row the
// recursion is a chain, each step waiting on the previous one; four rows side by side make four
// independent chains per instruction, and the 32 vector registers hold every coefficient and
// state without spilling. The arithmetic per lane is the baseline's (RecursiveGaussianKernel.swift,
// `horizontalPass`): the same multiplies, adds and subtracts in the same order, none fused, so the
// floats are identical.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// Lane masks (16 floats): row k's pixel is floats 4k ..< 4k + 4.
    @inline(__always)
    private func _rowMask(_ k: Int) -> UInt16 { UInt16(truncatingIfNeeded: 0xF &<< (4 &* k)) }

    /// Pixel `i` (four floats) of each of the four rows whose pointers are at `rows`.
    @inline(__always)
    private func _gather(_ rows: UnsafeRawPointer, _ i: Int) -> __m512 {
        @inline(__always) func pixel(_ k: Int) -> __m128 {
            _mm_loadu_ps(rows.load(fromByteOffset: 8 &* k, as: UnsafePointer<Float>.self) + 4 &* i)
        }
        var v = _mm512_castps128_ps512(pixel(0))
        v = _mm512_mask_broadcast_f32x4(v, 0x00F0, pixel(1))
        v = _mm512_mask_broadcast_f32x4(v, 0x0F00, pixel(2))
        return _mm512_mask_broadcast_f32x4(v, 0xF000, pixel(3))
    }

    /// Stores each row's lane of `v` at pixel `i` of that row (four row pointers at `rows`).
    @inline(__always)
    private func _scatter(_ rows: UnsafeRawPointer, _ i: Int, _ v: __m512) {
        var k = 0
        while k < 4 {
            // Lane k lands on pixel i when the vector starts k pixels earlier; the other lanes are masked off.
            let base = rows.load(fromByteOffset: 8 &* k, as: UnsafeMutablePointer<Float>.self) + 4 &* (i &- k)
            _mm512_mask_storeu_ps(base, _rowMask(k), v)
            k &+= 1
        }
    }

    /// d[x] = causal(m)[x + r] + anticausal(m)[x + r] for x in 0..<count, for four rows: `m`, `d` and
    /// `back` each point at four row pointers (m rows hold `width` = count + 2r pixels, back rows
    /// `width` pixels of scratch). `coefficients` holds b0...b3, bb1...bb4, a1...a4, causal gain,
    /// anticausal gain (14 floats).
    @inline(never)
    public func _recursiveRowsAVX512(
        m: UnsafeRawPointer, d: UnsafeRawPointer, back: UnsafeRawPointer, width: Int, count: Int,
        reach r: Int, coefficients c: UnsafePointer<Float>
    ) {
        let b0 = _mm512_set1_ps(c[0]), b1 = _mm512_set1_ps(c[1]), b2 = _mm512_set1_ps(c[2]), b3 = _mm512_set1_ps(c[3])
        let c1 = _mm512_set1_ps(c[4]), c2 = _mm512_set1_ps(c[5]), c3 = _mm512_set1_ps(c[6]), c4 = _mm512_set1_ps(c[7])
        let a1 = _mm512_set1_ps(c[8]), a2 = _mm512_set1_ps(c[9]), a3 = _mm512_set1_ps(c[10]), a4 = _mm512_set1_ps(c[11])
        let start = _gather(m, 0), end = _gather(m, width &- 1)
        var p1 = start, p2 = start, p3 = start
        var y1 = _mm512_mul_ps(start, _mm512_set1_ps(c[12])), y2 = y1, y3 = y1, y4 = y1
        var q1 = end, q2 = end, q3 = end, q4 = end
        var z1 = _mm512_mul_ps(end, _mm512_set1_ps(c[13])), z2 = z1, z3 = z1, z4 = z1
        let steps = count &+ r
        var i = 0
        while i < steps {
            let x0 = _gather(m, i)
            // b0·x0 + b1·p1 + b2·p2 + b3·p3 − (a2·y2 + a3·y3 + a4·y4) − a1·y1, left to right.
            let forward = _mm512_add_ps(
                _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(b0, x0), _mm512_mul_ps(b1, p1)), _mm512_mul_ps(b2, p2)),
                _mm512_mul_ps(b3, p3))
            let feedback = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a2, y2), _mm512_mul_ps(a3, y3)), _mm512_mul_ps(a4, y4))
            let v = _mm512_sub_ps(_mm512_sub_ps(forward, feedback), _mm512_mul_ps(a1, y1))
            p3 = p2; p2 = p1; p1 = x0
            y4 = y3; y3 = y2; y2 = y1; y1 = v
            let j = width &- 1 &- i
            let backward = _mm512_add_ps(
                _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(c1, q1), _mm512_mul_ps(c2, q2)), _mm512_mul_ps(c3, q3)),
                _mm512_mul_ps(c4, q4))
            let backFeedback = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a2, z2), _mm512_mul_ps(a3, z3)), _mm512_mul_ps(a4, z4))
            let w = _mm512_sub_ps(_mm512_sub_ps(backward, backFeedback), _mm512_mul_ps(a1, z1))
            q4 = q3; q3 = q2; q2 = q1; q1 = _gather(m, j)
            z4 = z3; z3 = z2; z2 = z1; z1 = w
            _scatter(back, j, w)
            if i >= r { _scatter(d, i &- r, v) }
            i &+= 1
        }
        // d[x] += back[x + r], row by row, 16 floats (4 pixels) a step with a masked end.
        var k = 0
        while k < 4 {
            let dk = d.load(fromByteOffset: 8 &* k, as: UnsafeMutablePointer<Float>.self)
            let bk = back.load(fromByteOffset: 8 &* k, as: UnsafePointer<Float>.self) + 4 &* r
            var f = 0
            let floats = 4 &* count
            while f < floats {
                let left = floats &- f
                let mask: UInt16 = left >= 16 ? 0xFFFF : UInt16(truncatingIfNeeded: (1 &<< left) &- 1)
                let sum = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, dk + f), _mm512_maskz_loadu_ps(mask, bk + f))
                _mm512_mask_storeu_ps(dk + f, mask, sum)
                f &+= 16
            }
            k &+= 1
        }
    }
#endif
