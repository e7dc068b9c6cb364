import SfumatoCore

/// CIColorCubeWithColorSpace (`lut`): ``ColorCube``'s lookup on the colour in a chosen encoding,
/// sRGB-encoded by default (what `.cube` files are made for), whatever the working space: the
/// renderer converts to that encoding around the lookup and back.
///
/// ```sh
/// sfumato apply photo.jpg -o graded.jpg -f lut:cube=film.cube
/// ```
public struct ColorCubeWithColorSpace: DeclaredFilter, Equatable {
    /// Where the table's inputs live.
    public enum Space: String, Sendable, CaseIterable {
        /// sRGB-encoded values (display-referred: the usual `.cube`).
        case srgb
        /// Linear-light sRGB.
        case linear
    }

    public static let space = ParameterSpec.choice(
        "inputColorSpace", short: "space", default: Space.srgb.rawValue, Space.allCases.map(\.rawValue),
        help: "the values the table expects: srgb (encoded, as .cube files) or linear")
    public static let fields: [FilterField<ColorCubeWithColorSpace>] = [
        .integer(_CubeParameters.dimension, \.dimension), .vector(_CubeParameters.data, \.data), .choice(space, \.space)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Cube With Color Space", coreImageName: "CIColorCubeWithColorSpace", shortName: "lut", category: .color,
        summary: "map colours through a 3D lookup table (.cube files)", parameters: fields.map(\.spec))

    /// Every parameter at its default (the identity table of side 2, sRGB).
    public init() { self.init(dimension: 2, data: CubeFile.identity(2)) }

    public var dimension: Int
    public var data: [Double]
    public var space: Space

    public init(dimension: Int, data: [Double], space: Space = .srgb) {
        self.dimension = dimension
        self.data = data
        self.space = space
    }

    /// The filter for a `.cube` file's table.
    public init(cube: CubeFile, space: Space = .srgb) { self.init(dimension: cube.dimension, data: cube.rgba, space: space) }

    public func validate() throws { try _CubeParameters.validate(dimension: dimension, data: data) }

    public var preservesOpacity: Bool { stride(from: 3, to: data.count, by: 4).allSatisfy { data[$0] >= 1 } }

    public func apply(to image: Image) -> Image {
        guard (try? validate()) != nil else { return image }
        let lookup = _CubeLookup(dimension: dimension, data: data, name: "cube \(dimension)")
        return image.applying([.pixelIn(space == .srgb ? .srgb : .linear, lookup)], name: Self.descriptor.name)
    }
}
