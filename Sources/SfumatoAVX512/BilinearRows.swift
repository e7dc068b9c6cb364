// Bilinear samples of 8-bit RGBA along a row stepped in 32.32 fixed point, eight pixels a step:
// the AVX-512 twin of SfumatoCore's `_BilinearSpan.run` for pixels whose 2x2 block lies inside
// the tile, with `_bilinearBytes`' integer arithmetic lane for lane. Each block's top and bottom
// pairs of pixels come in with two gathers (`CWideVectors`: in Swift a gather is a C macro) or,
// where rows change slowly along the step, one by one.

#if arch(x86_64)
    import CWideVectors
    import _Builtin_intrinsics.intel

    /// Writes output pixels from `dst` on, eight at a time, while all eight blocks lie inside
    /// (block corner (iu, iv) within `low...high` on both axes) and `count` allows; returns how
    /// many pixels it wrote (a multiple of 8). Pixel k's point is (u + k du, v + k dv) in 32.32
    /// fixed point (wrapping, as the baseline's running sums); its block starts at
    /// `base + (iv - originY) rowBytes + 4 (iu - originX)`.
    @inline(never)
    public func _bilinearRowAVX512(
        _ dst: UnsafeMutableRawPointer, count: Int, u: Int64, v: Int64, du: Int64, dv: Int64, base: UnsafeRawPointer,
        rowBytes: Int, originX: Int, originY: Int, lowX: Int, lowY: Int, highX: Int, highY: Int
    ) -> Int {
        let lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0)
        let fu = _mm512_add_epi64(_mm512_set1_epi64(u), _mm512_mullo_epi64(lanes, _mm512_set1_epi64(du)))
        let fv = _mm512_add_epi64(_mm512_set1_epi64(v), _mm512_mullo_epi64(lanes, _mm512_set1_epi64(dv)))
        let stepU = _mm512_set1_epi64(du &* 8), stepV = _mm512_set1_epi64(dv &* 8)
        let lx = _mm512_set1_epi64(Int64(lowX)), hx = _mm512_set1_epi64(Int64(highX))
        let ly = _mm512_set1_epi64(Int64(lowY)), hy = _mm512_set1_epi64(Int64(highY))
        let ox = _mm512_set1_epi64(Int64(originX)), oy = _mm512_set1_epi64(Int64(originY))
        let pitch = _mm512_set1_epi64(Int64(rowBytes))
        let fraction = _mm512_set1_epi64(0xFFFF_FFFF), nearest = _mm512_set1_epi64(0x80_0000), full = _mm512_set1_epi64(256)
        // Each pixel's 32-bit weight pair spread over its 128-bit lane: pixels 0-3, then 4-7.
        let spreadLow = _mm512_set_epi32(6, 6, 6, 6, 4, 4, 4, 4, 2, 2, 2, 2, 0, 0, 0, 0)
        let spreadHigh = _mm512_set_epi32(14, 14, 14, 14, 12, 12, 12, 12, 10, 10, 10, 10, 8, 8, 8, 8)
        let rounding = _mm512_set1_epi32(16384), upperHalf = _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4)
        // Gathers where the step crosses rows at least every eighth pixel (turns from about 0.1
        // rad): the blocks then spread over rows and gathers win (affine 0.17 rad 37 -> 29 ms at
        // 24 MP). Where rows change slowly (small turns, straightening) the pairs are loaded one
        // by one from offsets on the stack, which measured faster there (20 against 30 ms at
        // 0.05 rad). The same bytes either way.
        // One loop for each way, so that each gets its own registers (one loop with both spilled).
        @inline(__always) func steps(gathering gathers: Bool, _ offsets: UnsafeMutablePointer<Int64>) -> Int {
            var fu = fu, fv = fv
            var done = 0
            while done &+ 8 <= count {
                let iu = _mm512_srai_epi64(fu, 32), iv = _mm512_srai_epi64(fv, 32)
                // Inside: no sign among iu - lowX, highX - iu, iv - lowY, highY - iv.
                let reach = _mm512_or_si512(
                    _mm512_or_si512(_mm512_sub_epi64(iu, lx), _mm512_sub_epi64(hx, iu)),
                    _mm512_or_si512(_mm512_sub_epi64(iv, ly), _mm512_sub_epi64(hy, iv)))
                if _mm512_movepi64_mask(reach) != 0 { break }
                // Fractions rounded to 1/256 (0...256), as weight pairs (f << 16 | 256 - f).
                let fx = _mm512_srli_epi64(_mm512_add_epi64(_mm512_and_si512(fu, fraction), nearest), 24)
                let fy = _mm512_srli_epi64(_mm512_add_epi64(_mm512_and_si512(fv, fraction), nearest), 24)
                let wx = _mm512_or_si512(_mm512_slli_epi64(fx, 16), _mm512_sub_epi64(full, fx))
                let wy = _mm512_or_si512(_mm512_slli_epi64(fy, 16), _mm512_sub_epi64(full, fy))
                // Each block's top and bottom pairs of pixels.
                let offset = _mm512_add_epi64(
                    _mm512_mullo_epi64(_mm512_sub_epi64(iv, oy), pitch), _mm512_slli_epi64(_mm512_sub_epi64(iu, ox), 2))
                let top: __m512i, bottom: __m512i
                if gathers {
                    top = sfumato_gather_epi64(offset, base)
                    bottom = sfumato_gather_epi64(_mm512_add_epi64(offset, pitch), base)
                } else {
                    UnsafeMutableRawPointer(offsets).storeBytes(of: offset, as: __m512i.self)
                    @inline(__always) func pair(_ k: Int, _ row: Int) -> Int64 {
                        base.loadUnaligned(fromByteOffset: Int(offsets[k]) &+ row, as: Int64.self)
                    }
                    top = _mm512_set_epi64(pair(7, 0), pair(6, 0), pair(5, 0), pair(4, 0), pair(3, 0), pair(2, 0), pair(1, 0), pair(0, 0))
                    bottom = _mm512_set_epi64(
                        pair(7, rowBytes), pair(6, rowBytes), pair(5, rowBytes), pair(4, rowBytes), pair(3, rowBytes), pair(2, rowBytes),
                        pair(1, rowBytes), pair(0, rowBytes))
                }
                for half in 0..<2 {
                    let spread = half == 0 ? spreadLow : spreadHigh
                    let wxs = _mm512_permutexvar_epi32(spread, wx), wys = _mm512_permutexvar_epi32(spread, wy)
                    // Four pixels: each 128-bit lane one pixel's two neighbours, as 16-bit values.
                    let t = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(half == 0 ? top : _mm512_permutexvar_epi64(upperHalf, top)))
                    let b = _mm512_cvtepu8_epi16(_mm512_castsi512_si256(half == 0 ? bottom : _mm512_permutexvar_epi64(upperHalf, bottom)))
                    let ti = _mm512_unpacklo_epi16(t, _mm512_unpackhi_epi64(t, t)), bi = _mm512_unpacklo_epi16(b, _mm512_unpackhi_epi64(b, b))
                    let upper = _mm512_srli_epi32(_mm512_madd_epi16(ti, wxs), 1), lower = _mm512_srli_epi32(_mm512_madd_epi16(bi, wxs), 1)
                    let level = _mm512_srli_epi32(
                        _mm512_add_epi32(_mm512_madd_epi16(_mm512_or_si512(upper, _mm512_slli_epi32(lower, 16)), wys), rounding), 15)
                    dst.storeBytes(of: _mm512_cvtepi32_epi8(level), toByteOffset: 4 &* done &+ 16 &* half, as: __m128i.self)
                }
                fu = _mm512_add_epi64(fu, stepU)
                fv = _mm512_add_epi64(fv, stepV)
                done &+= 8
            }
            return done
        }
        return withUnsafeTemporaryAllocation(of: Int64.self, capacity: 8) { buffer in
            dv.magnitude >= 1 << 29 ? steps(gathering: true, buffer.baseAddress!) : steps(gathering: false, buffer.baseAddress!)
        }
    }
#endif
