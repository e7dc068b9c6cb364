import SfumatoCore

/// CIAreaMaximum: the per-channel maximum of the premultiplied working values over the area, as one pixel. The extent is [0 0 0 0] (the whole image) or [x y width height].
public struct AreaMaximum: DeclaredFilter, Equatable {
    public static let fields: [FilterField<AreaMaximum>] = [.vector(_AreaParameter.spec, \.area)]
    public static let descriptor = FilterDescriptor(
        displayName: "Area Maximum", coreImageName: "CIAreaMaximum", shortName: "area-maximum", category: .reduction,
        summary: "the largest value of each channel over an area (one pixel)", parameters: fields.map(\.spec))

    /// Every parameter at its default (the whole image).
    public init() { self.init(area: [0, 0, 0, 0]) }

    /// [x y width height], or zeros for the whole image.
    public var area: [Double]

    public init(area: [Double]) { self.area = area }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        image.reduced(over: _AreaParameter.area(area, image.extent), by: _ExtremesReduction(output: .maximum))
    }
}
