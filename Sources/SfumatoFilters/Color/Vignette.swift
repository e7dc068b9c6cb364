import SfumatoCore

/// CIVignette: the colour darkened toward the corners, C' = C m, alpha kept, with
/// m = 1 - intensity min(1, (d / radius)^2) and d the distance from the extent's centre to the
/// pixel centre over half the extent's diagonal (0 at the centre, 1 at the corners). A quadratic
/// fall-off, as a lens's (**choice**: Apple gives no formula); a negative intensity brightens.
public struct Vignette: DeclaredFilter, Equatable {
    public static let intensity = ParameterSpec.number(
        "inputIntensity", default: 0, range: -1...1, help: "how much the corners darken (negative: brighten)")
    public static let radius = ParameterSpec.number(
        "inputRadius", default: 1, range: 0.01...2, help: "where the darkening is full, in half-diagonals from the centre")
    public static let fields: [FilterField<Vignette>] = [.number(intensity, \.intensity), .number(radius, \.radius)]
    public static let descriptor = FilterDescriptor(
        displayName: "Vignette", coreImageName: "CIVignette", shortName: "vignette", category: .color,
        summary: "darken the corners", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(intensity: 0, radius: 1) }

    public var intensity: Double, radius: Double

    public init(intensity: Double, radius: Double = 1) {
        self.intensity = intensity
        self.radius = radius
    }

    public func apply(to image: Image) -> Image {
        let e = image.extent
        guard intensity != 0, !e.isEmpty, !e.isInfinite else { return image }
        let cx = Double(e.x) + Double(e.width) / 2, cy = Double(e.y) + Double(e.height) / 2
        let half = (Double(e.width) * Double(e.width) + Double(e.height) * Double(e.height)).squareRoot() / 2
        let (k, r) = (intensity, radius * half)
        let mask = Image(generator: _RadialFactor(cx: cx, cy: cy, factor: { d in 1 - k * min(1, (d / r) * (d / r)) }, name: "vignette factor"))
        return image.blended(with: mask, by: _ScaleByMask(name: Self.descriptor.name))
    }
}
