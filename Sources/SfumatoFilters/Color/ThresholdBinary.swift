import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// Threshold binary: luma = w · RGB; output `maximum` where luma > threshold, else 0, in R, G
/// and B (alpha kept).
public struct ThresholdBinary: DeclaredFilter, Equatable {
    public static let threshold = ParameterSpec.number("threshold", default: 0.5, range: 0...1, help: "luma level to exceed")
    public static let maximum = ParameterSpec.number("maximum", default: 1, range: 0...1, help: "value written above the threshold")
    public static let weights = ParameterSpec.vector("weights", default: [0.299, 0.587, 0.114], count: 3, help: "grey weights R G B")
    public static let fields: [FilterField<ThresholdBinary>] = [.number(threshold, \.threshold), .number(maximum, \.maximum), .vector(weights, \.weights)]
    public static let descriptor = FilterDescriptor(
        displayName: "Threshold Binary", coreImageName: nil, shortName: "threshold-binary", category: .color,
        summary: "black or white by comparing luma with a threshold", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(threshold: 0.5) }

    public var threshold: Double
    public var maximum: Double
    public var weights: [Double]
    public init(threshold: Double = 0.5, maximum: Double = 1, weights: [Double] = [0.299, 0.587, 0.114]) {
        self.threshold = threshold
        self.maximum = maximum
        self.weights = weights
    }

    public func apply(to image: Image) -> Image {
        guard weights.count >= 3 else { return image }
        return image.applying(
            [
                .pixel(
                    _Threshold(
                        weights: SIMD4(Float(weights[0]), Float(weights[1]), Float(weights[2]), 0),
                        threshold: Float(threshold), maximum: Float(maximum)))
            ], name: Self.descriptor.shortName)
    }
}

struct _Threshold: PixelFunction {
    let weights: SIMD4<Float>
    let threshold: Float
    let maximum: Float
    var name: String { "luma > \(threshold)" }
    func apply(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            let v = p[i] * weights
            let l = v.x + v.y + v.z
            let o: Float = l > threshold ? maximum : 0
            p[i] = SIMD4(o, o, o, p[i].w)
        }
    }

    // 8-bit pixels directly (the camera loop's threshold): the same luma sum from the same levels.
    var mapsStraightBytes: Bool { true }
    var deviceFunction: DevicePixelFunction? {
        .threshold(weights: SIMD3(weights.x, weights.y, weights.z), threshold: threshold, maximum: maximum)
    }
    func apply(_ bytes: StraightBytes) {
        let on = bytes.encode(maximum), off = bytes.encode(0)
        let level = bytes.level
        var i = 0
        if !bytes.linear {
            // Encoded levels are k * (1/255): four pixels per step with the same products and
            // sums as the table route below, so the same pixels pass the threshold.
            let src = UnsafeRawPointer(bytes.source), dst = UnsafeMutableRawPointer(bytes.destination)
            #if arch(x86_64)
                if CPUFeatures.wideVectors {
                    i = _thresholdBytesAVX512(
                        src, dst, count: bytes.count, w0: weights.x, w1: weights.y, w2: weights.z,
                        threshold: threshold, on: on, off: off)
                }
            #endif
            let wr = SIMD4<Float>(repeating: weights.x), wg = SIMD4<Float>(repeating: weights.y), wb = SIMD4<Float>(repeating: weights.z)
            // R, G and B of the output pixel, for each outcome.
            let onV = SIMD4<Int32>(repeating: Int32(on) * 0x01_0101), offV = SIMD4<Int32>(repeating: Int32(off) * 0x01_0101)
            let t = SIMD4<Float>(repeating: threshold)
            while i + 4 <= bytes.count {
                let p = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<Int32>.self)
                let (levelR, levelG, levelB) = _channelLevels(p)
                let r = levelR * (1 / 255), g = levelG * (1 / 255), b = levelB * (1 / 255)
                let l = r * wr + g * wg + b * wb
                // All ones where l > threshold: the sign of threshold - l (a mask without the
                // standard library's lane-by-lane comparison results).
                let above = unsafeBitCast(t - l, to: SIMD4<Int32>.self) &>> 31
                let alpha = p & Int32(bitPattern: 0xFF00_0000)
                let visible = (0 &- ((p &>> 24) & 0xFF)) &>> 31  // all ones where alpha > 0
                let o = ((onV & above) | (offV & ~above)) & visible
                dst.storeBytes(of: o | alpha, toByteOffset: 4 * i, as: SIMD4<Int32>.self)
                i += 4
            }
        }
        for i in i..<bytes.count {
            let s = bytes.source + 4 * i, d = bytes.destination + 4 * i
            let l = level[Int(s[0])] * weights.x + level[Int(s[1])] * weights.y + level[Int(s[2])] * weights.z
            let o = s[3] == 0 ? 0 : l > threshold ? on : off
            d[0] = o; d[1] = o; d[2] = o; d[3] = s[3]
        }
    }
}
