import SfumatoCore

/// CISharpenLuminance: L = 0.2125 R + 0.7154 G + 0.0721 B; C' = C + sharpness (L(I) - L(G(I))) on R, G and B, G the Gaussian of sigma = radius with clamped edges (**choice**: Apple gives no formula).
public struct SharpenLuminance: DeclaredFilter, Equatable {
    public static let sharpnessSpec = ParameterSpec.number(
        "inputSharpness", default: 0.4, range: 0...10, slider: 0...2, help: "how much luminance detail is added back")
    public static let radiusSpec = ParameterSpec.number(
        "inputRadius", default: 1.69, range: 0...100, slider: 0...20, unit: .pixels, help: "the blur's sigma, in pixels")
    public static let fields: [FilterField<SharpenLuminance>] = [.number(sharpnessSpec, \.sharpness), .number(radiusSpec, \.radius)]
    public static let descriptor = FilterDescriptor(
        displayName: "Sharpen Luminance", coreImageName: "CISharpenLuminance", shortName: "sharpen-luminance", category: .blur,
        summary: "sharpen the brightness only, not the colours", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(sharpness: 0.4, radius: 1.69) }

    public var sharpness: Double, radius: Double

    public init(sharpness: Double = 0.4, radius: Double = 1.69) {
        self.sharpness = sharpness
        self.radius = radius
    }

    public func apply(to image: Image) -> Image {
        if radius < 0.16 || sharpness == 0 { return image }
        return _withBlur(image, sigma: radius, .luminance(Float(sharpness)), name: Self.descriptor.name)
    }
}
