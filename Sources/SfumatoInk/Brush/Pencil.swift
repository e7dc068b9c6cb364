import Foundation
import SfumatoFilters

/// Shading with Pencil: UIKit force = pressure x 4.17 (the Apple Pencil's maximum force).
/// Above the tilt threshold (altitude >= π/6) a solid line of width force x 4 (6 without
/// pressure); below it, shading with the pencil grain: a = max(0.25, altitude),
/// n = (a - 0.25) / (π/6 - 0.25), width = max(60 (1 - n), 5), opacity = force / 4 clamped to 0...1.
public struct Pencil: Brush {
    public static let tiltThreshold = Double.pi / 6
    public static let forceSensitivity = 4.0
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
        let opacity = hasPressure ? min(max(force / Self.forceSensitivity, 0), 1) : 0.5
        return InkPoint(x: s.x, y: s.y, radius: width / 2, opacity: opacity, color: color, textured: true)
    }
}

/// Pencil grain: tileable value noise made by Sfumato itself (seeded, fixed in canvas space, so
/// overlapping strokes hit the same paper tooth and build tone like graphite).
public final class PencilGrain: Sendable {
    /// Side of the repeating tile, in document pixels.
    public static let size = 256
    /// The shared grain (seed 1).
    public static let shared = PencilGrain(seed: 1)

    private let tile: [Float]

    /// Builds the tile: three octaves of smooth value noise, periodic in the tile, shaped so
    /// about a third of the paper is tooth that catches graphite readily.
    public init(seed: UInt64) {
        let n = PencilGrain.size
        var values = [Float](repeating: 0, count: n * n)
        func lattice(_ period: Int, _ salt: UInt64) -> [Float] {
            var s = seed &* 0x9E37_79B9_7F4A_7C15 &+ salt
            return (0..<(period * period)).map { _ in
                s ^= s << 13; s ^= s >> 7; s ^= s << 17
                return Float(s % 10_000) / 10_000
            }
        }
        for (octave, (period, weight)) in [(128, 0.45), (64, 0.35), (32, 0.2)].enumerated() {
            let l = lattice(period, UInt64(octave + 1))
            let cell = Float(n) / Float(period)
            for y in 0..<n {
                for x in 0..<n {
                    let fx = Float(x) / cell, fy = Float(y) / cell
                    let x0 = Int(fx), y0 = Int(fy)
                    let tx = fx - Float(x0), ty = fy - Float(y0)
                    let sx = tx * tx * (3 - 2 * tx), sy = ty * ty * (3 - 2 * ty)
                    func at(_ i: Int, _ j: Int) -> Float { l[(j % period) * period + (i % period)] }
                    let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * sx
                    let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * sx
                    values[y * n + x] += Float(weight) * (top + (bottom - top) * sy)
                }
            }
        }
        // Contrast: tooth (high) catches most, valleys little.
        tile = values.map { v in
            let t = min(max((v - 0.3) / 0.4, 0), 1)
            return 0.15 + 0.85 * t * t * (3 - 2 * t)
        }
    }

    /// Grain at document pixel (x, y), 0...1.
    @inline(__always)
    public func value(x: Int, y: Int) -> Float {
        let n = PencilGrain.size
        var i = x % n, j = y % n
        if i < 0 { i += n }
        if j < 0 { j += n }
        return tile[j * n + i]
    }
}
