import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The everyday blurs, sharpeners and stylizers against plain Double references of their
/// definitions (doc comments, docs/spec/FILTERS.md), edges clamped, on a real photo in both
/// working spaces: within 1 level.
@Suite("Everyday blurs, sharpening and stylize against their definitions")
struct BlurEverydayTests {
    /// A photo's working RGB at (x, y), coordinates clamped to the photo (the clamped edges).
    struct Source {
        let photo: Bitmap
        let ws: WorkingSpace
        func at(_ x: Int, _ y: Int) -> SIMD3<Double> {
            let p = Reference.working(photo, min(max(x, 0), photo.width - 1), min(max(y, 0), photo.height - 1), ws)
            return SIMD3(p[0], p[1], p[2])
        }
        func bilinear(_ px: Double, _ py: Double) -> SIMD3<Double> {
            let u = px - 0.5, v = py - 0.5
            let x0 = Int(u.rounded(.down)), y0 = Int(v.rounded(.down))
            let fx = u - Double(x0), fy = v - Double(y0)
            let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
            let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
            return top * (1 - fy) + bottom * fy
        }
        func gaussian(_ x: Int, _ y: Int, sigma: Double) -> SIMD3<Double> {
            let r = Int((3 * sigma).rounded(.up))
            let w = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
            let sum = w.reduce(0, +)
            var acc = SIMD3<Double>.zero
            for j in -r...r { for i in -r...r { acc += at(x + i, y + j) * (w[i + r] * w[j + r] / (sum * sum)) } }
            return acc
        }
    }

    struct Case: @unchecked Sendable, CustomStringConvertible {
        let filter: any Filter
        let reference: (Source, Int, Int) -> SIMD3<Double>
        var description: String { type(of: filter).descriptor.name }
    }

    static let luma = SIMD3<Double>(0.2125, 0.7154, 0.0721)

    static let cases: [Case] = [
        Case(filter: BoxBlur(radius: 4)) { s, x, y in
            var acc = SIMD3<Double>.zero
            for j in -4...4 { for i in -4...4 { acc += s.at(x + i, y + j) } }
            return acc / 81
        },
        Case(filter: DiscBlur(radius: 5.5)) { s, x, y in
            var acc = SIMD3<Double>.zero, n = 0.0
            for j in -5...5 { for i in -5...5 where Double(i * i + j * j) <= 5.5 * 5.5 { acc += s.at(x + i, y + j); n += 1 } }
            return acc / n
        },
        Case(filter: MotionBlur(radius: 7.5, angle: 0.6)) { s, x, y in
            var acc = SIMD3<Double>.zero
            for k in -8...8 {
                let t = Double(k) * 7.5 / 8
                acc += s.bilinear(Double(x) + 0.5 + t * cos(0.6), Double(y) + 0.5 + t * sin(0.6))
            }
            return acc / 17
        },
        // The default angle with a whole radius: a box across (8-bit tiles: running sums).
        Case(filter: MotionBlur(radius: 6, angle: 0)) { s, x, y in
            (-6...6).reduce(SIMD3<Double>.zero) { $0 + s.bilinear(Double(x) + 0.5 + Double($1), Double(y) + 0.5) } / 13
        },
        // Straight down: a box down the columns.
        Case(filter: MotionBlur(radius: 5, angle: .pi / 2)) { s, x, y in
            (-5...5).reduce(SIMD3<Double>.zero) { $0 + s.bilinear(Double(x) + 0.5, Double(y) + 0.5 + Double($1)) } / 11
        },
        Case(filter: ZoomBlur(center: [300, 200], amount: 6)) { s, x, y in
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let ex = (300 - px) * 0.06, ey = (200 - py) * 0.06
            let n = min(max(1, Int((ex * ex + ey * ey).squareRoot().rounded(.up))), 256)
            var acc = SIMD3<Double>.zero
            for k in 0...n { acc += s.bilinear(px + ex * Double(k) / Double(n), py + ey * Double(k) / Double(n)) }
            return acc / Double(n + 1)
        },
        // A far centre: streaks of 600 pixels and more, sampled 257 times.
        Case(filter: ZoomBlur(center: [3000, -200], amount: 20)) { s, x, y in
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let ex = (3000 - px) * 0.2, ey = (-200 - py) * 0.2
            let n = min(max(1, Int((ex * ex + ey * ey).squareRoot().rounded(.up))), 256)
            var acc = SIMD3<Double>.zero
            for k in 0...n { acc += s.bilinear(px + ex * Double(k) / Double(n), py + ey * Double(k) / Double(n)) }
            return acc / Double(n + 1)
        },
        Case(filter: Pixellate(center: [13, 7], scale: 9)) { s, x, y in
            let cx = 13 + Int((Double(x - 13) / 9).rounded(.down)) * 9, cy = 7 + Int((Double(y - 7) / 9).rounded(.down)) * 9
            var acc = SIMD3<Double>.zero
            for j in 0..<9 { for i in 0..<9 { acc += s.at(cx + i, cy + j) } }
            return acc / 81
        },
        Case(filter: UnsharpMask(radius: 2.5, intensity: 0.8)) { s, x, y in
            let p = s.at(x, y)
            return p + 0.8 * (p - s.gaussian(x, y, sigma: 2.5))
        },
        Case(filter: SharpenLuminance(sharpness: 0.9, radius: 1.5)) { s, x, y in
            let p = s.at(x, y), d = 0.9 * ((p * luma).sum() - (s.gaussian(x, y, sigma: 1.5) * luma).sum())
            return p + SIMD3(repeating: d)
        },
        Case(filter: NoiseReduction(noiseLevel: 0.03, sharpness: 0.5)) { s, x, y in
            let b = s.gaussian(x, y, sigma: 1), d = s.at(x, y) - b
            func shrink(_ v: Double) -> Double { v < 0 ? min(v + 0.03, 0) : max(v - 0.03, 0) }
            return b + 1.5 * SIMD3(shrink(d.x), shrink(d.y), shrink(d.z))
        },
        Case(filter: Bloom(radius: 3, intensity: 0.6)) { s, x, y in
            let p = s.at(x, y), g = 0.6 * s.gaussian(x, y, sigma: 3)
            return p + g - p * g
        },
        Case(filter: Gloom(radius: 3, intensity: 0.6)) { s, x, y in
            let p = s.at(x, y)
            return p * 0.4 + 0.6 * p * s.gaussian(x, y, sigma: 3)
        },
        Case(filter: Edges(intensity: 2.5)) { s, x, y in
            let gx = s.at(x + 1, y - 1) + 2 * s.at(x + 1, y) + s.at(x + 1, y + 1) - s.at(x - 1, y - 1) - 2 * s.at(x - 1, y) - s.at(x - 1, y + 1)
            let gy = s.at(x - 1, y + 1) + 2 * s.at(x, y + 1) + s.at(x + 1, y + 1) - s.at(x - 1, y - 1) - 2 * s.at(x, y - 1) - s.at(x + 1, y - 1)
            return 2.5 * (gx * gx + gy * gy).squareRoot()
        }
    ]

    @Test("within 1 level of the definition on a real photo, both working spaces", arguments: cases)
    func definition(_ c: Case) throws {
        let photo = try Fixtures.photo("rocket.jpg")
        for ws in [WorkingSpace.none, .linear] {
            let out = try RenderContext(workingSpace: ws).render(c.filter.apply(to: Image(bitmap: photo)), rect: photo.bounds)
            let source = Source(photo: photo, ws: ws)
            var worst = 0.0
            // Edges included: the sample points reach every border.
            for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 400) + [(0, 0), (639, 426), (0, 426), (639, 0)] {
                let want = c.reference(source, x, y)
                let got = out.bytes(x: x, y: y)
                for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - Reference.toLevel(want[k], ws))) }
                worst = max(worst, abs(Double(got.w) - 255))
            }
            #expect(worst <= 1, "\(c), \(ws): \(worst) levels from the definition")
        }
    }
}
