import SfumatoCore

/// CIAreaMinimum: the per-channel minimum of the premultiplied working values over the area, as one pixel. The extent is [0 0 0 0] (the whole image) or [x y width height].
public struct AreaMinimum: DeclaredFilter, Equatable {
    public static let fields: [FilterField<AreaMinimum>] = [.vector(_AreaParameter.spec, \.area)]
    public static let descriptor = FilterDescriptor(
        displayName: "Area Minimum", coreImageName: "CIAreaMinimum", shortName: "area-minimum", category: .reduction,
        summary: "the smallest value of each channel over an area (one pixel)", parameters: fields.map(\.spec))

    /// Every parameter at its default (the whole image).
    public init() { self.init(area: [0, 0, 0, 0]) }

    /// [x y width height], or zeros for the whole image.
    public var area: [Double]

    public init(area: [Double]) { self.area = area }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        image.reduced(over: _AreaParameter.area(area, image.extent), by: _ExtremesReduction(output: .minimum))
    }
}
