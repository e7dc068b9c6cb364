import SfumatoCore

/// CIColorCube: each pixel's straight colour looked up in a 3D table, trilinearly, in the working
/// space (``_CubeLookup``: clamped to 0...1, scaled by n - 1, the eight neighbours mixed; the
/// output alpha is the pixel's times the table's). For `.cube` files, made for sRGB-encoded
/// values, use ``ColorCubeWithColorSpace`` (`lut`).
public struct ColorCube: DeclaredFilter, Equatable {
    public static let fields: [FilterField<ColorCube>] = [
        .integer(_CubeParameters.dimension, \.dimension), .vector(_CubeParameters.data, \.data)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Cube", coreImageName: "CIColorCube", shortName: "color-cube", category: .color,
        summary: "map colours through a 3D lookup table (working space)", parameters: fields.map(\.spec))

    /// Every parameter at its default (the identity table of side 2).
    public init() { self.init(dimension: 2, data: CubeFile.identity(2)) }

    public var dimension: Int
    public var data: [Double]

    public init(dimension: Int, data: [Double]) {
        self.dimension = dimension
        self.data = data
    }

    public func validate() throws { try _CubeParameters.validate(dimension: dimension, data: data) }

    public var preservesOpacity: Bool { stride(from: 3, to: data.count, by: 4).allSatisfy { data[$0] >= 1 } }

    public func apply(to image: Image) -> Image {
        guard (try? validate()) != nil else { return image }
        return image.applying([.pixel(_CubeLookup(dimension: dimension, data: data, name: "cube \(dimension)"))], name: Self.descriptor.name)
    }
}
