import SfumatoCore

/// CIConstantColorGenerator: the whole plane in one colour (straight RGBA, sRGB-encoded); it
/// ignores the image it is applied to (an infinite extent: crop it, or blend it with a photo).
public struct ConstantColorGenerator: DeclaredFilter, Equatable {
    public static let color = ParameterSpec.color("inputColor", short: "color", default: [1, 0, 0, 1], help: "R G B A, 0...1")
    public static let fields: [FilterField<ConstantColorGenerator>] = [.vector(color, \.color)]
    public static let descriptor = FilterDescriptor(
        displayName: "Constant Color", coreImageName: "CIConstantColorGenerator", shortName: "constant-color", category: .generator,
        summary: "one colour everywhere", parameters: fields.map(\.spec))

    /// Every parameter at its default (opaque red).
    public init() { self.init(color: [1, 0, 0, 1]) }

    public var color: [Double]

    public init(color: [Double]) { self.color = color }

    public var preservesOpacity: Bool { color.count == 4 && color[3] >= 1 }

    public func apply(to image: Image) -> Image { color.count == 4 ? Image(color: SIMD4(color.map(Float.init)), encoding: .srgb) : .empty }
}
