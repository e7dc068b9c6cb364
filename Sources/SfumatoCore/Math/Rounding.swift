// Rounding without library calls. The package is compiled for baseline x86-64 (SSE2), which has
// no rounding instruction: `rounded()`, `rounded(.down)` and `rounded(.up)` become calls to libm's
// round, floor and ceil, tens of cycles each, and the generic SIMD forms a call per lane. In a
// per-pixel or per-sample loop that is most of the time (a zoom blur's bilinear samples, a warp's
// weights). These give the same results through a truncating conversion and one compare.

#if arch(x86_64)
    import _Builtin_intrinsics.intel
#endif

/// ⌊v⌋ as an integer, for finite |v| < 2^52 (one `cvttsd2si` and a compare).
///
/// ```swift
/// _floorInt(-2.5)   // -3
/// ```
@inlinable @inline(__always)
public func _floorInt(_ v: Double) -> Int {
    let t = _truncated(v)
    return Double(t) > v ? t &- 1 : t
}

/// ⌊v⌋ as an integer, for finite |v| < 2^31 (one `cvttss2si` and a compare).
///
/// ```swift
/// _floorInt(Float(-0.5))   // -1
/// ```
@inlinable @inline(__always)
public func _floorInt(_ v: Float) -> Int {
    let t = _truncated(Double(v))
    return Float(t) > v ? t &- 1 : t
}

/// ⌊v⌋ as a double: exact where |v| < 2^52, `v` itself beyond (whole already) and for NaN, so
/// that a caller's range test can still refuse it.
///
/// ```swift
/// _floor(-2.5)   // -3.0
/// ```
@inlinable @inline(__always)
public func _floor(_ v: Double) -> Double {
    guard abs(v) < 4_503_599_627_370_496 else { return v }
    let t = Double(_truncated(v))
    return t > v ? t - 1 : t
}

/// ⌈v⌉ as an integer, for finite |v| < 2^52.
///
/// ```swift
/// _ceilInt(2.25)   // 3
/// ```
@inlinable @inline(__always)
public func _ceilInt(_ v: Double) -> Int {
    let t = _truncated(v)
    return Double(t) < v ? t &+ 1 : t
}

/// v rounded to the nearest integer, halves away from zero (as `rounded()`), for finite
/// |v| < 2^52, where v minus its truncation is exact.
///
/// ```swift
/// _roundedInt(2.5)   // 3;  _roundedInt(-2.5) is -3
/// ```
@inlinable @inline(__always)
public func _roundedInt(_ v: Double) -> Int {
    let t = _truncated(v)
    let f = v - Double(t)
    return f >= 0.5 ? t &+ 1 : f <= -0.5 ? t &- 1 : t
}

/// Each lane rounded to the nearest integer, halves away from zero (as
/// `rounded(.toNearestOrAwayFromZero)`), for |v| < 2^23 (`cvttps2dq`, a subtraction and two
/// compares on x86-64).
///
/// ```swift
/// _roundedAwayFromZero(SIMD4(0.5, 1.49, -2.5, 3))   // (1, 1, -3, 3)
/// ```
@inlinable @inline(__always)
public func _roundedAwayFromZero(_ v: SIMD4<Float>) -> SIMD4<Float> {
    #if arch(x86_64)
        let t = _mm_cvtepi32_ps(_mm_cvttps_epi32(v))
        let f = v - t
        let up = _mm_and_ps(_mm_cmpge_ps(f, _mm_set1_ps(0.5)), _mm_set1_ps(1))
        let down = _mm_and_ps(_mm_cmple_ps(f, _mm_set1_ps(-0.5)), _mm_set1_ps(1))
        return t + up - down
    #else
        return v.rounded(.toNearestOrAwayFromZero)
    #endif
}
