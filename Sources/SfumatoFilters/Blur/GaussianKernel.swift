import Foundation
import SfumatoCore
#if arch(x86_64)
import SfumatoAVX512
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

    /// Where the recursive filter starts to win (6000x4000 RGBA on 2 cores, medians of 7,
    /// separable -> recursive: linear float σ 5 493 -> 442 ms, σ 10 1031 -> 685 ms; 8-bit σ 10
    /// 344 -> 380 ms (a loss), σ 16 624 -> 509 ms, σ 30 1285 -> 830 ms).
    static let recursiveFloatFromSigma = 4.0
    static let recursiveBytesFromSigma = 12.0

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
        let separable = "separable, sigma \(_format(sigma)), radius \(radius), \(2 * radius + 1) taps per pass; 8-bit data: 16-bit fixed point"
        return recursive == nil ? separable : separable + "; float data: recursive (Deriche, 4th order)"
    }
    var supportsBytes: Bool { sigma < Self.recursiveBytesFromSigma }
    /// Every byte alike, so grey tiles too (an opaque input stays opaque inside; the edges of a
    /// transparent surround go through floats where alpha shows).
    var supportsGray: Bool { supportsBytes }

    /// The weights as 0.16 fixed point (their sum a hair under 1, so sums never overflow).
    var fixedWeights: [UInt16] {
        let total = weights[0] + 2 * weights.dropFirst().reduce(0, +)
        return weights.map { UInt16(min(65535, (Double($0 / total) * 65535).rounded())) }
    }

    /// 8-bit fixed point, one output row at a time: the vertical pass first, from the input
    /// rows (which stay in cache from row to row) into one 16-bit row holding 8 fractional bits
    /// (value x 256), then the horizontal pass from that row, which never leaves L1. Symmetric
    /// taps are added first (at half scale, so the sum still fits 16 bits) and weighted once,
    /// with one multiply-high (pmulhuw) per pair; the half-scale sums are averages (pavgw), exact
    /// in the vertical pass and rounded in the horizontal one. Each pair truncates less than 1/128
    /// of a level, so for up to 61 taps a pass stays within 0.25 level of the float kernel before
    /// the final rounding.
    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        #if arch(x86_64)
        if CPUFeatures.wideVectors { return applyAVX512(input: input, output: output, scratch: scratch) }
        #endif
        let out = output.rect
        let r = radius
        let fixed = fixedWeights
        // Centre weight, and twice each side weight (pairs are summed at half scale).
        let centre = SIMD8<UInt16>(repeating: fixed[0])
        let pairs = scratch.buffer(of: SIMD8<UInt16>.self, count: r + 1)
        for k in 1...r { pairs[k] = SIMD8(repeating: UInt16(min(65535, 2 * Int(fixed[k])))) }
        let bpp = input.channels               // bytes a pixel: 4 (RGBA) or 1 (grey)
        let n = out.width * bpp                // output bytes per row
        let span = n + 2 * bpp * r             // the vertical pass covers r pixels more on each side
        let mid = scratch.buffer(of: UInt16.self, count: span + 16)
        let midRaw = UnsafeMutableRawPointer(mid)
        let rows = scratch.buffer(of: UnsafeRawPointer.self, count: 2 * r + 1)
        for y in out.y..<out.maxY {
            // Vertical: bytes in, value x 256 out.
            for k in -r...r { rows[k + r] = UnsafeRawPointer(input.pointer(x: out.x - r, y: y + k)) }
            let c = rows[r]
            var i = 0
            // Bytes go straight into the high halves of 16-bit lanes (value x 256, no shift), and
            // a pair's (a + b) x 128 is the average of a x 256 and b x 256, exact since both are
            // even: one pavgw instead of an add and a shift.
            @inline(__always) func load256(_ p: UnsafeRawPointer, _ at: Int) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
                _bytesTimes256(p.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self))
            }
            // Thirty-two values per step in four independent sums (the multiply-highs of one sum
            // wait on each other; four keep the vector units busy, and the row pointers and the
            // weight are loaded once for all of them); the row's last few values eight at a time.
            while i &+ 32 <= span {
                let cv = load256(c, i), cv2 = load256(c, i &+ 16)
                var acc = _mulhi(cv.low, centre), acc2 = _mulhi(cv.high, centre)
                var acc3 = _mulhi(cv2.low, centre), acc4 = _mulhi(cv2.high, centre)
                var k = 1
                while k <= r {
                    let pa = rows[r &- k], pb = rows[r &+ k], w = pairs[k]
                    let a = load256(pa, i), b = load256(pb, i), a2 = load256(pa, i &+ 16), b2 = load256(pb, i &+ 16)
                    acc &+= _mulhi(_average(a.low, b.low), w)
                    acc2 &+= _mulhi(_average(a.high, b.high), w)
                    acc3 &+= _mulhi(_average(a2.low, b2.low), w)
                    acc4 &+= _mulhi(_average(a2.high, b2.high), w)
                    k &+= 1
                }
                midRaw.storeBytes(of: acc, toByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
                midRaw.storeBytes(of: acc2, toByteOffset: 2 &* (i &+ 8), as: SIMD8<UInt16>.self)
                midRaw.storeBytes(of: acc3, toByteOffset: 2 &* (i &+ 16), as: SIMD8<UInt16>.self)
                midRaw.storeBytes(of: acc4, toByteOffset: 2 &* (i &+ 24), as: SIMD8<UInt16>.self)
                i &+= 32
            }
            while i &+ 8 <= span {
                let v = SIMD8<UInt16>(truncatingIfNeeded: c.loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self)) &<< 8
                var acc = _mulhi(v, centre)
                var k = 1
                while k <= r {
                    let a = SIMD8<UInt16>(truncatingIfNeeded: rows[r &- k].loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self))
                    let b = SIMD8<UInt16>(truncatingIfNeeded: rows[r &+ k].loadUnaligned(fromByteOffset: i, as: SIMD8<UInt8>.self))
                    acc &+= _mulhi((a &+ b) &<< 7, pairs[k])
                    k &+= 1
                }
                midRaw.storeBytes(of: acc, toByteOffset: 2 &* i, as: SIMD8<UInt16>.self)
                i &+= 8
            }
            while i < span {
                var acc = (UInt32(c.load(fromByteOffset: i, as: UInt8.self)) << 8 &* UInt32(fixed[0])) >> 16
                for k in 1...r {
                    let sum = UInt32(rows[r - k].load(fromByteOffset: i, as: UInt8.self)) + UInt32(rows[r + k].load(fromByteOffset: i, as: UInt8.self))
                    acc += ((sum << 7) * UInt32(pairs[k][0])) >> 16
                }
                mid[i] = UInt16(min(acc, 65535))
                i += 1
            }
            // Horizontal: taps one pixel (bpp values) apart along the 16-bit row.
            let d = output.row(y)
            let m = UnsafeRawPointer(mid + bpp * r)
            i = 0
            @inline(__always) func at(_ j: Int) -> SIMD8<UInt16> { m.loadUnaligned(fromByteOffset: 2 &* j, as: SIMD8<UInt16>.self) }
            // The sums are value x 256 (at most 65535): shifted down they are bytes, packed two
            // vectors to one store.
            @inline(__always) func bytes(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD16<UInt8> {
                _packedBytes(SIMD8<Int16>(truncatingIfNeeded: a &>> 8), SIMD8<Int16>(truncatingIfNeeded: b &>> 8))
            }
            // Thirty-two values per step, each weight loaded once for all sums; the rest eight at a time.
            while i &+ 32 <= n {
                var acc = _mulhi(at(i), centre) &+ 128, acc2 = _mulhi(at(i &+ 8), centre) &+ 128
                var acc3 = _mulhi(at(i &+ 16), centre) &+ 128, acc4 = _mulhi(at(i &+ 24), centre) &+ 128
                var k = 1
                while k <= r {
                    let w = pairs[k], o = bpp &* k
                    // Half the pair's sum, rounded (pavgw): no overflow, no shifts.
                    acc &+= _mulhi(_average(at(i &- o), at(i &+ o)), w)
                    acc2 &+= _mulhi(_average(at(i &+ 8 &- o), at(i &+ 8 &+ o)), w)
                    acc3 &+= _mulhi(_average(at(i &+ 16 &- o), at(i &+ 16 &+ o)), w)
                    acc4 &+= _mulhi(_average(at(i &+ 24 &- o), at(i &+ 24 &+ o)), w)
                    k &+= 1
                }
                UnsafeMutableRawPointer(d + i).storeBytes(of: bytes(acc, acc2), as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(d + i + 16).storeBytes(of: bytes(acc3, acc4), as: SIMD16<UInt8>.self)
                i &+= 32
            }
            while i &+ 8 <= n {
                var acc = _mulhi(m.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD8<UInt16>.self), centre) &+ 128
                var k = 1
                while k <= r {
                    let a = m.loadUnaligned(fromByteOffset: 2 &* (i &- bpp &* k), as: SIMD8<UInt16>.self)
                    let b = m.loadUnaligned(fromByteOffset: 2 &* (i &+ bpp &* k), as: SIMD8<UInt16>.self)
                    acc &+= _mulhi(_average(a, b), pairs[k])
                    k &+= 1
                }
                UnsafeMutableRawPointer(d + i).storeBytes(of: SIMD8<UInt8>(truncatingIfNeeded: acc &>> 8), as: SIMD8<UInt8>.self)
                i &+= 8
            }
            while i < n {
                let j = i + bpp * r
                var acc: UInt32 = 128 + (UInt32(mid[j]) * UInt32(fixed[0])) >> 16
                for k in 1...r {
                    let sum = (UInt32(mid[j - bpp * k]) + UInt32(mid[j + bpp * k]) + 1) >> 1
                    acc += (sum * UInt32(pairs[k][0])) >> 16
                }
                d[i] = UInt8(min(acc >> 8, 255))
                i += 1
            }
        }
    }

    #if arch(x86_64)
    /// The same arithmetic with 512-bit vectors (SfumatoAVX512's `_gaussianTileAVX512`); opaque
    /// RGBA tiles skip alpha when the fixed-point weights give 255 back for 255.
    private func applyAVX512(input: ByteTile, output: ByteTile, scratch: TileScratch) {
        let out = output.rect, r = radius, bpp = input.channels
        let fixed = fixedWeights
        let pairs = scratch.buffer(of: UInt16.self, count: r + 1)
        for k in 1...r { pairs[k] = UInt16(min(65535, 2 * Int(fixed[k]))) }
        let origin = input.pointer(x: out.x - r, y: out.y - r)
        let words = _gaussianTileScratchWordsAVX512(width: out.width, height: out.height, bytesPerPixel: bpp, radius: r)
        _gaussianTileAVX512(input: origin, inputStride: bpp * input.stride, output: output.row(out.y),
                            outputStride: bpp * output.stride, width: out.width, height: out.height, bytesPerPixel: bpp,
                            dropAlpha: bpp == 4 && keepsOpaque, radius: r, centre: fixed[0], pairs: pairs,
                            scratch: scratch.buffer(of: UInt16.self, count: words))
    }
    #endif

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
    /// separable one reads its radius.
    func regionOfInterest(for output: Rect) -> Rect { regionOfInterest(for: output, bytes: false) }

    func regionOfInterest(for output: Rect, bytes: Bool) -> Rect {
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
    @inline(__always)
    private func _convolveRow(_ s: UnsafeMutablePointer<SIMD4<Float>>, stride: Int,
                              into d: UnsafeMutablePointer<SIMD4<Float>>, width: Int) {
        let w0 = weights[0]
        for x in 0..<width { d[x] = s[x] * w0 }
        for k in 1...radius {
            let wk = weights[k]
            let a = s - k * stride, b = s + k * stride
            for x in 0..<width { d[x] += (a[x] + b[x]) * wk }
        }
    }
}

/// The high 16 bits of 16-bit products (one pmulhuw).
@inline(__always)
func _mulhi(_ a: SIMD8<UInt16>, _ b: SIMD8<UInt16>) -> SIMD8<UInt16> {
    SIMD8<UInt16>(truncatingIfNeeded: (SIMD8<UInt32>(truncatingIfNeeded: a) &* SIMD8<UInt32>(truncatingIfNeeded: b)) &>> 16)
}

