// Vector transcendental functions on four floats at once, for the per-pixel kernels.
//
// The standard library's `pow` is a scalar libm call (about 20 ns); a photo needs tens of millions
// of them. These use the classic decomposition (exponent bits + a polynomial on the mantissa) with
// only bit casts and arithmetic, so they compile to straight SSE2 code. Relative error of pow is
// below 4e-6 for results between 1e-24 and 1e16 (measured in VectorMathTests against Double;
// most of it is the float rounding of power * log2(x)).

#if arch(x86_64)
    import _Builtin_intrinsics.intel
#endif

/// Lane-wise minimum: `a` where `a < b`, else `b` (so a NaN in `a` gives `b`). One `minps` on
/// x86-64: the same comparison written as a select is sometimes rewritten by the optimiser into a
/// compare and three logic instructions once more arithmetic follows it.
///
/// ```swift
/// _minps(SIMD4(1, 5, .nan, 2), SIMD4(3, 3, 3, 3))   // (1, 3, 3, 2)
/// ```
@inlinable @inline(__always)
public func _minps(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    #if arch(x86_64)
        return _mm_min_ps(a, b)
    #else
        return b.replacing(with: a, where: a .< b)
    #endif
}

/// Lane-wise maximum: `a` where `a > b`, else `b` (a NaN in `a` gives `b`); one `maxps` on x86-64.
///
/// ```swift
/// _maxps(SIMD4(1, 5, .nan, 2), SIMD4(3, 3, 3, 3))   // (3, 5, 3, 3)
/// ```
@inlinable @inline(__always)
public func _maxps(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    #if arch(x86_64)
        return _mm_max_ps(a, b)
    #else
        return b.replacing(with: a, where: a .> b)
    #endif
}

/// Sixteen bytes from two vectors of 16-bit integers, each clamped to 0...255 (`a` gives the
/// first eight); one `packuswb` on x86-64.
///
/// ```swift
/// _packedBytes(SIMD8(-5, 0, 17, 255, 256, 1000, -1000, 3), .zero)   // (0, 0, 17, 255, 255, 255, 0, 3, 0, ...)
/// ```
@inlinable @inline(__always)
public func _packedBytes(_ a: SIMD8<Int16>, _ b: SIMD8<Int16>) -> SIMD16<UInt8> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_packus_epi16(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD16<UInt8>.self)
    #else
        let lo = SIMD8<UInt8>(truncatingIfNeeded: a.replacing(with: 0, where: a .< 0).replacing(with: 255, where: a .> 255))
        let hi = SIMD8<UInt8>(truncatingIfNeeded: b.replacing(with: 0, where: b .< 0).replacing(with: 255, where: b .> 255))
        return SIMD16(lowHalf: lo, highHalf: hi)
    #endif
}

/// The rounded-up average (a + b + 1) / 2 of 16-bit lanes, without overflow; one `pavgw` on
/// x86-64.
///
/// ```swift
/// _average(SIMD8(repeating: 65535), SIMD8(repeating: 65534))   // 65535 in every lane
/// ```
@inlinable @inline(__always)
public func _average(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_avg_epu16(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD8<UInt16>.self)
    #else
        return SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a) &+ SIMD8<UInt32>(truncatingIfNeeded: b) &+ 1) &>> 1)
    #endif
}

/// Sixteen bytes as two vectors of 16-bit lanes holding each byte times 256 (the byte in the
/// high half): `punpcklbw` / `punpckhbw` against zero on x86-64, no shift.
///
/// ```swift
/// _bytesTimes256(SIMD16(repeating: 3)).low   // 768 in every lane
/// ```
@inlinable @inline(__always)
public func _bytesTimes256(_ v: SIMD16<UInt8>) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
    #if arch(x86_64)
        let x = unsafeBitCast(v, to: __m128i.self), zero = _mm_setzero_si128()
        return (
            unsafeBitCast(_mm_unpacklo_epi8(zero, x), to: SIMD8<UInt16>.self),
            unsafeBitCast(_mm_unpackhi_epi8(zero, x), to: SIMD8<UInt16>.self)
        )
    #else
        return (SIMD8<UInt16>(truncatingIfNeeded: v.lowHalf) &<< 8, SIMD8<UInt16>(truncatingIfNeeded: v.highHalf) &<< 8)
    #endif
}

/// Sixteen bytes widened to two vectors of 16-bit lanes (`punpcklbw` / `punpckhbw` against zero
/// on x86-64): the first eight bytes, then the last eight.
///
/// ```swift
/// _widenedBytes(SIMD16(repeating: 3)).low   // 3 in every lane
/// ```
@inlinable @inline(__always)
public func _widenedBytes(_ v: SIMD16<UInt8>) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
    #if arch(x86_64)
        let x = unsafeBitCast(v, to: __m128i.self), zero = _mm_setzero_si128()
        return (
            unsafeBitCast(_mm_unpacklo_epi8(x, zero), to: SIMD8<UInt16>.self),
            unsafeBitCast(_mm_unpackhi_epi8(x, zero), to: SIMD8<UInt16>.self)
        )
    #else
        return (SIMD8<UInt16>(truncatingIfNeeded: v.lowHalf), SIMD8<UInt16>(truncatingIfNeeded: v.highHalf))
    #endif
}

/// Eight bytes widened to 32-bit lanes (unpacks against zero on x86-64).
@inlinable @inline(__always)
public func _widenedBytes(_ v: SIMD8<UInt8>) -> SIMD8<Int32> {
    #if arch(x86_64)
        let x = _mm_cvtsi64_si128(unsafeBitCast(v, to: Int64.self)), zero = _mm_setzero_si128()
        let words = _mm_unpacklo_epi8(x, zero)
        return SIMD8(
            lowHalf: unsafeBitCast(_mm_unpacklo_epi16(words, zero), to: SIMD4<Int32>.self),
            highHalf: unsafeBitCast(_mm_unpackhi_epi16(words, zero), to: SIMD4<Int32>.self))
    #else
        return SIMD8<Int32>(truncatingIfNeeded: v)
    #endif
}

/// Four bytes widened to 32-bit lanes (two unpacks against zero on x86-64).
///
/// ```swift
/// _widenedBytes(SIMD4<UInt8>(1, 2, 3, 255))   // (1, 2, 3, 255)
/// ```
@inlinable @inline(__always)
public func _widenedBytes(_ v: SIMD4<UInt8>) -> SIMD4<Int32> {
    #if arch(x86_64)
        let x = _mm_cvtsi32_si128(unsafeBitCast(v, to: Int32.self)), zero = _mm_setzero_si128()
        return unsafeBitCast(_mm_unpacklo_epi16(_mm_unpacklo_epi8(x, zero), zero), to: SIMD4<Int32>.self)
    #else
        return SIMD4<Int32>(truncatingIfNeeded: v)
    #endif
}

/// Lane-wise minimum of bytes (one `pminub`; the generic `pointwiseMin` is a call).
@inlinable @inline(__always)
public func _minBytes(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_min_epu8(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD16<UInt8>.self)
    #else
        return pointwiseMin(a, b)
    #endif
}

/// Lane-wise maximum of bytes (one `pmaxub`).
@inlinable @inline(__always)
public func _maxBytes(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_max_epu8(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD16<UInt8>.self)
    #else
        return pointwiseMax(a, b)
    #endif
}

/// Two vectors of 16-bit lanes narrowed to sixteen bytes, each lane clamped to 0...255 (one
/// `packuswb`).
@inlinable @inline(__always)
public func _narrowedBytes(_ low: SIMD8<UInt16>, _ high: SIMD8<UInt16>) -> SIMD16<UInt8> {
    _packedBytes(unsafeBitCast(low, to: SIMD8<Int16>.self), unsafeBitCast(high, to: SIMD8<Int16>.self))
}

/// round(x / 255) in 16-bit lanes holding up to 65,023: (t + t / 256) / 256 with t = x + 128,
/// exact there (ties cannot occur: 255 is odd). `paddw` and `psrlw` on x86-64.
///
/// ```swift
/// _dividedBy255(SIMD8(repeating: 200 * 100))   // 78 in every lane (20000 / 255 = 78.4)
/// ```
@inlinable @inline(__always)
public func _dividedBy255(_ x: SIMD8<UInt16>) -> SIMD8<UInt16> {
    #if arch(x86_64)
        let t = _mm_add_epi16(unsafeBitCast(x, to: __m128i.self), _mm_set1_epi16(128))
        return unsafeBitCast(_mm_srli_epi16(_mm_add_epi16(t, _mm_srli_epi16(t, 8)), 8), to: SIMD8<UInt16>.self)
    #else
        let t = x &+ 128
        return (t &+ (t &>> 8)) &>> 8
    #endif
}

/// max(a - b, 0) in 16-bit lanes (`psubusw`).
///
/// ```swift
/// _subtractingClamped(SIMD8(repeating: 3), SIMD8(repeating: 5))   // 0 in every lane
/// ```
@inlinable @inline(__always)
public func _subtractingClamped(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_subs_epu16(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD8<UInt16>.self)
    #else
        return a.replacing(with: 0, where: a .< b) &- b.replacing(with: 0, where: a .< b)
    #endif
}

/// All ones in the lanes whose value (below 2^15) exceeds `k`, else zero (`pcmpgtw`).
///
/// ```swift
/// _lanesAbove(SIMD8(0, 127, 128, 255, 0, 0, 0, 0), 127)   // (0, 0, 65535, 65535, 0, 0, 0, 0)
/// ```
@inlinable @inline(__always)
public func _lanesAbove(_ a: SIMD8<UInt16>, _ k: Int16) -> SIMD8<UInt16> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_cmpgt_epi16(unsafeBitCast(a, to: __m128i.self), _mm_set1_epi16(k)), to: SIMD8<UInt16>.self)
    #else
        return SIMD8<UInt16>.zero.replacing(with: .max, where: a .> UInt16(k))
    #endif
}

/// Whether every pixel of two groups of four RGBA8 pixels is opaque (alpha 255 in both),
/// tested on two 64-bit halves (a vector comparison of bytes would be lowered lane by lane).
@inlinable @inline(__always)
public func _allOpaque(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> Bool {
    let m = unsafeBitCast(a & b, to: SIMD2<UInt64>.self)
    return m.x & m.y & 0xFF00_0000_FF00_0000 == 0xFF00_0000_FF00_0000
}

/// Each 32-bit lane shifted right by `bits` (a constant: 8, 16 or 24), as sixteen bytes
/// (`psrld`): the low byte of each lane then holds the byte `bits / 8` above it.
@inlinable @inline(__always)
public func _bytesShiftedDown(_ v: SIMD4<UInt32>, _ bits: Int32) -> SIMD16<UInt8> {
    #if arch(x86_64)
        return unsafeBitCast(_mm_srli_epi32(unsafeBitCast(v, to: __m128i.self), bits), to: SIMD16<UInt8>.self)
    #else
        return unsafeBitCast(v &>> UInt32(bits), to: SIMD16<UInt8>.self)
    #endif
}

/// One bilinear RGBA8 sample in fixed point: the pixel pairs (p0, p1) at `top` and `bottom`
/// (8 bytes each), fractions `fx`, `fy` in 1/256 (0...256). Across in 16-bit multiply-adds
/// (`pmaddwd`): t0 (256 - fx) + t1 fx, halved; then down the same way; rounded to a level:
/// within half a level of the exact lerp of the same fractions.
///
/// ```swift
/// _bilinearBytes(top: p, bottom: p + rowBytes, fx: 128, fy: 0)   // the mean of p[0] and p[1], per channel
/// ```
@inlinable @inline(__always)
public func _bilinearBytes(top: UnsafeRawPointer, bottom: UnsafeRawPointer, fx: Int32, fy: Int32) -> SIMD4<UInt8> {
    #if arch(x86_64)
        let zero = _mm_setzero_si128()
        let t = _mm_unpacklo_epi8(_mm_cvtsi64_si128(top.loadUnaligned(as: Int64.self)), zero)
        let b = _mm_unpacklo_epi8(_mm_cvtsi64_si128(bottom.loadUnaligned(as: Int64.self)), zero)
        // Channel by channel: (p0, p1) as neighbouring 16-bit lanes.
        let ti = _mm_unpacklo_epi16(t, _mm_unpackhi_epi64(t, t)), bi = _mm_unpacklo_epi16(b, _mm_unpackhi_epi64(b, b))
        let wx = _mm_set1_epi32(fx &<< 16 | (256 &- fx)), wy = _mm_set1_epi32(fy &<< 16 | (256 &- fy))
        let upper = _mm_srli_epi32(_mm_madd_epi16(ti, wx), 1), lower = _mm_srli_epi32(_mm_madd_epi16(bi, wx), 1)
        let v = _mm_madd_epi16(_mm_or_si128(upper, _mm_slli_epi32(lower, 16)), wy)
        let level = _mm_srli_epi32(_mm_add_epi32(v, _mm_set1_epi32(16384)), 15)
        let packed = _mm_packus_epi16(_mm_packs_epi32(level, level), zero)
        return unsafeBitCast(_mm_cvtsi128_si32(packed), to: SIMD4<UInt8>.self)
    #else
        let t0 = SIMD4<Int32>(truncatingIfNeeded: top.loadUnaligned(as: SIMD4<UInt8>.self))
        let t1 = SIMD4<Int32>(truncatingIfNeeded: top.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt8>.self))
        let b0 = SIMD4<Int32>(truncatingIfNeeded: bottom.loadUnaligned(as: SIMD4<UInt8>.self))
        let b1 = SIMD4<Int32>(truncatingIfNeeded: bottom.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt8>.self))
        let upper = (t0 &* (256 &- fx) &+ t1 &* fx) &>> 1, lower = (b0 &* (256 &- fx) &+ b1 &* fx) &>> 1
        return SIMD4<UInt8>(truncatingIfNeeded: (upper &* (256 &- fy) &+ lower &* fy &+ 16384) &>> 15)
    #endif
}

/// 32-bit integers to floats, one `cvtdq2ps` (exact below 2^24 in magnitude).
@inlinable @inline(__always)
public func _floats(fromInts v: SIMD4<Int32>) -> SIMD4<Float> {
    #if arch(x86_64)
        return _mm_cvtepi32_ps(unsafeBitCast(v, to: __m128i.self))
    #else
        return SIMD4<Float>(v)
    #endif
}

/// The four 16-bit words at `p` as floats (exact): an 8-byte load, an unpack against zero and
/// `cvtdq2ps` on x86-64 (the lane-by-lane conversion is four scalar ones).
///
/// ```swift
/// _floats(fromWords: pointerTo([1, 2, 65535, 0] as [UInt16]))   // (1.0, 2.0, 65535.0, 0.0)
/// ```
@inlinable @inline(__always)
public func _floats(fromWords p: UnsafeRawPointer) -> SIMD4<Float> {
    #if arch(x86_64)
        let w = _mm_cvtsi64_si128(p.loadUnaligned(as: Int64.self))
        return _mm_cvtepi32_ps(_mm_unpacklo_epi16(w, _mm_setzero_si128()))
    #else
        let v = p.loadUnaligned(as: SIMD4<UInt16>.self)
        return SIMD4<Float>(Float(v.x), Float(v.y), Float(v.z), Float(v.w))
    #endif
}

/// A double truncated toward zero to an integer, one `cvttsd2si` with no range check: the
/// caller keeps |v| below 2^63 (beyond, the result is unspecified).
@inlinable @inline(__always)
public func _truncated(_ v: Double) -> Int {
    #if arch(x86_64)
        return Int(_mm_cvttsd_si64(_mm_set_sd(v)))
    #else
        return Int(v)
    #endif
}

/// Converts integers in -2^22 ..< 2^22 to floats without a per-lane library call (the generic
/// SIMD conversion is one). Public for the 8-bit kernels of other modules.
///
/// ```swift
/// _float(fromSmallInts: SIMD4(0, -3, 255, 4_000_000))   // (0.0, -3.0, 255.0, 4000000.0)
/// ```
@inlinable @inline(__always)
public func _float(fromSmallInts v: SIMD4<Int32>) -> SIMD4<Float> {
    let magic: Int32 = 0x4B40_0000  // 1.5 * 2^23: the mantissa then holds the integer
    return unsafeBitCast(v &+ magic, to: SIMD4<Float>.self) - 12_582_912
}

/// Rounds floats in -2^22 ..< 2^22 to the nearest integer (ties to even), as integers, without
/// a per-lane library call. Public for the 8-bit kernels of other modules.
///
/// ```swift
/// _roundedInts(SIMD4(0.4, 2.5, -1.6, 254.7))   // (0, 2, -2, 255)
/// ```
@inlinable @inline(__always)
public func _roundedInts(_ v: SIMD4<Float>) -> SIMD4<Int32> {
    unsafeBitCast(v + 12_582_912, to: SIMD4<Int32>.self) &- 0x4B40_0000
}

/// Base-2 logarithm of positive normal floats (lanes <= 0 give unspecified values).
@inlinable @inline(__always)
public func vectorLog2(_ x: SIMD4<Float>) -> SIMD4<Float> {
    let bits = unsafeBitCast(x, to: SIMD4<Int32>.self)
    var exponent = (bits &>> 23) &- 127
    var mantissa = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD4<Float>.self)  // [1, 2)
    // Centre the mantissa on 1 ([sqrt(1/2), sqrt(2))) so the series below converges fast.
    let big = mantissa .> 1.414_213_5
    mantissa.replace(with: mantissa * 0.5, where: big)
    exponent.replace(with: exponent &+ 1, where: big)
    // ln(m) = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716.
    let t = (mantissa - 1) / (mantissa + 1)
    let t2 = t * t
    var series: SIMD4<Float> = SIMD4(repeating: 1.0 / 11)
    series = series * t2 + 1.0 / 9
    series = series * t2 + 1.0 / 7
    series = series * t2 + 1.0 / 5
    series = series * t2 + 1.0 / 3
    series = series * t2 + 1
    let lnMantissa = 2 * t * series
    return _float(fromSmallInts: exponent) + lnMantissa * 1.442_695_04
}

/// 2 raised to each lane; results underflow to 0 below -126 and saturate near 2^128.
@inlinable @inline(__always)
public func vectorExp2(_ y: SIMD4<Float>) -> SIMD4<Float> {
    let clamped = y.bounded(-126, 127.99)
    let whole = _roundedInts(clamped)
    let f = (clamped - _float(fromSmallInts: whole)) * 0.693_147_18  // in [-0.35, 0.35]
    // e^f, Taylor to degree 7: error below 6e-9 on this interval.
    var p: SIMD4<Float> = SIMD4(repeating: 1.0 / 5040)
    p = p * f + 1.0 / 720
    p = p * f + 1.0 / 120
    p = p * f + 1.0 / 24
    p = p * f + 1.0 / 6
    p = p * f + 0.5
    p = p * f + 1
    p = p * f + 1
    let scale = unsafeBitCast((whole &+ 127) &<< 23, to: SIMD4<Float>.self)
    var result = p * scale
    result.replace(with: 0, where: y .< -126)
    return result
}

/// `sign(x) * |x|^power` per lane (the extended-range rule of docs/spec/FILTERS.md); `0^power` is 0.
///
/// ```swift
/// vectorPow(SIMD4(0.25, 4, -8, 0), 0.5)   // (0.5, 2, -2.828…, 0)
/// ```
@inlinable @inline(__always)
public func vectorPow(_ x: SIMD4<Float>, _ power: Float) -> SIMD4<Float> {
    let signBits = unsafeBitCast(x, to: SIMD4<UInt32>.self) & 0x8000_0000
    let magnitude = unsafeBitCast(unsafeBitCast(x, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
    var result = vectorExp2(vectorLog2(magnitude) * power)
    result.replace(with: 0, where: magnitude .< Float.leastNormalMagnitude)
    return unsafeBitCast(unsafeBitCast(result, to: SIMD4<UInt32>.self) | signBits, to: SIMD4<Float>.self)
}

extension SIMD4 where Scalar == Float {
    /// Lanes clamped to `lower...upper` in two vector instructions, `maxps` then `minps` (the
    /// standard library's generic `clamped(lowerBound:upperBound:)` takes many more); a NaN lane
    /// becomes `lower`.
    ///
    /// ```swift
    /// SIMD4<Float>(-1, 0.5, 2, 1).bounded(0, 1)   // (0, 0.5, 1, 1)
    /// ```
    @inlinable @inline(__always)
    public func bounded(_ lower: Float, _ upper: Float) -> SIMD4<Float> {
        _minps(_maxps(self, SIMD4(repeating: lower)), SIMD4(repeating: upper))
    }
}

extension Float {
    /// `self` clamped to `lower...upper`, NaN taken as `lower`, as `SIMD4.bounded` takes a lane:
    /// safe to convert to an integer type that holds the range (`Swift.min` and `max` pass NaN on,
    /// and converting NaN traps).
    ///
    /// ```swift
    /// Float.nan.bounded(0, 1)        // 0
    /// Float.infinity.bounded(0, 1)   // 1
    /// ```
    @inlinable @inline(__always)
    public func bounded(_ lower: Float, _ upper: Float) -> Float { self > lower ? (self < upper ? self : upper) : lower }
}

extension Double {
    /// `self` clamped to `lower...upper`, NaN taken as `lower` (see `Float.bounded`).
    @inlinable @inline(__always)
    public func bounded(_ lower: Double, _ upper: Double) -> Double { self > lower ? (self < upper ? self : upper) : lower }
}
