import Foundation
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// A 3x4 colour matrix on opaque 8-bit pixels in integers: each output level is
///
///     clamp(floor((Wr·r + Wg·g + Wb·b + Wa·255 + 2^(F−1)) / 2^F), 0, 255)
///
/// with r, g, b the encoded bytes and W = round(M · 2^F) the matrix entries (for the bias,
/// round(bias · 2^F), times alpha 255) in 15-bit signed fixed point. F is the largest of 11...14
/// that fits every entry in −16384...16383, so an entry may reach ±8; a matrix with larger
/// entries (or not finite) has no integer form and keeps the float route.
///
/// Against the exact value the weights err by at most 2^−(F+1) each, together at most
/// 1020 · 2^−12 = 0.25 of a level before rounding: a level within 1 of the exact result.
/// Sums stay below 2^24, so floats hold them exactly and the baseline computes them in float
/// lanes; the 512-bit twin uses VNNI byte dot products (each weight split into a signed high
/// byte and a 7-bit low part). Both give the same integers.
struct _MatrixWeights {
    /// Row by row: Wr, Wg, Wb, Wa for R, then G, then B.
    var weights: [Int16]
    /// F: fraction bits.
    var shift: Int

    /// The integer form of `rows` (three rows of four entries, in levels per level; the fourth
    /// entry the bias as a fraction of full scale), or nil when an entry is too large or not finite.
    init?(rows: [[Double]]) {
        guard rows.count == 3, rows.allSatisfy({ $0.count == 4 && $0.allSatisfy(\.isFinite) }) else { return nil }
        for f in stride(from: 14, through: 11, by: -1) {
            let scale = Double(1 << f)
            let w = rows.joined().map { ($0 * scale).rounded() }
            if w.allSatisfy({ $0 >= -16384 && $0 <= 16383 }) {
                weights = w.map { Int16($0) }
                shift = f
                return
            }
        }
        return nil
    }

    /// Maps packed RGB pixels from `src` to packed RGB in `dst` in the 512-bit twin's runs of
    /// sixteen; returns how many it mapped (none on the baseline route, whose callers expand
    /// rows to RGBA for ``map(_:_:from:count:)``, which gives the same bytes).
    func mapPacked(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, count: Int) -> Int {
        #if arch(x86_64)
            if CPUFeatures.wideVectors {
                return weights.withUnsafeBufferPointer { w in
                    _matrixWeightsRGBAVX512(src, dst, count: count, weights: w.baseAddress!, shift: shift)
                }
            }
        #endif
        return 0
    }

    /// Maps opaque pixels from `src` to `dst` from pixel `start`, four at a time (after the
    /// 512-bit twin's runs of sixteen), stopping before the first quad with any alpha below 255.
    /// Returns the index it stopped at.
    func map(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer, from start: Int, count: Int) -> Int {
        var i = start
        #if arch(x86_64)
            if CPUFeatures.wideVectors {
                i = weights.withUnsafeBufferPointer { w in
                    i + _matrixWeightsAVX512(src + 4 * i, dst + 4 * i, count: count - i, weights: w.baseAddress!, shift: shift)
                }
            }
        #endif
        @inline(__always) func all(_ k: Int) -> SIMD4<Float> { SIMD4(repeating: Float(weights[k])) }
        let rounding = Float(1 << (shift - 1))
        let wr0 = all(0), wg0 = all(1), wb0 = all(2), c0 = SIMD4(repeating: Float(weights[3]) * 255 + rounding)
        let wr1 = all(4), wg1 = all(5), wb1 = all(6), c1 = SIMD4(repeating: Float(weights[7]) * 255 + rounding)
        let wr2 = all(8), wg2 = all(9), wb2 = all(10), c2 = SIMD4(repeating: Float(weights[11]) * 255 + rounding)
        let byteMask = SIMD4<UInt32>(repeating: 0xFF), f = Int32(shift)
        // Exact integers in floats, clamped to the sums of levels 0...255 (below 2^22, where the
        // rounding trick holds), converted exactly, then an arithmetic shift: the floor.
        let top = SIMD4<Float>(repeating: Float((256 << shift) - 1))
        @inline(__always) func level(_ v: SIMD4<Float>) -> SIMD4<UInt32> {
            unsafeBitCast(_roundedInts(_minps(_maxps(v, .zero), top)) &>> f, to: SIMD4<UInt32>.self)
        }
        while i + 4 <= count {
            let p = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            if p.x & p.y & p.z & p.w < 0xFF00_0000 { break }
            let r = _float(fromSmallInts: unsafeBitCast(p & byteMask, to: SIMD4<Int32>.self))
            let g = _float(fromSmallInts: unsafeBitCast((p &>> 8) & byteMask, to: SIMD4<Int32>.self))
            let b = _float(fromSmallInts: unsafeBitCast((p &>> 16) & byteMask, to: SIMD4<Int32>.self))
            let o =
                level(wr0 * r + wg0 * g + wb0 * b + c0) | level(wr1 * r + wg1 * g + wb1 * b + c1) &<< 8
                | level(wr2 * r + wg2 * g + wb2 * b + c2) &<< 16 | SIMD4(repeating: 0xFF00_0000)
            dst.storeBytes(of: o, toByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            i += 4
        }
        return i
    }
}
