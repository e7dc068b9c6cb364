import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The generators against Double references of their definitions, over a region that includes
/// negative coordinates, in both working spaces: within 1 level.
@Suite("Generators against their definitions")
struct GeneratorTests {
    static let region = Rect(x: -130, y: -70, width: 420, height: 300)

    /// Straight sRGB-encoded RGBA at (x, y) mixed premultiplied, as the gradients define.
    static func mix(_ c0: [Double], _ c1: [Double], _ t: Double) -> [Double] {
        let a = c0[3] + (c1[3] - c0[3]) * t
        guard a > 0 else { return [0, 0, 0, 0] }
        var out: [Double] = []
        for k in 0..<3 {
            let p0: Double = c0[k] * c0[3], p1: Double = c1[k] * c1[3]
            out.append((p0 + (p1 - p0) * t) / a)
        }
        return out + [a]
    }

    static func check(_ filter: any Filter, _ reference: (Double, Double) -> [Double]) throws {
        let any = Image(bitmap: try Pixels.noise(4, 4))
        for ws in [WorkingSpace.none, .linear] {
            let out = try RenderContext(workingSpace: ws).render(filter.apply(to: any), rect: region)
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(region.width, region.height, count: 3000) {
                let want = reference(Double(region.x + x) + 0.5, Double(region.y + y) + 0.5)
                let got = out.bytes(x: x, y: y)
                let alpha = (want[3] * 255).rounded()
                worst = max(worst, abs(Double(got.w) - alpha))
                guard alpha >= 128 else { continue }
                // sRGB-encoded colours: the level is the value itself, whatever the working space.
                for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - (want[k] * 255).rounded())) }
            }
            #expect(worst <= 1, "\(type(of: filter).descriptor.name), \(ws): \(worst) levels")
        }
    }

    @Test("constant colour, linear and radial gradients")
    func gradients() throws {
        try Self.check(ConstantColorGenerator(color: [0.2, 0.6, 0.9, 0.7])) { _, _ in [0.2, 0.6, 0.9, 0.7] }
        let (c0, c1) = ([0.9, 0.3, 0.1, 1.0], [0.1, 0.4, 0.8, 0.6])
        try Self.check(LinearGradient(point0: [-40, 10], point1: [200, 150], color0: c0, color1: c1)) { x, y in
            let t = ((x + 40) * 240 + (y - 10) * 140) / (240 * 240 + 140 * 140)
            return Self.mix(c0, c1, min(max(t, 0), 1))
        }
        try Self.check(RadialGradient(center: [60, 40], radius0: 20, radius1: 130, color0: c0, color1: c1)) { x, y in
            let d = ((x - 60) * (x - 60) + (y - 40) * (y - 40)).squareRoot()
            return Self.mix(c0, c1, min(max((d - 20) / 110, 0), 1))
        }
    }

    @Test("checkerboard, hard and soft")
    func checkerboard() throws {
        let (c0, c1) = ([1.0, 0.9, 0.2, 1.0], [0.1, 0.1, 0.3, 1.0])
        for sharpness in [1.0, 0.4] {
            try Self.check(CheckerboardGenerator(center: [13, -7], color0: c0, color1: c1, width: 37, sharpness: sharpness)) { x, y in
                let band = (1 - sharpness) * 37 / 2
                func axis(_ p: Double) -> (Int, Double) {
                    let u = p / 37, cell = floor(u), f = u - cell
                    return (Int(cell), band > 0 ? min(min(f, 1 - f) * 37 / band, 1) : 1)
                }
                let (ix, gx) = axis(x - 13), (iy, gy) = axis(y + 7)
                let s: Double = (ix + iy) % 2 == 0 ? 1 : -1
                return Self.mix(c0, c1, (1 - s * gx * gy) / 2)
            }
        }
    }

    @Test("random: the stated hash, the same in every render, uniform in every channel")
    func random() throws {
        let out = try RenderContext(workingSpace: .none).render(RandomGenerator().apply(to: .empty), rect: Self.region)
        var sums = SIMD4<Double>.zero
        var mismatches = 0
        for y in 0..<Self.region.height {
            for x in 0..<Self.region.width {
                let v = RandomGenerator.values(x: Self.region.x + x, y: Self.region.y + y)
                let a = Double(v.w) / 65535
                let got = out.bytes(x: x, y: y)
                // Exactly the definition's levels (the 8-bit route; the float route's below).
                if Double(got.w) != (a * 255).rounded() { mismatches += 1 }
                for k in 0..<3 where Double(got[k]) != (v.w == 0 ? 0 : (Double(v[k]) / 65535 * 255).rounded()) { mismatches += 1 }
                sums += SIMD4<Double>(v) / 65535
            }
        }
        #expect(mismatches == 0)
        // The float route (floats out, rounded here as an 8-bit store rounds them) gives the same bytes.
        let floats = try RenderContext(workingSpace: .none).render(
            RandomGenerator().apply(to: .empty), rect: Self.region, format: .rgbaFloat32, alpha: .straight, encoding: .srgb)
        var routes = 0
        for y in 0..<Self.region.height {
            for x in 0..<Self.region.width {
                let f = floats.pixel(x: x, y: y), got = out.bytes(x: x, y: y)
                let want = f.w > 0 ? SIMD4<UInt8>((f.clamped(lowerBound: .zero, upperBound: .one) * 255).rounded(.toNearestOrAwayFromZero)) : .zero
                if want != got { routes += 1 }
            }
        }
        #expect(routes == 0, "\(routes) pixels differ between the 8-bit and float routes")
        let mean = sums / Double(Self.region.area)
        for k in 0..<4 { #expect(abs(mean[k] - 0.5) < 0.01, "channel \(k): mean \(mean[k])") }
        #expect(RandomGenerator.values(x: 0, y: 1) != RandomGenerator.values(x: 1, y: 0))
    }
}
