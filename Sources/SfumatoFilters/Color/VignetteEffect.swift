import SfumatoCore

/// CIVignetteEffect: a circle of the photo, the rest faded to black: C' = C m, alpha kept, with
/// m = 1 - intensity smoothstep(radius (1 - falloff), radius (1 + falloff), d), d the distance from
/// the centre (pixels) to the pixel centre and smoothstep t^2 (3 - 2 t) (**choice**: Apple gives
/// no formula; falloff 0 is a hard edge).
public struct VignetteEffect: DeclaredFilter, Equatable {
    public static let center = ParameterSpec.vector(
        "inputCenter", short: "center", default: [150, 150], count: 2, range: -1e7...1e7, help: "the circle's centre, in pixels")
    public static let radius = ParameterSpec.number(
        "inputRadius", default: 150, range: 0...1e6, slider: 0...2000, unit: .pixels, help: "the circle's radius")
    public static let intensity = ParameterSpec.number(
        "inputIntensity", default: 1, range: -1...1, help: "how dark outside the circle (negative: brighter)")
    public static let falloff = ParameterSpec.number(
        "inputFalloff", default: 0.5, range: 0...1, help: "the width of the fade, as a fraction of the radius on either side")
    public static let fields: [FilterField<VignetteEffect>] = [
        .vector(center, \.center), .number(radius, \.radius), .number(intensity, \.intensity), .number(falloff, \.falloff)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Vignette Effect", coreImageName: "CIVignetteEffect", shortName: "vignette-effect", category: .color,
        summary: "a circle of the photo, fading to black outside", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(center: [150, 150], radius: 150, intensity: 1, falloff: 0.5) }

    public var center: [Double], radius: Double, intensity: Double, falloff: Double

    public init(center: [Double], radius: Double, intensity: Double = 1, falloff: Double = 0.5) {
        (self.center, self.radius, self.intensity, self.falloff) = (center, radius, intensity, falloff)
    }

    public func apply(to image: Image) -> Image {
        guard intensity != 0, center.count == 2 else { return image }
        let (k, r0, r1) = (intensity, radius * (1 - falloff), radius * (1 + falloff))
        let mask = Image(
            generator: _RadialFactor(cx: center[0], cy: center[1], factor: { d in 1 - k * _smoothstep(r0, r1, d) }, name: "vignette-effect factor"))
        return image.blended(with: mask, by: _ScaleByMask(name: Self.descriptor.name))
    }
}
