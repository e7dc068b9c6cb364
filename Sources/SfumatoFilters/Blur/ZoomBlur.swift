import SfumatoCore

/// CIZoomBlur: the mean of bilinear samples from each pixel centre p toward the centre c, over
/// amount per cent of the way: q_k = p + (c - p)(amount / 100)(k / n), k = 0...n,
/// n = max(1, ceil(|c - p| amount / 100)), at most 256 (longer streaks are sampled more sparsely:
/// a bounded cost per pixel, however far the centre); edges clamped (**choice**: Apple gives no formula and
/// measures the amount in pixels; a fraction of the distance makes the streaks grow outward, as a
/// zoom's do).
public struct ZoomBlur: DeclaredFilter, Equatable {
    public static let center = ParameterSpec.vector(
        "inputCenter", short: "center", default: [150, 150], count: 2, range: -1e6...1e6, help: "the zoom's centre, in pixels")
    public static let amount = ParameterSpec.number(
        "inputAmount", default: 20, range: 0...100, help: "how far toward the centre each pixel is smeared, in per cent of the distance")
    public static let fields: [FilterField<ZoomBlur>] = [.vector(center, \.center), .number(amount, \.amount)]
    public static let descriptor = FilterDescriptor(
        displayName: "Zoom Blur", coreImageName: "CIZoomBlur", shortName: "zoom-blur", category: .blur,
        summary: "streaks toward a centre, as zooming during the exposure", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(center: [150, 150], amount: 20) }

    public var center: [Double], amount: Double

    public init(center: [Double], amount: Double = 20) {
        self.center = center
        self.amount = amount
    }

    public func apply(to image: Image) -> Image {
        // Within the declared ranges (NaN as none): the Swift API passes any number and list.
        let amount = Self.amount.clamped(amount)
        guard amount > 0, center.count == 2 else { return image }
        let c = center.map { Self.center.clamped($0) }
        return _withEdges(image, .clamp) { $0.applying(_ZoomKernel(cx: c[0], cy: c[1], fraction: amount / 100)) }
    }
}
