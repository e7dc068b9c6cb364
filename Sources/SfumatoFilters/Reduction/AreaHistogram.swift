import SfumatoCore

/// CIAreaHistogram: `count` bins per channel over the area, as a count x 1 image: bin b of a
/// channel holds scale x the fraction of pixels whose straight working value v has
/// min(floor(clamp(v, 0, 1) count), count - 1) = b (alpha binned by alpha). Read it as floats
/// (the values are fractions, not colours).
public struct AreaHistogram: DeclaredFilter, Equatable {
    public static let count = ParameterSpec.integer(
        "inputCount", short: "count", default: 64, range: 1...4096, help: "the number of bins")
    public static let scale = ParameterSpec.number(
        "inputScale", short: "scale", default: 1, range: 0...1e6, help: "a factor on every fraction")
    public static let fields: [FilterField<AreaHistogram>] = [
        .vector(_AreaParameter.spec, \.area), .integer(count, \.count), .number(scale, \.scale)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Area Histogram", coreImageName: "CIAreaHistogram", shortName: "area-histogram", category: .reduction,
        summary: "the histogram of an area, as a row of pixels", parameters: fields.map(\.spec))

    /// Every parameter at its default (the whole image, 64 bins).
    public init() { self.init(area: [0, 0, 0, 0]) }

    public var area: [Double], count: Int, scale: Double

    public init(area: [Double], count: Int = 64, scale: Double = 1) {
        (self.area, self.count, self.scale) = (area, count, scale)
    }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        image.reduced(over: _AreaParameter.area(area, image.extent), by: _HistogramReduction(count: Self.count.scaledInteger(count, by: 1), scale: scale))
    }
}
