import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// White balance, white point and shadows/highlights against their definitions.
@Suite("White balance, white point, highlights and shadows")
struct WhiteBalanceTests {
    static let toXYZ: [[Double]] = [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]

    /// Linear sRGB of the chromaticity (x, y) at Y = 1.
    static func rgb(x: Double, y: Double) -> [Double] {
        let xyz = [x / y, 1, (1 - x - y) / y]
        // Solve toXYZ . rgb = xyz (Cramer's rule).
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) + m[0][2]
                * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(toXYZ)
        return (0..<3).map { c in det(toXYZ.enumerated().map { i, row in row.enumerated().map { j, v in j == c ? xyz[i] : v } }) / d }
    }

    @Test("temperature and tint: the neutral's white becomes the target's (CIE locus table values), the photo through the stated matrix")
    func temperature() throws {
        // The Planckian locus from CIE tables: 3000 K (0.43695, 0.40410), 6500 K (0.31352, 0.32363).
        let f = TemperatureAndTint(neutral: [3000, 0], targetNeutral: [6500, 0])
        let m = f.matrix
        let warm = Self.rgb(x: 0.43695, y: 0.40410), cool = Self.rgb(x: 0.31352, y: 0.32363)
        let mapped = (0..<3).map { i in (0..<3).reduce(0) { $0 + m[i][$1] * warm[$1] } }
        for k in 0..<3 { #expect(abs(mapped[k] / mapped[1] - cool[k] / cool[1]) < 0.01, "channel \(k): \(mapped) vs \(cool)") }
        // A positive tint moves toward magenta: more red and blue against green.
        let tinted = TemperatureAndTint(neutral: [6500, 0], targetNeutral: [6500, 40]).matrix
        let white = (0..<3).map { i in tinted[i].reduce(0, +) }
        #expect(white[0] > white[1] && white[2] > white[1], "\(white)")
        // The photo: the matrix on linear light, in both working spaces.
        let photo = try Fixtures.photo("rocket.jpg")
        for ws in [WorkingSpace.none, .linear] {
            let out = try RenderContext(workingSpace: ws).render(f.apply(to: Image(bitmap: photo)), rect: photo.bounds)
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 2000) {
                let p = Reference.working(photo, x, y, .linear)
                let got = out.bytes(x: x, y: y)
                for k in 0..<3 {
                    let v = (0..<3).reduce(0) { $0 + m[k][$1] * p[$1] }
                    worst = max(worst, abs(Double(got[k]) - Reference.toLevel(v, .linear)))
                }
            }
            #expect(worst <= 1, "\(ws): \(worst) levels")
        }
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("temperature-tint", values: ["neutral": .vector([100, 0])]) }
    }

    @Test("white point: C times the decoded colour, in linear light")
    func whitePoint() throws {
        let photo = try Fixtures.photo("coffee.png")
        let w = [0.9, 0.8, 0.6].map(Reference.decode)
        for ws in [WorkingSpace.none, .linear] {
            let out = try RenderContext(workingSpace: ws).render(
                WhitePointAdjust(color: [0.9, 0.8, 0.6, 1]).apply(to: Image(bitmap: photo)), rect: photo.bounds)
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 2000) {
                let p = Reference.working(photo, x, y, .linear), got = out.bytes(x: x, y: y)
                for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - Reference.toLevel(p[k] * w[k], .linear))) }
            }
            #expect(worst <= 1, "\(ws): \(worst) levels")
        }
    }

    @Test("highlights and shadows: C g(B), B the pixel's or the blurred luminance")
    func highlightShadow() throws {
        let photo = try Fixtures.photo("rocket.jpg")
        func gain(_ b: Double) -> Double {
            let c = min(max(b, 0), 1)
            return (1 + 0.7 * (1 - c) * (1 - c)) * (1 - 0.6 * c * c)
        }
        let luma = SIMD3<Double>(0.2125, 0.7154, 0.0721)
        for radius in [0.0, 3.0] {
            for ws in [WorkingSpace.none, .linear] {
                let f = HighlightShadowAdjust(radius: radius, shadow: 0.7, highlight: 0.4)
                let out = try RenderContext(workingSpace: ws).render(f.apply(to: Image(bitmap: photo)), rect: photo.bounds)
                let source = BlurEverydayTests.Source(photo: photo, ws: ws)
                var worst = 0.0
                for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 600) {
                    let p = source.at(x, y)
                    let b = radius == 0 ? (p * luma).sum() : (source.gaussian(x, y, sigma: radius) * luma).sum()
                    let got = out.bytes(x: x, y: y)
                    for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - Reference.toLevel(p[k] * gain(b), ws))) }
                }
                #expect(worst <= 1, "radius \(radius), \(ws): \(worst) levels")
            }
        }
    }
}
