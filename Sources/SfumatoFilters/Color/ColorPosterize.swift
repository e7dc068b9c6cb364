import Foundation
import SfumatoCore

/// CIColorPosterize: each colour channel snapped to one of n evenly spaced levels from 0 to 1:
///
///     v' = round(clamp(v, 0, 1) (n - 1)) / (n - 1)
///
/// Apple documents no formula; this keeps black and white and spaces the rest evenly between them.
public struct ColorPosterize: DeclaredFilter, Equatable {
    /// Levels per channel, 2...64.
    public static let levels = ParameterSpec.number(
        "inputLevels", default: 6, range: 2...64, slider: 2...30, help: "levels each colour channel keeps")
    public static let fields: [FilterField<ColorPosterize>] = [.number(levels, \.levels)]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Posterize", coreImageName: "CIColorPosterize", shortName: "color-posterize", category: .color,
        summary: "a few flat levels per channel, like a screen print", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(levels: 6) }

    public var levels: Double

    public init(levels: Double = 6) { self.levels = levels }

    public func apply(to image: Image) -> Image {
        // NaN and huge counts from the Swift API: 2 levels, or at most 65536.
        image.applying([.curve(PosterizeCurve(steps: Float(levels.bounded(2, 65536).rounded() - 1)))], name: Self.descriptor.name)
    }
}

/// round(v s) / s on clamped values, s = levels - 1.
struct PosterizeCurve: ChannelCurve {
    let steps: Float
    var name: String { "posterize \(Int(steps) + 1)" }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let s = SIMD4<Float>(repeating: steps), inverse = SIMD4<Float>(repeating: 1 / steps)
        for i in 0..<count {
            // Clamped with NaN to 0 (maxps gives its second operand for NaN).
            let v = _minps(_maxps(pixels[i], .zero), .one)
            pixels[i] = _roundedAwayFromZero(v * s) * inverse
        }
    }
}
