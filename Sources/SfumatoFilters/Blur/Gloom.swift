import SfumatoCore

/// CIGloom: I' = I (1 - intensity) + intensity I G(I) on R, G and B, G the Gaussian of sigma = radius with clamped edges (toward multiplying by the blur; **choice**: Apple gives no formula).
public struct Gloom: DeclaredFilter, Equatable {
    public static let radiusSpec = ParameterSpec.number(
        "inputRadius", default: 10, range: 0...100, slider: 0...50, unit: .pixels, help: "the haze's sigma, in pixels")
    public static let intensitySpec = ParameterSpec.number(
        "inputIntensity", default: 0.5, range: 0...1, slider: 0...1, help: "how strong the haze is")
    public static let fields: [FilterField<Gloom>] = [.number(radiusSpec, \.radius), .number(intensitySpec, \.intensity)]
    public static let descriptor = FilterDescriptor(
        displayName: "Gloom", coreImageName: "CIGloom", shortName: "gloom", category: .blur,
        summary: "dull the highlights with a dark haze", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(radius: 10, intensity: 0.5) }

    public var radius: Double, intensity: Double

    public init(radius: Double = 10, intensity: Double = 0.5) {
        self.radius = radius
        self.intensity = intensity
    }

    public func apply(to image: Image) -> Image {
        if radius < 0.16 || intensity == 0 { return image }
        return _withBlur(image, sigma: radius, .gloom(Float(intensity)), name: Self.descriptor.name)
    }
}
