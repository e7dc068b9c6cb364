import Foundation
import SfumatoCore

/// CIToneCurve: the same tone curve on R, G and B through five control points.
///
/// As in Core Image the curve acts on a perceptual gamma-2 version of the working values:
/// p = sqrt(v), q = f(p), out = q², where f is ``ToneCurveSpline`` (natural cubic spline, flat
/// outside the first and last point, clamped to 0...1). Alpha is untouched. A per-channel curve:
/// an 8-bit source maps through one lookup table.
///
/// ```swift
/// ToneCurve(points: [(0, 0), (0.25, 0.35), (0.5, 0.6), (0.75, 0.85), (1, 1)]).apply(to: photo)
/// ```
public struct ToneCurve: DeclaredFilter, Equatable {
    static func point(_ i: Int) -> ParameterSpec {
        let v = Double(i) / 4
        return .vector("inputPoint\(i)", default: [v, v], count: 2, range: 0...1, help: "control point \(i) (x y)")
    }
    public static let point0 = point(0)
    public static let point1 = point(1)
    public static let point2 = point(2)
    public static let point3 = point(3)
    public static let point4 = point(4)
    /// Point i is `points[i]` as a two-number vector.
    public static let fields: [FilterField<ToneCurve>] = [point0, point1, point2, point3, point4].enumerated().map { i, spec in
        FilterField(
            spec, read: { .vector([$0.points[i].x, $0.points[i].y]) },
            write: { f, a in
                let v = a.vector(spec)
                guard v.count == 2 else { throw SfumatoError.invalidArgument("CIToneCurve: \(spec.shortKey) needs two numbers (x y)") }
                f.points[i] = SIMD2(v[0], v[1])
            })
    }
    public static let descriptor = FilterDescriptor(
        displayName: "Tone Curve", coreImageName: "CIToneCurve", shortName: "tone-curve", category: .color,
        summary: "map tones through a five-point spline curve", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(levels: [0, 0.25, 0.5, 0.75, 1]) }

    /// The five control points (x, y), each in 0...1.
    public var points: [SIMD2<Double>]

    /// The identity curve's points.
    public static let identityPoints: [SIMD2<Double>] = (0..<5).map { SIMD2(Double($0) / 4, Double($0) / 4) }

    /// A curve through `points`: CIToneCurve takes five; the spline goes through any other
    /// number too, and none gives the identity (``ToneCurveSpline``).
    public init(points: [(Double, Double)]) {
        self.points = points.map { SIMD2($0.0, $0.1) }
    }

    /// The Tone Curve app's form: output levels at inputs 0, 0.25, 0.5, 0.75, 1.
    /// Five levels; with another count they are spread evenly over 0...1 all the same.
    public init(levels: [Double]) {
        let last = Double(max(levels.count - 1, 1))
        self.init(points: levels.enumerated().map { (Double($0.offset) / last, $0.element) })
    }

    /// The function the filter applies in gamma-2 space; draw this in a curve editor.
    public var spline: ToneCurveSpline { ToneCurveSpline(points: points.map { ($0.x, $0.y) }) }

    public func apply(to image: Image) -> Image {
        image.applying([.curve(ToneCurveFunction(spline: spline))], name: Self.descriptor.name)
    }
}

/// out = f(sqrt(v))² per channel, f sampled into a 4097-entry table read with linear
/// interpolation (error below 1e-6 for any five-point curve: f is a cubic between knots).
public struct ToneCurveFunction: ChannelCurve {
    private let table: [Float]
    static let size = 4096
    public let name: String

    public init(spline: ToneCurveSpline) {
        table = (0...Self.size).map { Float(spline.value(at: Double($0) / Double(Self.size))) }
        name = "tone curve through " + zip(spline.xs, spline.ys).map { String(format: "(%.2f %.2f)", $0, $1) }.joined(separator: " ")
    }

    public func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let scale = Float(Self.size)
        table.withUnsafeBufferPointer { t in
            for i in 0..<count {
                var v = pixels[i]
                v.replace(with: 0, where: v .< 0)
                let p = (v.squareRoot() * scale).bounded(0, scale)
                var out = SIMD4<Float>()
                for c in 0..<3 {
                    let x = p[c]
                    let k = min(Int(x), Self.size - 1)
                    let f = x - Float(k)
                    let q = t[k] + f * (t[k + 1] - t[k])
                    out[c] = q * q
                }
                out.w = v.w
                pixels[i] = out
            }
        }
    }
}
