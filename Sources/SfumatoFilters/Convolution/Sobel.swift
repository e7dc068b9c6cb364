import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// Sobel edge magnitude sqrt(Gx² + Gy²) with the standard 3x3 kernels, per channel (alpha kept),
/// or on luma with grey weights; edges clamped.
public struct Sobel: DeclaredFilter, Equatable {
    public static let grey = ParameterSpec.flag("grey", default: false, help: "luma first (one grey result) instead of per channel")
    public static let weights = ParameterSpec.vector("weights", default: [0.299, 0.587, 0.114], count: 3, help: "grey weights R G B")
    public static let fields: [FilterField<Sobel>] = [.flag(grey, \.grey), .vector(weights, \.weights)]
    public static let descriptor = FilterDescriptor(
        displayName: "Sobel", coreImageName: nil, shortName: "sobel", category: .convolution,
        summary: "gradient magnitude with the 3x3 Sobel kernels", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(grey: false) }

    public var grey: Bool
    public var weights: [Double]
    public init(grey: Bool = false, weights: [Double] = [0.299, 0.587, 0.114]) {
        self.grey = grey
        self.weights = weights
    }

    public func apply(to image: Image) -> Image {
        guard !grey || weights.count >= 3 else { return image }
        let g: SIMD4<Float>? = grey ? SIMD4(Float(weights[0]), Float(weights[1]), Float(weights[2]), 0) : nil
        return _withEdges(image, .clamp) { $0.applying(_SobelKernel(grey: g)) }
    }
}
