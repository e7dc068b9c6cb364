import SfumatoCore

/// CIRadialGradient: color0 within radius0 of the centre blending to color1 at radius1 and
/// beyond: t = clamp((d - r0) / (r1 - r0), 0, 1), d the distance from the centre to the pixel
/// centre (with r0 = r1 a step at that radius), mixed as ``LinearGradient``. Infinite extent.
public struct RadialGradient: DeclaredFilter, Equatable {
    public static let center = ParameterSpec.point("inputCenter", short: "center", default: [150, 150], help: "the centre, in pixels")
    public static let radius0 = ParameterSpec.number(
        "inputRadius0", short: "radius0", default: 5, range: 0...1e6, slider: 0...800, unit: .pixels, help: "where color0 ends")
    public static let radius1 = ParameterSpec.number(
        "inputRadius1", short: "radius1", default: 100, range: 0...1e6, slider: 0...800, unit: .pixels, help: "where color1 begins")
    public static let color0 = ParameterSpec.color("inputColor0", short: "color0", default: [1, 1, 1, 1], help: "the colour inside")
    public static let color1 = ParameterSpec.color("inputColor1", short: "color1", default: [0, 0, 0, 1], help: "the colour outside")
    public static let fields: [FilterField<RadialGradient>] = [
        .vector(center, \.center), .number(radius0, \.radius0), .number(radius1, \.radius1), .vector(color0, \.color0), .vector(color1, \.color1)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Radial Gradient", coreImageName: "CIRadialGradient", shortName: "radial-gradient", category: .generator,
        summary: "a ramp between two colours by distance from a centre", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(center: [150, 150], radius0: 5, radius1: 100, color0: [1, 1, 1, 1], color1: [0, 0, 0, 1]) }

    public var center: [Double], radius0: Double, radius1: Double, color0: [Double], color1: [Double]

    public init(center: [Double], radius0: Double, radius1: Double, color0: [Double], color1: [Double]) {
        (self.center, self.radius0, self.radius1, self.color0, self.color1) = (center, radius0, radius1, color0, color1)
    }

    public var preservesOpacity: Bool { _lists(color0, color1, count: 4) && color0[3] >= 1 && color1[3] >= 1 }

    public func apply(to image: Image) -> Image {
        guard center.count == 2, _lists(color0, color1, count: 4) else { return .empty }
        return Image(generator: _RadialGradient(center: center, r0: radius0, r1: radius1, ramp: _ColorRamp(color0, color1)))
    }
}

struct _RadialGradient: PixelGenerator {
    let center: [Double], r0: Double, r1: Double, ramp: _ColorRamp
    var name: String { "CIRadialGradient" }
    var encoding: ColorEncoding { .srgb }

    func generate(into row: UnsafeMutablePointer<SIMD4<Float>>, x: Int, y: Int, count: Int) {
        let dy = Double(y) + 0.5 - center[1]
        for i in 0..<count {
            let dx = Double(x + i) + 0.5 - center[0]
            let d = (dx * dx + dy * dy).squareRoot()
            let t = r1 == r0 ? (d < r0 ? 0 : 1) : (d - r0) / (r1 - r0)
            row[i] = ramp.color(Float(t.bounded(0, 1)))
        }
    }
}
