import SfumatoCore

/// CIMedianFilter: the per-channel median of each 3x3 neighbourhood, edge pixels clamped; the
/// extent stays the input's.
///
/// ```swift
/// MedianFilter().apply(to: noisyPhoto)
/// ```
public struct MedianFilter: DeclaredFilter, Equatable {
    public static let fields: [FilterField<MedianFilter>] = []
    public static let descriptor = FilterDescriptor(
        displayName: "Median", coreImageName: "CIMedianFilter", shortName: "median-filter", category: .blur,
        summary: "3x3 per-channel median (removes speckle noise)", parameters: fields.map(\.spec))

    public init() {}

    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_MedianKernel(diameter: 3)) }
    }
}
