import SfumatoCore

/// CITemperatureAndTint: white balance. Each white is a colour temperature on the Planckian
/// locus (Kim et al.'s cubic fits, 1667...25000 K) moved tint x 1e-4 along the locus's normal in
/// CIE 1960 uv (positive: toward magenta); colours are adapted from the neutral's white to the
/// target's by the Bradford transform, in linear-light sRGB whatever the working space:
/// RGB' = XYZ->RGB . B^-1 diag(B Wt / B Wn) B . RGB->XYZ . RGB (**choice**: Apple gives no formula).
/// A photo shot under 3000 K light looks neutral with neutral (3000, 0) and target (6500, 0).
public struct TemperatureAndTint: DeclaredFilter, Equatable {
    public static let neutral = ParameterSpec.vector(
        "inputNeutral", short: "neutral", default: [6500, 0], count: 2, range: -25000...25000,
        help: "the light the photo was taken in: [kelvin tint] (1667...25000 K, tint -150...150)")
    public static let targetNeutral = ParameterSpec.vector(
        "inputTargetNeutral", short: "target", default: [6500, 0], count: 2, range: -25000...25000,
        help: "the light it should look taken in: [kelvin tint]")
    public static let fields: [FilterField<TemperatureAndTint>] = [.vector(neutral, \.neutral), .vector(targetNeutral, \.targetNeutral)]
    public static let descriptor = FilterDescriptor(
        displayName: "Temperature and Tint", coreImageName: "CITemperatureAndTint", shortName: "temperature-tint", category: .color,
        summary: "white balance: from one light's colour to another's", parameters: fields.map(\.spec))

    /// Every parameter at its default (no change).
    public init() { self.init(neutral: [6500, 0], targetNeutral: [6500, 0]) }

    public var neutral: [Double], targetNeutral: [Double]

    public init(neutral: [Double], targetNeutral: [Double]) {
        self.neutral = neutral
        self.targetNeutral = targetNeutral
    }

    public func validate() throws {
        guard _lists(neutral, targetNeutral, count: 2) else { throw SfumatoError.invalidArgument("a neutral is two numbers: temperature and tint") }
        for v in [neutral, targetNeutral] where !(1667...25000).contains(v[0]) || !(-150...150).contains(v[1]) {
            throw SfumatoError.invalidArgument("temperature \(v[0]) K, tint \(v[1]): the temperature must be 1667...25000 K and the tint -150...150")
        }
    }

    /// The 3x3 matrix on linear sRGB.
    /// The identity where a neutral is not two numbers (the Swift API takes any list).
    public var matrix: [[Double]] {
        guard _lists(neutral, targetNeutral, count: 2) else { return [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }
        return _ChromaticAdaptation.matrix(
            from: _ChromaticAdaptation.white(kelvin: neutral[0], tint: neutral[1]),
            to: _ChromaticAdaptation.white(kelvin: targetNeutral[0], tint: targetNeutral[1]))
    }

    public func apply(to image: Image) -> Image {
        if neutral == targetNeutral || (try? validate()) == nil { return image }
        return image.applying([.pixelIn(.linear, _RGBMatrix(matrix, name: "Bradford adaptation"))], name: Self.descriptor.name)
    }
}
