import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// General convolution (MPS semantics, correlation: no flip): out(x,y) = Σ w[j*kw+i]
/// in(x+i-kw/2, y+j-kh/2) + bias, on every channel, edges clamped. Width and height are odd
/// (1...63); a rank-one matrix runs as two one-dimensional passes.
///
/// ```swift
/// try Convolution(width: 3, height: 3, weights: [-2, 0, 0, 0, 1, 0, 0, 0, 2]).apply(to: photo)   // emboss
/// ```
public struct Convolution: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...63, unit: .pixels, help: "kernel width, odd")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...63, unit: .pixels, help: "kernel height, odd")
    public static let weights = ParameterSpec.vector(
        "weights", default: [0, 0, 0, 0, 1, 0, 0, 0, 0], count: nil,
        help: "width x height weights, row-major")
    public static let bias = ParameterSpec.number("bias", default: 0, range: -10...10, slider: -1...1, help: "added to every result")
    public static let descriptor = FilterDescriptor(
        displayName: "Convolution", coreImageName: nil, shortName: "convolution", category: "Convolution",
        summary: "weighted sum of each pixel's neighbourhood (any odd size), plus a bias", parameters: [width, height, weights, bias])

    public var width: Int
    public var height: Int
    public var weights: [Double]
    public var bias: Double

    public init(width: Int, height: Int, weights: [Double], bias: Double = 0) throws {
        guard width % 2 == 1, height % 2 == 1, width >= 1, height >= 1 else {
            throw SfumatoError.invalidArgument("convolution: width and height must be odd, not \(width)x\(height)")
        }
        guard weights.count == width * height else {
            throw SfumatoError.invalidArgument("convolution: \(width)x\(height) needs \(width * height) weights, not \(weights.count)")
        }
        guard weights.allSatisfy(\.isFinite) else { throw SfumatoError.invalidArgument("convolution: weights must be finite") }
        self.width = width
        self.height = height
        self.weights = weights
        self.bias = bias
    }

    public init(arguments a: FilterArguments) throws {
        try self.init(
            width: Int(a.number(Self.width)), height: Int(a.number(Self.height)), weights: a.vector(Self.weights),
            bias: a.number(Self.bias))
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        a.set(Self.weights, .vector(weights))
        a.set(Self.bias, .number(bias))
        return a
    }

    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) {
            $0.applying(_ConvolutionKernel(width: width, height: height, weights: weights.map(Float.init), bias: Float(bias), keepAlpha: false))
        }
    }
}

/// Laplacian: the 3x3 kernel [0 1 0; 1 -4 1; 0 1 0] plus a bias on R, G and B, edges clamped;
/// 8-bit output clamps to 0...1. Alpha is kept (decision: a zero-sum kernel would make an
/// opaque image transparent).
public struct Laplacian: Filter, Equatable {
    public static let bias = ParameterSpec.number("bias", default: 0, range: -1...1, help: "added to the result")
    public static let descriptor = FilterDescriptor(
        displayName: "Laplacian", coreImageName: nil, shortName: "laplacian", category: "Convolution",
        summary: "second-derivative edge detector [0 1 0; 1 -4 1; 0 1 0]", parameters: [bias])

    public var bias: Double
    public init(bias: Double = 0) { self.bias = bias }
    public init(arguments a: FilterArguments) throws { bias = a.number(Self.bias) }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.bias, .number(bias))
        return a
    }

    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) {
            $0.applying(
                _ConvolutionKernel(
                    width: 3, height: 3, weights: [0, 1, 0, 1, -4, 1, 0, 1, 0], bias: Float(bias),
                    keepAlpha: true, label: "Laplacian"))
        }
    }
}

/// Sobel edge magnitude sqrt(Gx² + Gy²) with the standard 3x3 kernels, per channel (alpha kept),
/// or on luma with grey weights; edges clamped.
public struct Sobel: Filter, Equatable {
    public static let grey = ParameterSpec.flag("grey", default: false, help: "luma first (one grey result) instead of per channel")
    public static let weights = ParameterSpec.vector("weights", default: [0.299, 0.587, 0.114], count: 3, help: "grey weights R G B")
    public static let descriptor = FilterDescriptor(
        displayName: "Sobel", coreImageName: nil, shortName: "sobel", category: "Convolution",
        summary: "gradient magnitude with the 3x3 Sobel kernels", parameters: [grey, weights])

    public var grey: Bool
    public var weights: [Double]
    public init(grey: Bool = false, weights: [Double] = [0.299, 0.587, 0.114]) {
        self.grey = grey
        self.weights = weights
    }
    public init(arguments a: FilterArguments) throws { self.init(grey: a.flag(Self.grey), weights: a.vector(Self.weights)) }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.grey, .flag(grey))
        a.set(Self.weights, .vector(weights))
        return a
    }

    public func apply(to image: Image) -> Image {
        let g: SIMD4<Float>? = grey ? SIMD4(Float(weights[0]), Float(weights[1]), Float(weights[2]), 0) : nil
        return _withEdges(image, .clamp) { $0.applying(_SobelKernel(grey: g)) }
    }
}

/// Threshold binary: luma = w · RGB; output `maximum` where luma > threshold, else 0, in R, G
/// and B (alpha kept).
public struct ThresholdBinary: Filter, Equatable {
    public static let threshold = ParameterSpec.number("threshold", default: 0.5, range: 0...1, help: "luma level to exceed")
    public static let maximum = ParameterSpec.number("maximum", default: 1, range: 0...1, help: "value written above the threshold")
    public static let weights = ParameterSpec.vector("weights", default: [0.299, 0.587, 0.114], count: 3, help: "grey weights R G B")
    public static let descriptor = FilterDescriptor(
        displayName: "Threshold Binary", coreImageName: nil, shortName: "threshold-binary", category: "Color",
        summary: "black or white by comparing luma with a threshold", parameters: [threshold, maximum, weights])

    public var threshold: Double
    public var maximum: Double
    public var weights: [Double]
    public init(threshold: Double = 0.5, maximum: Double = 1, weights: [Double] = [0.299, 0.587, 0.114]) {
        self.threshold = threshold
        self.maximum = maximum
        self.weights = weights
    }
    public init(arguments a: FilterArguments) throws {
        self.init(threshold: a.number(Self.threshold), maximum: a.number(Self.maximum), weights: a.vector(Self.weights))
    }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.threshold, .number(threshold))
        a.set(Self.maximum, .number(maximum))
        a.set(Self.weights, .vector(weights))
        return a
    }

    public func apply(to image: Image) -> Image {
        image.applying(
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
