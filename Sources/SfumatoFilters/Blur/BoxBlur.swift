import SfumatoCore

/// CIBoxBlur: the mean over the (2r + 1) x (2r + 1) square around each pixel, r = round(radius), edges clamped (the extent kept).
public struct BoxBlur: DeclaredFilter, Equatable {
    public static let radiusSpec = ParameterSpec.number(
        "inputRadius", default: 10, range: 0...250, slider: 0...100, unit: .pixels, help: "half the square's side, in pixels")
    public static let fields: [FilterField<BoxBlur>] = [.number(radiusSpec, \.radius)]
    public static let descriptor = FilterDescriptor(
        displayName: "Box Blur", coreImageName: "CIBoxBlur", shortName: "box-blur", category: .blur,
        summary: "the mean over a square", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(radius: 10) }

    public var radius: Double

    public init(radius: Double = 10) {
        self.radius = radius
    }

    public func apply(to image: Image) -> Image {
        // Within the declared range (NaN as 0): the Swift API passes any number.
        let r = Int(Self.radiusSpec.clamped(radius).rounded())
        if r == 0 { return image }
        return _withEdges(image, .clamp) { $0.applying(_BoxKernel(r: r)) }
    }
}
