import SfumatoCore

/// CIAreaMinMax: the per-channel minimum (x = 0) and maximum (x = 1) of the premultiplied working values over the area, as two pixels. The extent is [0 0 0 0] (the whole image) or [x y width height].
public struct AreaMinMax: DeclaredFilter, Equatable {
    public static let fields: [FilterField<AreaMinMax>] = [.vector(_AreaParameter.spec, \.area)]
    public static let descriptor = FilterDescriptor(
        displayName: "Area Min Max", coreImageName: "CIAreaMinMax", shortName: "area-min-max", category: .reduction,
        summary: "the smallest and largest value of each channel (two pixels)", parameters: fields.map(\.spec))

    /// Every parameter at its default (the whole image).
    public init() { self.init(area: [0, 0, 0, 0]) }

    /// [x y width height], or zeros for the whole image.
    public var area: [Double]

    public init(area: [Double]) { self.area = area }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        image.reduced(over: _AreaParameter.area(area, image.extent), by: _ExtremesReduction(output: .both))
    }
}
