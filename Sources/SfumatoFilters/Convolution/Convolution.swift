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
public struct Convolution: DeclaredFilter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...63, unit: .taps, odd: true, help: "kernel width, odd")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...63, unit: .taps, odd: true, help: "kernel height, odd")
    public static let weights = ParameterSpec.vector(
        "weights", default: [0, 0, 0, 0, 1, 0, 0, 0, 0], count: nil,
        help: "width x height weights, row-major")
    public static let bias = ParameterSpec.number("bias", default: 0, range: -10...10, slider: -1...1, help: "added to every result")
    public static let fields: [FilterField<Convolution>] = [
        .integer(width, \.width), .integer(height, \.height), .vector(weights, \.weights), .number(bias, \.bias)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Convolution", coreImageName: nil, shortName: "convolution", category: .convolution,
        summary: "weighted sum of each pixel's neighbourhood (any odd size), plus a bias", parameters: fields.map(\.spec))

    public var width = 3
    public var height = 3
    public var weights: [Double] = [0, 0, 0, 0, 1, 0, 0, 0, 0]
    public var bias = 0.0

    /// The identity 3x3 kernel.
    public init() {}

    public init(width: Int, height: Int, weights: [Double], bias: Double = 0) throws {
        self.width = width
        self.height = height
        self.weights = weights
        self.bias = bias
        try validate()
    }

    /// Odd sizes, and one finite weight per tap.
    public func validate() throws {
        guard width % 2 == 1, height % 2 == 1, width >= 1, height >= 1 else {
            throw SfumatoError.invalidArgument("convolution: width and height must be odd, not \(width)x\(height)")
        }
        guard weights.count == width * height else {
            throw SfumatoError.invalidArgument("convolution: \(width)x\(height) needs \(width * height) weights, not \(weights.count)")
        }
        guard weights.allSatisfy(\.isFinite) else { throw SfumatoError.invalidArgument("convolution: weights must be finite") }
    }

    public func apply(to image: Image) -> Image {
        // Sizes and weights that do not validate (the Swift API's) leave the image as it is.
        guard (try? validate()) != nil else { return image }
        return _withEdges(image, .clamp) {
            $0.applying(_ConvolutionKernel(width: width, height: height, weights: weights.map(Float.init), bias: Float(bias), keepAlpha: false))
        }
    }
}
