import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Each colour filter against a plain Double reference of its definition (the formula in its doc
/// comment), on real photos, in both working spaces: within 1 level of the reference's rounded
/// level. The registry's battery (FilterVerifierTests) adds tiled, streamed and AVX-512 renders.
@Suite("Everyday colour filters against their definitions")
struct ColorEverydayTests {
    /// A filter and its reference: straight working RGBA in, straight working RGBA out (nil: a
    /// sample too close to a discontinuity of the definition to judge in Float).
    struct Case: @unchecked Sendable, CustomStringConvertible {
        let filter: any Filter
        let reference: ([Double]) -> [Double]?
        var description: String { type(of: filter).descriptor.name }
    }

    static let luma = [0.2125, 0.7154, 0.0721]

    static let cases: [Case] = [
        Case(filter: SepiaTone(intensity: 0.7)) { p in
            let r = SepiaTone(intensity: 0.7).rows
            return (0..<3).map { c in (0..<3).reduce(0) { $0 + r[c][$1] * p[$1] } } + [p[3]]
        },
        Case(filter: ColorMonochrome(color: [0.9, 0.5, 0.2], intensity: 0.8)) { p in
            let l = (0..<3).reduce(0) { $0 + luma[$1] * p[$1] }
            return [0.9, 0.5, 0.2].enumerated().map { c, k in 0.2 * p[c] + 0.8 * l * k } + [p[3]]
        },
        Case(filter: ColorPosterize(levels: 5)) { p in
            var out: [Double] = []
            for v in p.prefix(3) {
                let x = min(max(v, 0), 1) * 4
                if abs(x - x.rounded(.down) - 0.5) < 1e-3 { return nil }  // on a step: either side is right
                out.append(x.rounded() / 4)
            }
            return out + [p[3]]
        },
        Case(filter: ColorClamp(minimum: [0.1, 0.2, 0.05, 0], maximum: [0.8, 0.9, 0.7, 0.75])) { p in
            let lo: [Double] = [0.1, 0.2, 0.05, 0], hi: [Double] = [0.8, 0.9, 0.7, 0.75]
            return (0..<4).map { (c: Int) -> Double in min(max(p[c], lo[c]), hi[c]) }
        },
        Case(filter: ColorPolynomial(red: [0.05, 0.8, 0.3, -0.2], green: [0, 1.2, -0.3, 0.1], blue: [0.1, 0.5, 0.5, -0.1], alpha: [0, 1, 0, 0])) { p in
            let k: [[Double]] = [[0.05, 0.8, 0.3, -0.2], [0, 1.2, -0.3, 0.1], [0.1, 0.5, 0.5, -0.1], [0, 1, 0, 0]]
            return (0..<4).map { (c: Int) -> Double in
                let v = p[c]
                let square = v * v
                return k[c][0] + k[c][1] * v + k[c][2] * square + k[c][3] * square * v
            }
        },
        Case(filter: MaximumComponent()) { p in
            let m = p.prefix(3).max()!; return [m, m, m, p[3]]
        },
        Case(filter: MinimumComponent()) { p in
            let m = p.prefix(3).min()!; return [m, m, m, p[3]]
        },
        Case(filter: Vibrance(amount: 0.6)) { p in
            let mean = (p[0] + p[1] + p[2]) / 3, m = p.prefix(3).max()!
            let t = 3 * (m - mean) * -0.6
            return p.prefix(3).map { $0 + t * (m - $0) } + [p[3]]
        },
        Case(filter: Vibrance(amount: -0.8)) { p in
            let mean = (p[0] + p[1] + p[2]) / 3, m = p.prefix(3).max()!
            let t = 3 * (m - mean) * 0.8
            return p.prefix(3).map { $0 + t * (m - $0) } + [p[3]]
        }
    ]

    @Test("within 1 level of the definition on real photos, linear light and encoded values", arguments: cases)
    func definition(_ c: Case) throws {
        for name in ["rocket.jpg", "coffee.png", "chelsea.png"] {
            let photo = try Fixtures.photo(name)
            for ws in [WorkingSpace.none, .linear] {
                let out = try RenderContext(workingSpace: ws).render(c.filter.apply(to: Image(bitmap: photo)), rect: photo.bounds)
                var worst = 0.0, judged = 0
                for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 2000) {
                    guard let want = c.reference(Reference.working(photo, x, y, ws)) else { continue }
                    let q = out.bytes(x: x, y: y)
                    let alpha = (min(max(want[3], 0), 1) * 255).rounded()
                    worst = max(worst, abs(Double(q.w) - alpha))
                    // Where alpha is 0 the colour is not stored.
                    guard alpha > 0 else { continue }
                    for k in 0..<3 { worst = max(worst, abs(Double(q[k]) - Reference.toLevel(want[k], ws))) }
                    judged += 1
                }
                #expect(judged > 1000, "\(c) \(name) \(ws): only \(judged) samples judged")
                #expect(worst <= 1, "\(c) on \(name), \(ws): \(worst) levels from the definition")
            }
        }
    }

    @Test("the linear ones fuse with their neighbours into one matrix")
    func fuses() throws {
        let image = ColorMonochrome().apply(to: SepiaTone(intensity: 0.5).apply(to: ExposureAdjust(ev: 0.5).apply(to: Image(bitmap: try Pixels.noise(8, 8)))))
        let plan = try RenderContext(workingSpace: .none).explain(image)
        #expect(plan.contains("CIExposureAdjust + CISepiaTone + CIColorMonochrome"), "\(plan)")
    }

    @Test("the vignettes: C m(d), d from the centre, on a real photo in both working spaces")
    func vignettes() throws {
        let photo = try Fixtures.photo("rocket.jpg")
        let half = (640.0 * 640 + 427 * 427).squareRoot() / 2
        func smooth(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
            let t = min(max((x - e0) / (e1 - e0), 0), 1)
            return t * t * (3 - 2 * t)
        }
        let cases: [(any Filter, (Double, Double) -> Double)] = [
            (
                Vignette(intensity: 0.8, radius: 0.9),
                { x, y in
                    let d = ((x - 320) * (x - 320) + (y - 213.5) * (y - 213.5)).squareRoot() / half
                    return 1 - 0.8 * min(1, (d / 0.9) * (d / 0.9))
                }
            ),
            (
                VignetteEffect(center: [250, 180], radius: 160, intensity: 0.9, falloff: 0.4),
                { x, y in
                    let d = ((x - 250) * (x - 250) + (y - 180) * (y - 180)).squareRoot()
                    return 1 - 0.9 * smooth(160 * 0.6, 160 * 1.4, d)
                }
            )
        ]
        for (filter, m) in cases {
            for ws in [WorkingSpace.none, .linear] {
                let out = try RenderContext(workingSpace: ws).render(filter.apply(to: Image(bitmap: photo)), rect: photo.bounds)
                var worst = 0.0
                for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 2000) {
                    let p = Reference.working(photo, x, y, ws)
                    let f = m(Double(x) + 0.5, Double(y) + 0.5)
                    let got = out.bytes(x: x, y: y)
                    for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - Reference.toLevel(p[k] * f, ws))) }
                    worst = max(worst, abs(Double(got.w) - 255))
                }
                #expect(worst <= 1, "\(type(of: filter).descriptor.name), \(ws): \(worst) levels")
            }
        }
    }
}
