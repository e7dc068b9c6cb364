import SfumatoCore

/// CIAreaAverage: the mean of the premultiplied working values over the area, as one pixel at its top-left corner. The extent is [0 0 0 0] (the whole image) or [x y width height].
public struct AreaAverage: DeclaredFilter, Equatable {
    public static let fields: [FilterField<AreaAverage>] = [.vector(_AreaParameter.spec, \.area)]
    public static let descriptor = FilterDescriptor(
        displayName: "Area Average", coreImageName: "CIAreaAverage", shortName: "area-average", category: .reduction,
        summary: "the mean colour of an area (one pixel)", parameters: fields.map(\.spec))

    /// Every parameter at its default (the whole image).
    public init() { self.init(area: [0, 0, 0, 0]) }

    /// [x y width height], or zeros for the whole image.
    public var area: [Double]

    public init(area: [Double]) { self.area = area }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        image.reduced(over: _AreaParameter.area(area, image.extent), by: _AverageReduction())
    }
}
