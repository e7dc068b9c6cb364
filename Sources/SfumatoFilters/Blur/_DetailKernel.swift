import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// The image and its Gaussian (σ below 4, the separable range) in one pass, for the filters that
/// add detail back: the unsharp mask, sharpen luminance and noise reduction.
///
/// On float tiles it is the Gaussian then ``_DetailBlend``'s rule: the floats of the two as
/// separate nodes. On opaque 8-bit tiles going straight to an 8-bit destination it works on the
/// Gaussian's 16-bit words, in linear light (bytes decoded through ``_LinearWords``) or on encoded
/// values (byte x 256), and combines each word with the pixel's own before encoding it, so such
/// a filter costs about a Gaussian on the default path. 8-bit intermediates would clip what
/// these rules push past 0...1 before a later filter saw it: other consumers read float tiles.
///
/// Within a level of the float route while the words' error stays below a level's step: the
/// blurred word is within r + 1 units of its exact value once the passes' expected truncation
/// is taken off (``_GaussianKernel/linearOffset``), the pixel's own decoded word within ½. The
/// sharpeners' result I + k (I − B) is then within ½ + k (r + 1½) + ½ (the luminance weights sum
/// to 1); noise reduction's B + m shrink(I − B, t), shrink 1-Lipschitz, within
/// (r + 1)(1 + m) + ½ m + ½. In linear light that must stay below 19 units (a dark level is
/// 19.8); on encoded values below 128 (half a level, the result rounded once). Beyond that the
/// filters keep the two nodes.
struct _DetailKernel: NeighborhoodKernel {
    /// What the word passes do with the blurred words (see `_gaussianTileAVX512`'s `detail`).
    struct Words {
        /// 1 unsharp, 2 luminance detail, 3 shrunk detail.
        let mode: Int
        let amount: Float
        let threshold: Float
        let blurOffset: Int
        let outputOffset: Int
    }

    let blur: _GaussianKernel
    let rule: _DetailBlend.Rule
    let name: String
    /// The word passes' mode (see ``Words``), its factor (k, or m = 1 + sharpness) and threshold
    /// as a fraction of 1.
    let mode: Int
    let amount: Float
    let threshold: Float

    /// The fused kernel for `rule` over a Gaussian of `sigma`, or nil where the words would not
    /// do (σ 4 and up; bloom and gloom, which have 8-bit tables of their own).
    init?(sigma: Double, rule: _DetailBlend.Rule, name: String) {
        let blur = _GaussianKernel(sigma: sigma)
        guard blur.supportsLinearBytes else { return nil }
        switch rule {
        case .unsharp(let k): (mode, amount, threshold) = (1, k, 0)
        case .luminance(let k): (mode, amount, threshold) = (2, k, 0)
        case .shrink(let t, let k): (mode, amount, threshold) = (3, 1 + k, t)
        case .bloom, .gloom: return nil
        }
        self.blur = blur
        self.rule = rule
        self.name = name
    }

    /// The bound on the combined words' error, in units (see the type's comment).
    var errorWords: Double {
        let k = Double(amount), r = Double(blur.radius)
        return mode == 3 ? (r + 1) * (1 + k) + k / 2 + 0.5 : 1 + k * (r + 1.5)
    }

    var detail: String { "the Gaussian (\(blur.detail)) and the detail rule in one pass" }
    var supportsLinearBytes: Bool { errorWords < 19 }
    var supportsEncodedBytes: Bool { errorWords < 128 }

    func outputExtent(forInput extent: Rect) -> Rect { blur.outputExtent(forInput: extent) }
    func regionOfInterest(for output: Rect) -> Rect { blur.regionOfInterest(for: output) }
    func regionOfInterest(for output: Rect, bytes: Bool) -> Rect { blur.regionOfInterest(for: output, bytes: bytes) }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let blurred = scratch.floatTile(output.rect)
        try blur.apply(input: input, output: blurred, scratch: scratch)
        let blend = _DetailBlend(rule: rule, name: name), out = output.rect
        for y in out.y..<out.maxY {
            blend.apply(foreground: input.pointer(x: out.x, y: y), background: blurred.row(y), output: output.row(y), count: out.width)
        }
    }

    func applyLinear(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        let offset = blur.linearOffset, words = _LinearWords.shared
        try applyWords(
            input: input, output: output, scratch: scratch, decode: UnsafePointer(words.decode),
            encode: words.encode(offset: offset), blurOffset: offset, outputOffset: offset, linear: true)
    }

    func applyEncodedBytes(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        // Words are byte x 256; the result is rounded to its high byte (+128).
        try applyWords(
            input: input, output: output, scratch: scratch, decode: _DetailKernel.byteWords,
            encode: _DetailKernel.highBytes, blurOffset: blur.linearOffset, outputOffset: _LinearWords.rounding, linear: false)
    }

    /// k x 256 for each byte k (written once, read only after).
    nonisolated(unsafe) static let byteWords: UnsafePointer<UInt16> = {
        let t = UnsafeMutablePointer<UInt16>.allocate(capacity: 256)
        for k in 0..<256 { t[k] = UInt16(k << 8) }
        return UnsafePointer(t)
    }()

    /// The high byte of each word (written once, read only after).
    nonisolated(unsafe) static let highBytes: UnsafePointer<UInt8> = {
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 65536)
        for w in 0..<65536 { t[w] = UInt8(w >> 8) }
        return UnsafePointer(t)
    }()

    private func applyWords(
        input: ByteTile, output: ByteTile, scratch: TileScratch, decode: UnsafePointer<UInt16>, encode: UnsafePointer<UInt8>,
        blurOffset: Int, outputOffset: Int, linear: Bool
    ) throws {
        precondition(input.channels == 4 && output.channels == 4, "the detail kernel's 8-bit tiles are RGBA")
        // The threshold in words: 1.0 is 65280 in both spaces.
        let t = threshold * Float(_LinearWords.one)
        #if arch(x86_64)
            if CPUFeatures.wideVectors {
                let words = Words(mode: mode, amount: amount, threshold: t, blurOffset: blurOffset, outputOffset: outputOffset)
                // On encoded values the tile's own byte conversions are the identity table's.
                return blur.applyAVX512(
                    input: input, output: output, scratch: scratch, linear: linear ? (decode, encode) : nil, detail: words)
            }
        #endif
        // The baseline: the Gaussian's word passes, then per pixel the rule, then the encoding;
        // the AVX-512 tile's arithmetic in the same order.
        let k = amount, blurShift = Float(blurOffset), outShift = SIMD4<Float>(repeating: Float(outputOffset))
        let zero = SIMD4<Float>(repeating: 0), tt = SIMD4<Float>(repeating: t)
        let top = SIMD4<Float>(repeating: 65535)
        blur._baselineWordRows(input: input, output: output.rect, scratch: scratch, decode: decode) { y, line, own in
            let o = UnsafeMutableRawPointer(output.row(y))
            for p in 0..<output.rect.width {
                // Each pixel's words as floats in one step (the alpha lane is carried along unused).
                let i = _floats(fromWords: own + 4 * p), b = _floats(fromWords: line + 4 * p)
                let result: SIMD4<Float>
                switch mode {
                case 2:
                    let d = i - b + blurShift
                    let l = 0.2125 * d.x + 0.7154 * d.y + 0.0721 * d.z
                    result = i + (k * l + outShift)
                case 3:
                    let blurred = b - blurShift, d = i - blurred
                    // pointwiseMax(d - tt, 0) + pointwiseMin(d + tt, 0), NaN to 0 as theirs (IEEE
                    // maxNum and minNum) and as maxps and minps with 0 second.
                    let shrunk = _maxps(d - tt, zero) + _minps(d + tt, zero)
                    result = blurred + k * shrunk + outShift
                default:
                    result = i + k * (i - b + blurShift) + outShift
                }
                // Words clamped to 0...65535 (NaN, from an infinite or NaN amount given through the
                // Swift API, to 0) and rounded ties to even, as the AVX-512 tile's conversions.
                let w = _roundedInts(_minps(_maxps(result, zero), top))
                let rgb = UInt32(encode[Int(w.x)]) | UInt32(encode[Int(w.y)]) &<< 8 | UInt32(encode[Int(w.z)]) &<< 16
                o.storeBytes(of: rgb | 0xFF00_0000, toByteOffset: 4 * p, as: UInt32.self)
            }
        }
    }
}
