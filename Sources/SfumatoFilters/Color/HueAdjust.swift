import Foundation
import SfumatoCore

/// CIHueAdjust: rotates colours about the grey axis.
///
/// Rodrigues rotation about (1,1,1)/sqrt(3) by `angle` (docs/spec/FILTERS.md, a choice): with c = cos,
/// s = sin, a = 1/sqrt(3), t = (1 - c)/3:
/// R' = (c+t)R + (t-sa)G + (t+sa)B; G' = (t+sa)R + (c+t)G + (t-sa)B; B' = (t-sa)R + (t+sa)G + (c+t)B.
/// A positive angle moves red toward yellow. Linear, so it fuses into one matrix with its neighbours.
///
/// ```swift
/// HueAdjust(angle: .pi / 3).apply(to: photo)
/// ```
public struct HueAdjust: DeclaredFilter, Equatable {
    /// Rotation in radians; any angle up to ±4π is accepted (the PencilController maps the pen's
    /// azimuth to π...3π), a slider covers -π...π.
    public static let angle = ParameterSpec.number(
        "inputAngle", default: 0, range: -4 * .pi...4 * .pi,
        slider: -.pi ... .pi, unit: .radians, help: "rotation about the grey axis")
    public static let fields: [FilterField<HueAdjust>] = [.number(angle, \.angle)]
    public static let descriptor = FilterDescriptor(
        displayName: "Hue Adjust", coreImageName: "CIHueAdjust", shortName: "hue-adjust", category: .color,
        summary: "rotate hues about the grey axis", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(angle: 0) }

    /// Rotation in radians.
    public var angle: Double

    public init(angle: Double = 0) { self.angle = angle }

    /// The 3x3 rotation as a 4x4 matrix (alpha kept).
    public var matrix: Matrix4 {
        let c = cos(angle), s = sin(angle), a = 1 / sqrt(3.0), t = (1 - c) / 3
        return Matrix4(rows: [
            [c + t, t - s * a, t + s * a, 0],
            [t + s * a, c + t, t - s * a, 0],
            [t - s * a, t + s * a, c + t, 0],
            [0, 0, 0, 1]
        ])
    }

    public func apply(to image: Image) -> Image {
        image.applying([.linear(matrix)], name: Self.descriptor.name)
    }
}
