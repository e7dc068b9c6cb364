import SfumatoCore

/// CIColorInvert: each colour channel becomes 1 - v in the working space, alpha kept (on
/// premultiplied values a - v, so translucent pixels invert their own colour). A linear map: it
/// fuses into one matrix with its neighbours.
///
/// ```swift
/// ColorInvert().apply(to: photo)   // a negative
/// ```
public struct ColorInvert: DeclaredFilter, Equatable {
    public static let fields: [FilterField<ColorInvert>] = []
    public static let descriptor = FilterDescriptor(
        displayName: "Color Invert", coreImageName: "CIColorInvert", shortName: "color-invert", category: .color,
        summary: "invert the colours (a negative)", parameters: fields.map(\.spec))

    public init() {}

    /// R' = A - R, G' = A - G, B' = A - B on premultiplied RGBA (the last column multiplies alpha).
    public static let matrix = Matrix4(rows: [[-1, 0, 0, 1], [0, -1, 0, 1], [0, 0, -1, 1], [0, 0, 0, 1]])

    public func apply(to image: Image) -> Image {
        image.applying([.linear(Self.matrix)], name: Self.descriptor.name)
    }
}
