import SfumatoCore

/// CILinearGradient: color0 at point0 blending to color1 at point1 along the line between them,
/// constant beyond: t = clamp(((p - p0) . (p1 - p0)) / |p1 - p0|^2, 0, 1) at each pixel centre p,
/// the colours mixed premultiplied in sRGB-encoded values (**choice**: as CSS gradients). It
/// ignores the image it is applied to (infinite extent).
public struct LinearGradient: DeclaredFilter, Equatable {
    public static let point0 = ParameterSpec.point("inputPoint0", short: "point0", default: [0, 0], help: "where color0 is, in pixels")
    public static let point1 = ParameterSpec.point("inputPoint1", short: "point1", default: [200, 200], help: "where color1 is, in pixels")
    public static let color0 = ParameterSpec.color("inputColor0", short: "color0", default: [1, 1, 1, 1], help: "the colour at point0")
    public static let color1 = ParameterSpec.color("inputColor1", short: "color1", default: [0, 0, 0, 1], help: "the colour at point1")
    public static let fields: [FilterField<LinearGradient>] = [
        .vector(point0, \.point0), .vector(point1, \.point1), .vector(color0, \.color0), .vector(color1, \.color1)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Linear Gradient", coreImageName: "CILinearGradient", shortName: "linear-gradient", category: .generator,
        summary: "a ramp between two colours along a line", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(point0: [0, 0], point1: [200, 200], color0: [1, 1, 1, 1], color1: [0, 0, 0, 1]) }

    public var point0: [Double], point1: [Double], color0: [Double], color1: [Double]

    public init(point0: [Double], point1: [Double], color0: [Double], color1: [Double]) {
        (self.point0, self.point1, self.color0, self.color1) = (point0, point1, color0, color1)
    }

    public var preservesOpacity: Bool { _lists(color0, color1, count: 4) && color0[3] >= 1 && color1[3] >= 1 }

    public func apply(to image: Image) -> Image {
        guard _lists(point0, point1, count: 2), _lists(color0, color1, count: 4) else { return .empty }
        return Image(generator: _LinearGradient(p0: point0, p1: point1, ramp: _ColorRamp(color0, color1)))
    }
}

struct _LinearGradient: PixelGenerator {
    let p0: [Double], p1: [Double], ramp: _ColorRamp
    var name: String { "CILinearGradient" }
    var encoding: ColorEncoding { .srgb }

    func generate(into row: UnsafeMutablePointer<SIMD4<Float>>, x: Int, y: Int, count: Int) {
        let dx = p1[0] - p0[0], dy = p1[1] - p0[1]
        let length2 = dx * dx + dy * dy
        let py = Double(y) + 0.5 - p0[1]
        for i in 0..<count {
            let px = Double(x + i) + 0.5 - p0[0]
            // Two equal points: color1 on and past the point's line, color0 before it (a step).
            let t = length2 > 0 ? (px * dx + py * dy) / length2 : 1
            row[i] = ramp.color(Float(t.bounded(0, 1)))
        }
    }
}
