import SfumatoCore

/// CIColorMonochrome: the photo's luminance tinted with one colour, mixed with the photo by the
/// intensity i:
///
///     L = 0.2125 R + 0.7154 G + 0.0721 B          (Rec. 709, as CIColorControls weighs it)
///     C' = (1 - i) C + i L K                       for each channel C of the colour K
///
/// Apple documents no formula; this is the usual reading of "remaps colours so they fall within
/// shades of a single colour". Linear: it fuses with its neighbours into one matrix.
public struct ColorMonochrome: DeclaredFilter, Equatable {
    /// The tint, RGB 0...1 (alpha, if given, is ignored).
    public static let color = ParameterSpec.vector(
        "inputColor", default: [0.6, 0.45, 0.3], count: nil, range: 0...1, help: "the tint, R G B in 0...1")
    /// 0 (the photo) ... 1 (all tint).
    public static let intensity = ParameterSpec.number(
        "inputIntensity", default: 1, range: 0...1, help: "how much of the tinted luminance replaces the photo")
    public static let fields: [FilterField<ColorMonochrome>] = [.vector(color, \.color), .number(intensity, \.intensity)]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Monochrome", coreImageName: "CIColorMonochrome", shortName: "color-monochrome", category: .color,
        summary: "shades of one colour", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(color: [0.6, 0.45, 0.3]) }

    public var color: [Double]
    public var intensity: Double

    public init(color: [Double] = [0.6, 0.45, 0.3], intensity: Double = 1) {
        self.color = color
        self.intensity = intensity
    }

    /// Luminance weights.
    public static let luma: [Double] = [0.2125, 0.7154, 0.0721]

    public func apply(to image: Image) -> Image {
        let i = intensity.bounded(0, 1)
        let k = (0..<3).map { $0 < color.count ? color[$0].bounded(0, 1) : 0 }
        var rows: [[Double]] = []
        for c in 0..<3 {
            rows.append((0..<3).map { (c == $0 ? 1 - i : 0) + i * k[c] * Self.luma[$0] } + [0])
        }
        rows.append([0, 0, 0, 1])
        return image.applying([.linear(Matrix4(rows: rows))], name: Self.descriptor.name)
    }
}
