import Foundation
import SfumatoFilters

/// Shading with Pencil: UIKit force = pressure x 4.17 (the Apple Pencil's maximum force).
/// Above the tilt threshold (altitude >= π/6) a solid line of width force x 4 (6 without
/// pressure); below it, graphite shading on the paper: a = max(0.25, altitude),
/// n = (a - 0.25) / (π/6 - 0.25), width = max(60 (1 - n), 5), opacity = force / 4 clamped to 0...1.
/// The shading is graphite on the shared ``PaperTooth`` (see `Stroke/Graphite.swift` for its definition).
public struct Pencil: Brush {
    public static let tiltThreshold = Double.pi / 6
    public static let forceSensitivity = 4.0
    /// The most alpha the pencil's shading reaches however many passes (graphite's sheen: never black).
    public static let graphiteSheen: Float = _Graphite.sheen
    public static let maximumForce = 4.17
    public static let defaultLineWidth = 6.0
    public static let minimumShadingWidth = 5.0
    public static let maximumShadingWidth = 60.0
    public static let minimumAltitude = 0.25

    public static let descriptor = BrushDescriptor(
        name: "pencil", summary: "Shading with Pencil: a line when upright, grainy shading when tilted",
        parameters: [
            .number(
                "tiltThreshold", default: .pi / 6, range: 0...(Double.pi / 2), unit: .radians,
                help: "below this altitude the pencil shades")
        ])

    public let color: SIMD3<Float>
    public init(color: SIMD3<Float>) { self.color = color }
    public var blend: BrushBlend { .over }

    /// Whether a sample shades (pen below the tilt threshold).
    public static func shades(_ s: PenSample) -> Bool { s.altitude < tiltThreshold }

    public func ink(for s: PenSample, pressure p: Double, hasPressure: Bool) -> InkPoint {
        let force = hasPressure ? p * Self.maximumForce : 0
        if !Self.shades(s) {
            let width = force > 0 ? force * Self.forceSensitivity : Self.defaultLineWidth
            return InkPoint(x: s.x, y: s.y, radius: width / 2, opacity: 1, color: color)
        }
        let a = max(Self.minimumAltitude, s.altitude)
        let n = (a - Self.minimumAltitude) / (Self.tiltThreshold - Self.minimumAltitude)
        let width = max(Self.maximumShadingWidth * (1 - n), Self.minimumShadingWidth)
        let opacity = hasPressure ? (force / Self.forceSensitivity).bounded(0, 1) : 0.5
        return InkPoint(x: s.x, y: s.y, radius: width / 2, opacity: opacity, color: color, textured: true)
    }
}
