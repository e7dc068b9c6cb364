import SfumatoCore

/// CISepiaTone: the W3C Filter Effects `sepia(a)` colour matrix, a the intensity:
///
///     R' = (0.393 + 0.607 (1-a)) R + (0.769 - 0.769 (1-a)) G + (0.189 - 0.189 (1-a)) B
///     G' = (0.349 - 0.349 (1-a)) R + (0.686 + 0.314 (1-a)) G + (0.168 - 0.168 (1-a)) B
///     B' = (0.272 - 0.272 (1-a)) R + (0.534 - 0.534 (1-a)) G + (0.131 + 0.869 (1-a)) B
///
/// (Filter Effects Module Level 1, 13.2.4; Apple documents no formula). Linear: it fuses with its
/// neighbours into one matrix.
public struct SepiaTone: DeclaredFilter, Equatable {
    /// 0 (the photo) ... 1 (full sepia).
    public static let intensity = ParameterSpec.number(
        "inputIntensity", default: 1, range: 0...1, help: "how much of the sepia tone: 0 keeps the photo, 1 is full sepia")
    public static let fields: [FilterField<SepiaTone>] = [.number(intensity, \.intensity)]
    public static let descriptor = FilterDescriptor(
        displayName: "Sepia Tone", coreImageName: "CISepiaTone", shortName: "sepia-tone", category: .color,
        summary: "the brown tone of old photographs", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(intensity: 1) }

    public var intensity: Double

    public init(intensity: Double = 1) { self.intensity = intensity }

    /// The matrix on RGB, as the definition writes it.
    public var rows: [[Double]] {
        let k = 1 - intensity.bounded(0, 1)
        return [
            [0.393 + 0.607 * k, 0.769 - 0.769 * k, 0.189 - 0.189 * k],
            [0.349 - 0.349 * k, 0.686 + 0.314 * k, 0.168 - 0.168 * k],
            [0.272 - 0.272 * k, 0.534 - 0.534 * k, 0.131 + 0.869 * k]
        ]
    }

    public func apply(to image: Image) -> Image {
        let r = rows
        let m = Matrix4(rows: [r[0] + [0], r[1] + [0], r[2] + [0], [0, 0, 0, 1]])
        return image.applying([.linear(m)], name: Self.descriptor.name)
    }
}
