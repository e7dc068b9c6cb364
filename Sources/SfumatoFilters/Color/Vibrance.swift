import SfumatoCore

/// CIVibrance: saturation that spares what is already saturated. Apple documents no formula; this
/// is GPUImage's (GPUImageVibranceFilter), on the straight colour:
///
///     mean = (R + G + B) / 3,   m = max(R, G, B),   t = 3 (m - mean) (-amount)
///     C' = C + t (m - C)                      (mix toward the largest channel by t)
///
/// A positive amount pushes dull colours away from grey more than vivid ones (t is small where
/// m is close to the mean, and the move is toward or away from m); a negative one mutes them.
public struct Vibrance: DeclaredFilter, Equatable {
    /// -1...1.
    public static let amount = ParameterSpec.number(
        "inputAmount", default: 0, range: -1...1, help: "more (positive) or less (negative) colour, gentler on vivid colours")
    public static let fields: [FilterField<Vibrance>] = [.number(amount, \.amount)]
    public static let descriptor = FilterDescriptor(
        displayName: "Vibrance", coreImageName: "CIVibrance", shortName: "vibrance", category: .color,
        summary: "saturation that spares vivid colours", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(amount: 0) }

    public var amount: Double

    public init(amount: Double = 0) { self.amount = amount }

    public func apply(to image: Image) -> Image {
        image.applying([.pixel(VibrancePixels(amount: Float(amount)))], name: Self.descriptor.name)
    }
}

struct VibrancePixels: PixelFunction {
    let amount: Float
    var name: String { "vibrance \(amount)" }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            let p = pixels[i]
            let mean = (p.x + p.y + p.z) / 3
            let m = max(p.x, p.y, p.z)
            let t = 3 * (m - mean) * -amount
            let rgb = SIMD3(p.x, p.y, p.z)
            let mixed = rgb + t * (SIMD3(repeating: m) - rgb)
            pixels[i] = SIMD4(mixed, p.w)
        }
    }
}
