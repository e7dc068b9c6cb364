import SfumatoCore

/// CIColorControls: saturation, then brightness, then contrast (docs/spec/FILTERS.md, a choice on order
/// and weights).
///
/// L = 0.2125 R + 0.7154 G + 0.0721 B; rgb = L + saturation (rgb - L); rgb += brightness;
/// rgb = (rgb - 0.5) contrast + 0.5. Affine, so it fuses into one matrix (the bias rides in the
/// alpha column of the premultiplied form).
///
/// ```swift
/// ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2).apply(to: photo)
/// ```
public struct ColorControls: DeclaredFilter, Equatable {
    /// 0 is grey, 1 unchanged; up to 10 accepted (PencilController reaches 8), slider 0...2.
    public static let saturation = ParameterSpec.number(
        "inputSaturation", default: 1, range: 0...10, slider: 0...2,
        unit: .scalar, help: "colourfulness: 0 grey, 1 unchanged")
    /// Added to every channel, -1...1.
    public static let brightness = ParameterSpec.number(
        "inputBrightness", default: 0, range: -1...1,
        help: "added to every channel")
    /// Scale about mid-grey; 0...4 accepted (PencilController reaches 0), slider 0.25...4.
    public static let contrast = ParameterSpec.number(
        "inputContrast", default: 1, range: 0...4, slider: 0.25...4,
        unit: .scalar, help: "scale about mid-grey 0.5")
    public static let fields: [FilterField<ColorControls>] = [
        .number(saturation, \.saturation), .number(brightness, \.brightness), .number(contrast, \.contrast)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Controls", coreImageName: "CIColorControls", shortName: "color-controls", category: .color,
        summary: "adjust saturation, brightness and contrast", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(saturation: 1, brightness: 0, contrast: 1) }

    public var saturation: Double
    public var brightness: Double
    public var contrast: Double

    public init(saturation: Double = 1, brightness: Double = 0, contrast: Double = 1) {
        self.saturation = saturation
        self.brightness = brightness
        self.contrast = contrast
    }

    /// Rec. 709 luma weights as Core Image uses them.
    public static let lumaWeights: (Double, Double, Double) = (0.2125, 0.7154, 0.0721)

    /// The whole filter as one matrix on premultiplied RGBA.
    public var matrix: Matrix4 {
        let (wr, wg, wb) = Self.lumaWeights
        let s = saturation, c = contrast
        let bias = c * brightness + 0.5 * (1 - c)
        func row(_ i: Int) -> [Double] {
            let w = [wr, wg, wb]
            var r = (0..<3).map { j in c * ((1 - s) * w[j] + (i == j ? s : 0)) }
            r.append(bias)
            return r
        }
        return Matrix4(rows: [row(0), row(1), row(2), [0, 0, 0, 1]])
    }

    public func apply(to image: Image) -> Image {
        image.applying([.linear(matrix)], name: Self.descriptor.name)
    }
}
