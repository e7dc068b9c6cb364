import SfumatoCore

/// CIBloom: g = intensity G(I), G the Gaussian of sigma = radius with clamped edges; I' = I + g - I g on R, G and B (screen with the glow; **choice**: Apple gives no formula).
public struct Bloom: DeclaredFilter, Equatable {
    public static let radiusSpec = ParameterSpec.number(
        "inputRadius", default: 10, range: 0...100, slider: 0...50, unit: .pixels, help: "the glow's sigma, in pixels")
    public static let intensitySpec = ParameterSpec.number(
        "inputIntensity", default: 0.5, range: 0...1, slider: 0...1, help: "how strong the glow is")
    public static let fields: [FilterField<Bloom>] = [.number(radiusSpec, \.radius), .number(intensitySpec, \.intensity)]
    public static let descriptor = FilterDescriptor(
        displayName: "Bloom", coreImageName: "CIBloom", shortName: "bloom", category: .blur,
        summary: "a soft glow around the lights", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(radius: 10, intensity: 0.5) }

    public var radius: Double, intensity: Double

    public init(radius: Double = 10, intensity: Double = 0.5) {
        self.radius = radius
        self.intensity = intensity
    }

    public func apply(to image: Image) -> Image {
        if radius < 0.16 || intensity == 0 { return image }
        return _withBlur(image, sigma: radius, .bloom(Float(intensity)), name: Self.descriptor.name)
    }
}
