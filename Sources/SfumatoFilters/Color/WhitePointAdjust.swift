import SfumatoCore

/// CIWhitePointAdjust: white becomes the given colour: C' = C W per channel, in linear light
/// whatever the working space, W the colour (sRGB-encoded, as given) decoded to linear, alpha kept
/// (**choice**: a von Kries scaling in RGB; Apple says only that it maps the reference white).
public struct WhitePointAdjust: DeclaredFilter, Equatable {
    public static let color = ParameterSpec.vector(
        "inputColor", short: "color", default: [1, 1, 1, 1], count: 4, range: 0...1, help: "the colour white becomes: R G B A, sRGB")
    public static let fields: [FilterField<WhitePointAdjust>] = [.vector(color, \.color)]
    public static let descriptor = FilterDescriptor(
        displayName: "White Point Adjust", coreImageName: "CIWhitePointAdjust", shortName: "white-point", category: .color,
        summary: "tint the whole image so white becomes a colour", parameters: fields.map(\.spec))

    /// Every parameter at its default (no change).
    public init() { self.init(color: [1, 1, 1, 1]) }

    public var color: [Double]

    public init(color: [Double]) { self.color = color }

    public func apply(to image: Image) -> Image {
        if color.count != 4 || color.prefix(3).allSatisfy({ $0 == 1 }) { return image }
        let w = color.prefix(3).map { SRGB.decode($0) }
        let m = [[w[0], 0, 0], [0, w[1], 0], [0, 0, w[2]]]
        return image.applying([.pixelIn(.linear, _RGBMatrix(m, name: "white point"))], name: Self.descriptor.name)
    }
}
