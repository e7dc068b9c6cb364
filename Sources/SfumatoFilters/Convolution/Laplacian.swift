import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// Laplacian: the 3x3 kernel [0 1 0; 1 -4 1; 0 1 0] plus a bias on R, G and B, edges clamped;
/// 8-bit output clamps to 0...1. Alpha is kept (decision: a zero-sum kernel would make an
/// opaque image transparent).
public struct Laplacian: DeclaredFilter, Equatable {
    public static let bias = ParameterSpec.number("bias", default: 0, range: -1...1, help: "added to the result")
    public static let fields: [FilterField<Laplacian>] = [.number(bias, \.bias)]
    public static let descriptor = FilterDescriptor(
        displayName: "Laplacian", coreImageName: nil, shortName: "laplacian", category: .convolution,
        summary: "second-derivative edge detector [0 1 0; 1 -4 1; 0 1 0]", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(bias: 0) }

    public var bias: Double
    public init(bias: Double = 0) { self.bias = bias }

    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) {
            $0.applying(
                _ConvolutionKernel(
                    width: 3, height: 3, weights: [0, 1, 0, 1, -4, 1, 0, 1, 0], bias: Float(bias),
                    keepAlpha: true, label: "Laplacian"))
        }
    }
}
