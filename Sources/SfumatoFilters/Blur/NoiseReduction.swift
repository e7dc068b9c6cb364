import SfumatoCore

/// CINoiseReduction: B = the Gaussian of sigma 1 with clamped edges; I' = B + (1 + sharpness) shrink(I - B, noiseLevel) per channel, shrink(d, t) = sign(d) max(abs(d) - t, 0): detail smaller than the noise level goes, larger detail stays, sharpened (**choice**: Apple gives no formula).
public struct NoiseReduction: DeclaredFilter, Equatable {
    public static let noiseLevelSpec = ParameterSpec.number(
        "inputNoiseLevel", default: 0.02, range: 0...1, slider: 0...0.1, help: "variations below this (in working values) are smoothed away")
    public static let sharpnessSpec = ParameterSpec.number(
        "inputSharpness", default: 0.4, range: 0...10, slider: 0...2, help: "how much the kept detail is sharpened")
    public static let fields: [FilterField<NoiseReduction>] = [.number(noiseLevelSpec, \.noiseLevel), .number(sharpnessSpec, \.sharpness)]
    public static let descriptor = FilterDescriptor(
        displayName: "Noise Reduction", coreImageName: "CINoiseReduction", shortName: "noise-reduction", category: .blur,
        summary: "smooth small variations, keep and sharpen edges", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(noiseLevel: 0.02, sharpness: 0.4) }

    public var noiseLevel: Double, sharpness: Double

    public init(noiseLevel: Double = 0.02, sharpness: Double = 0.4) {
        self.noiseLevel = noiseLevel
        self.sharpness = sharpness
    }

    public func apply(to image: Image) -> Image {
        return _withBlur(image, sigma: 1, .shrink(threshold: Float(noiseLevel), sharpen: Float(sharpness)), name: Self.descriptor.name)
    }
}
