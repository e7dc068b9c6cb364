import Foundation
import SfumatoFilters

/// What a brush makes of one pen sample: a disc of ink at a point.
public struct InkPoint: Sendable, Equatable {
    /// Centre in document pixels.
    public var x: Double
    public var y: Double
    /// Half the stroke width, in document pixels.
    public var radius: Double
    /// 0...1, multiplies coverage.
    public var opacity: Double
    /// Straight sRGB-encoded colour, 0...1.
    public var color: SIMD3<Float>
    /// Whether the point lays graphite on the paper's tooth (the pencil's shading) rather than solid ink.
    public var textured: Bool

    public init(x: Double, y: Double, radius: Double, opacity: Double, color: SIMD3<Float>, textured: Bool = false) {
        self.x = x
        self.y = y
        self.radius = radius
        self.opacity = opacity
        self.color = color
        self.textured = textured
    }
}

/// How a brush's coverage meets the layer.
public enum BrushBlend: Sendable {
    /// Source-over: ink on top.
    case over
    /// Destination-out: removes ink where it passes.
    case erase
}

/// The brushes, by name.
public enum BrushKind: String, Sendable, Codable, CaseIterable {
    /// ForceSketch's pen: width and hue from pressure.
    case forcePen = "force-pen"
    /// Shading with Pencil: a line when upright, textured shading when tilted.
    case pencil
    /// A plain pressure-sensitive ink pen.
    case pen
    /// Removes ink (also chosen by a pen's eraser end).
    case eraser

    /// The brush's declaration.
    public var descriptor: BrushDescriptor {
        switch self {
        case .forcePen: ForcePen.descriptor
        case .pencil: Pencil.descriptor
        case .pen: InkPen.descriptor
        case .eraser: Eraser.descriptor
        }
    }
}

/// A brush declared as data, like a filter: name, summary and typed parameters.
public struct BrushDescriptor: Sendable {
    public let name: String
    public let summary: String
    public let parameters: [ParameterSpec]
}

/// A brush: turns a pen sample (pressure already through the user's pressure curve) into ink.
public protocol Brush: Sendable {
    static var descriptor: BrushDescriptor { get }
    /// How its coverage combines with the layer.
    var blend: BrushBlend { get }
    /// The ink for a sample. `hasPressure` is false for devices without pressure (a mouse).
    func ink(for sample: PenSample, pressure: Double, hasPressure: Bool) -> InkPoint
}

/// A stroke's brush settings, as stored with its samples.
public struct BrushSettings: Sendable, Codable, Equatable {
    /// Which brush.
    public var kind: BrushKind
    /// Ink colour (for pencil, pen; the force pen takes its colour from pressure).
    public var color: String
    /// The user's pressure curve: control points (x, y) in 0...1 through the tone curve's
    /// spline; identity by default.
    public var pressureCurve: [[Double]]
    /// Minimum and maximum width for the pen and eraser, in document pixels.
    public var width: [Double]?
    /// Whether the device reports no pressure (forced; a mouse counts anyway).
    public var noPressure: Bool?

    public init(
        kind: BrushKind, color: String = "#000000", pressureCurve: [[Double]] = [[0, 0], [1, 1]],
        width: [Double]? = nil, noPressure: Bool? = nil
    ) {
        self.kind = kind
        self.color = color
        self.pressureCurve = pressureCurve
        self.width = width
        self.noPressure = noPressure
    }

    /// The brush these settings describe.
    public func makeBrush() -> any Brush {
        let rgb = parseColor(color) ?? SIMD3(0, 0, 0)
        switch kind {
        case .forcePen: return ForcePen()
        case .pencil: return Pencil(color: rgb)
        case .pen: return InkPen(color: rgb, minWidth: width?.first ?? 1, maxWidth: width?.last ?? 8)
        case .eraser: return Eraser(maxWidth: width?.last ?? 40)
        }
    }

    /// The pressure curve as a function (identity when it has fewer than two points).
    public var pressureFunction: ToneCurveSpline {
        let pts = pressureCurve.compactMap { $0.count == 2 && $0[0].isFinite && $0[1].isFinite ? ($0[0], $0[1]) : nil }
        return ToneCurveSpline(points: pts.count >= 2 ? pts : [(0, 0), (1, 1)])
    }
}

/// `#rrggbb` (or `#rgb`) to straight RGB 0...1, or nil.
public func parseColor(_ s: String) -> SIMD3<Float>? {
    var hex = s.trimmingCharacters(in: .whitespaces)
    if hex.hasPrefix("#") { hex.removeFirst() }
    if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
    guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return nil }
    return SIMD3(Float((v >> 16) & 0xFF), Float((v >> 8) & 0xFF), Float(v & 0xFF)) / 255
}

/// Hue (0...1, wrapping), saturation and brightness to RGB, as UIColor(hue:saturation:brightness:).
public func hsbColor(hue: Double, saturation: Double = 1, brightness: Double = 1) -> SIMD3<Float> {
    var h = hue.truncatingRemainder(dividingBy: 1)
    if h < 0 { h += 1 }
    let sector = h * 6
    let i = Int(sector) % 6, f = sector - Double(Int(sector))
    let v = brightness, p = v * (1 - saturation), q = v * (1 - saturation * f), t = v * (1 - saturation * (1 - f))
    let (r, g, b): (Double, Double, Double) =
        switch i {
        case 0: (v, t, p)
        case 1: (q, v, p)
        case 2: (p, v, t)
        case 3: (p, q, v)
        case 4: (t, p, v)
        default: (v, p, q)
        }
    return SIMD3(Float(r), Float(g), Float(b))
}
