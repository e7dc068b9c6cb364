import SfumatoCore

/// CIDiscBlur: the mean over the pixels whose centres lie within radius of the pixel's (a disc), edges clamped.
public struct DiscBlur: DeclaredFilter, Equatable {
    public static let radiusSpec = ParameterSpec.number(
        "inputRadius", default: 8, range: 0...250, slider: 0...100, unit: .pixels, help: "the disc's radius, in pixels")
    public static let fields: [FilterField<DiscBlur>] = [.number(radiusSpec, \.radius)]
    public static let descriptor = FilterDescriptor(
        displayName: "Disc Blur", coreImageName: "CIDiscBlur", shortName: "disc-blur", category: .blur,
        summary: "the mean over a disc, as a defocused lens", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(radius: 8) }

    public var radius: Double

    public init(radius: Double = 8) {
        self.radius = radius
    }

    public func apply(to image: Image) -> Image {
        // Within the declared range (NaN as 0): the Swift API passes any number.
        let radius = Self.radiusSpec.clamped(radius)
        if radius < 1 { return image }
        return _withEdges(image, .clamp) { $0.applying(_DiscKernel(radius: radius)) }
    }
}
