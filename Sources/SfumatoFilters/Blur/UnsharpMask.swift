import SfumatoCore

/// CIUnsharpMask: I' = I + intensity (I - G(I)), G the Gaussian of sigma = radius with clamped edges, on R, G and B; alpha kept.
public struct UnsharpMask: DeclaredFilter, Equatable {
    public static let radiusSpec = ParameterSpec.number(
        "inputRadius", default: 2.5, range: 0...100, slider: 0...20, unit: .pixels, help: "the blur's sigma, in pixels")
    public static let intensitySpec = ParameterSpec.number(
        "inputIntensity", default: 0.5, range: 0...10, slider: 0...4, help: "how much detail is added back")
    public static let fields: [FilterField<UnsharpMask>] = [.number(radiusSpec, \.radius), .number(intensitySpec, \.intensity)]
    public static let descriptor = FilterDescriptor(
        displayName: "Unsharp Mask", coreImageName: "CIUnsharpMask", shortName: "unsharp-mask", category: .blur,
        summary: "sharpen by adding back the detail a blur removes", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(radius: 2.5, intensity: 0.5) }

    public var radius: Double, intensity: Double

    public init(radius: Double = 2.5, intensity: Double = 0.5) {
        self.radius = radius
        self.intensity = intensity
    }

    public func apply(to image: Image) -> Image {
        if radius < 0.16 || intensity == 0 { return image }
        return _withBlur(image, sigma: radius, .unsharp(Float(intensity)), name: Self.descriptor.name)
    }
}
