import Foundation
import SfumatoCore

#if arch(x86_64)
    import _Builtin_intrinsics.intel
#endif

/// Separable Gaussian convolution with weights exp(-i²/2σ²), normalised, over radius ceil(3σ);
/// for large sigmas, Deriche's recursive filter over the same reach (`_RecursiveGaussianKernel`).
///
/// Reads transparent black outside its input (compose with `clampedToExtent()` for clamped
/// edges); its output extent grows by the radius on every side.
struct _GaussianKernel: NeighborhoodKernel {
    let sigma: Double
    let radius: Int
    /// weights[0] is the centre, weights[k] the weight at distance k.
    let weights: [Float]
    /// The recursive filter, for float tiles from `recursiveFloatFromSigma` and for every tile
    /// from `recursiveBytesFromSigma` (where it beats the 16-bit separable pass).
    let recursive: _RecursiveGaussianKernel?

    /// Where the recursive filter starts to win (6000x4000 RGBA on 2 cores, medians, separable
    /// -> recursive: linear float σ 5 493 -> 442 ms, σ 10 1031 -> 685 ms). On 8-bit data the
    /// separable passes with interpolated rows stay ahead up to σ 23 at least (σ 16: 98 -> 420 ms
    /// with AVX-512, 209 -> 421 ms without; σ 23: 139 -> 529, 357 -> 496 ms). Below σ 20 they
    /// stay within one level of the exact kernel on photos, transparent edges included (each pass
    /// truncates at most (r + 1)/256 of a level, 0.24 at r = 60); the float path beyond that.
    static let recursiveFloatFromSigma = 4.0
    static let recursiveBytesFromSigma = 20.0
    /// From this sigma the 8-bit passes filter only the rows even in image coordinates and take
    /// each odd row as the cubic (Catmull-Rom) midpoint of the four even rows around it, which
    /// halves both passes. The result is smooth enough over 2 rows for that to cost little: the
    /// odd rows' kernel differs from the exact one by at most 0.174 level for any image at σ 8
    /// (255 times the sum of its positive differences; 0.133 at σ 10, 0.082 at σ 16), and
    /// photos move them far less.
    static let interpolatedRowsFromSigma = 8.0

    /// Whether the 8-bit passes interpolate odd rows (see ``interpolatedRowsFromSigma``).
    var interpolatesRows: Bool { sigma >= Self.interpolatedRowsFromSigma && supportsBytes }

    init(sigma: Double) {
        self.sigma = sigma
        radius = max(1, Int((3 * sigma).rounded(.up)))
        var w = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / sum }
        weights = w.map(Float.init)
        recursive = sigma >= Self.recursiveFloatFromSigma ? _RecursiveGaussianKernel(sigma: sigma) : nil
    }

    var name: String { "Gaussian blur" }
    var detail: String {
        if sigma >= Self.recursiveBytesFromSigma, let recursive { return recursive.detail }
        let rows = interpolatesRows ? ", even rows filtered and odd rows interpolated (cubic)" : ""
        let separable = "separable, sigma \(_format(sigma)), radius \(radius), \(2 * radius + 1) taps per pass; 8-bit data: 16-bit fixed point\(rows)"
        return recursive == nil ? separable : separable + "; float data: recursive (Deriche, 4th order)"
    }
    var supportsBytes: Bool { sigma < Self.recursiveBytesFromSigma }
    /// Every byte alike, so grey tiles too (an opaque input stays opaque inside; the edges of a
    /// transparent surround go through floats where alpha shows).
    var supportsGray: Bool { supportsBytes }
    var deviceKernel: DeviceKernel? {
        supportsBytes && radius <= 64 ? .gaussian(weights: fixedWeights, interpolatingRows: interpolatesRows) : nil
    }

    /// The weights as 0.16 fixed point (their sum a hair under 1, so sums never overflow).
    var fixedWeights: [UInt16] {
        let total = weights[0] + 2 * weights.dropFirst().reduce(0, +)
        return weights.map { UInt16(min(65535, (Double($0 / total) * 65535).rounded())) }
    }

    /// Whether the fixed-point passes give 255 back for a constant 255: an opaque region's
    /// alpha needs no computing (the AVX-512 tiles skip it) and stays opaque.
    var keepsOpaque: Bool {
        let fixed = fixedWeights
        func pass(_ v: UInt32, round: UInt32) -> UInt32 {
            var acc = round + (v * UInt32(fixed[0])) >> 16
            for k in 1...radius { acc += (v * UInt32(min(65535, 2 * Int(fixed[k])))) >> 16 }
            return acc & 0xFFFF
        }
        return pass(pass(255 << 8, round: 0), round: 128) >> 8 == 255
    }

    func outputExtent(forInput extent: Rect) -> Rect { extent.insetBy(dx: -radius, dy: -radius) }

    /// The recursive filter reads further than it grows the output (see its `reach`); the
    /// separable one reads its radius, and 3 rows more when it interpolates rows (an odd row
    /// needs the even rows 3 above and below).
    func regionOfInterest(for output: Rect) -> Rect {
        regionOfInterest(for: output, bytes: false).union(regionOfInterest(for: output, bytes: true))
    }

    func regionOfInterest(for output: Rect, bytes: Bool) -> Rect {
        if bytes && interpolatesRows { return output.insetBy(dx: -radius, dy: -radius - 3) }
        let recursiveHere = bytes ? sigma >= Self.recursiveBytesFromSigma : recursive != nil
        let reach = recursiveHere ? (recursive?.reach ?? radius) : radius
        return output.insetBy(dx: -reach, dy: -reach)
    }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        if let recursive { return try recursive.apply(input: input, output: output, scratch: scratch) }
        let out = output.rect
        let width = out.width
        // Horizontal pass over every input row the vertical pass needs. Taps outside, pixels
        // inside: each inner loop streams through one L1-resident row with its weight in a
        // register (no per-pixel index arithmetic).
        let mid = scratch.floatTile(Rect(x: out.x, y: input.rect.y, width: width, height: input.rect.height))
        for y in input.rect.y..<input.rect.maxY {
            _convolveRow(input.pointer(x: out.x, y: y), stride: 1, into: mid.row(y), width: width)
        }
        for y in out.y..<out.maxY {
            _convolveRow(mid.row(y), stride: mid.stride, into: output.row(y), width: width)
        }
    }

    /// d[x] = sum over k of w[|k|] * s[x + k * stride], for x in 0..<width (symmetric taps).
    /// One pass along `stride`: each output pixel sums every tap in registers, four pixels at a
    /// time, so the row is read once per tap and written once (a pass per tap wrote it r + 1
    /// times). The same additions in the same order: the same floats.
    @inline(__always)
    private func _convolveRow(
        _ s: UnsafeMutablePointer<SIMD4<Float>>, stride: Int,
        into d: UnsafeMutablePointer<SIMD4<Float>>, width: Int
    ) {
        let r = radius
        weights.withUnsafeBufferPointer { w in
            let w0 = w[0]
            var x = 0
            while x + 4 <= width {
                let c = s + x
                var a0 = c[0] * w0, a1 = c[1] * w0, a2 = c[2] * w0, a3 = c[3] * w0
                for k in 1...r {
                    let wk = w[k], lo = c - k * stride, hi = c + k * stride
                    a0 += (lo[0] + hi[0]) * wk
                    a1 += (lo[1] + hi[1]) * wk
                    a2 += (lo[2] + hi[2]) * wk
                    a3 += (lo[3] + hi[3]) * wk
                }
                d[x] = a0
                d[x + 1] = a1
                d[x + 2] = a2
                d[x + 3] = a3
                x += 4
            }
            while x < width {
                var a = s[x] * w0
                for k in 1...r { a += (s[x - k * stride] + s[x + k * stride]) * w[k] }
                d[x] = a
                x += 1
            }
        }
    }
}

/// The high 16 bits of 16-bit products: one `pmulhuw` on x86-64, spelled out because the
/// compiler does not find it in the widening form (it called a generic conversion per lane: a
/// third of the baseline 8-bit Gaussian's time).
@inline(__always)
func _mulhi(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
    #if arch(x86_64)
        unsafeBitCast(_mm_mulhi_epu16(unsafeBitCast(a, to: __m128i.self), unsafeBitCast(b, to: __m128i.self)), to: SIMD8<UInt16>.self)
    #else
        SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a) &* SIMD8<UInt32>(truncatingIfNeeded: b)) &>> 16)
    #endif
}
