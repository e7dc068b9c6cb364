import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Premultiplied working RGBA of pixel (x, y) with edges clamped.
func clampedPremultiplied(_ b: Bitmap, _ x: Int, _ y: Int, _ ws: WorkingSpace) -> [Double] {
    let p = Reference.working(b, min(max(x, 0), b.width - 1), min(max(y, 0), b.height - 1), ws)
    return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
}

/// Checks a neighbourhood filter against `reference`, which maps the clamped premultiplied
/// window accessor to a premultiplied result, at sampled pixels; 8-bit results within 1 level.
func checkNeighborhood(
    _ name: String, _ filter: any Filter, images: [(String, Bitmap)], ws: WorkingSpace = .none,
    points: Int = 300, tolerance: Double = 1,
    _ reference: (_ at: (Int, Int) -> [Double]) -> [Double]
) throws {
    for (imageName, b) in images {
        let out = try RenderContext(workingSpace: ws).render(filter.apply(to: Image(bitmap: b)), rect: b.bounds)
        var worst = 0.0
        var worstAt = (0, 0)
        var samples = Pixels.samplePoints(b.width, b.height, count: points)
        // Borders matter most for edge rules: add every pixel of the first and last rows too.
        for x in stride(from: 0, to: b.width, by: max(1, b.width / 40)) { samples += [(x, 0), (x, b.height - 1)] }
        for (x, y) in samples {
            let want = reference { dx, dy in clampedPremultiplied(b, x + dx, y + dy, ws) }
            let got = out.bytes(x: x, y: y)
            let a = min(max(want[3], 0), 1)
            var diff = abs(Double(got.w) - (a * 255).rounded())
            if a >= 0.25 {
                for c in 0..<3 { diff = max(diff, abs(Double(got[c]) - Reference.toLevel(want[c] / a, ws))) }
            }
            if diff > worst { worst = diff; worstAt = (x, y) }
        }
        #expect(worst <= tolerance, "\(name) on \(imageName): worst \(worst) levels at \(worstAt)")
    }
}

enum GalleryImages {
    /// Real photos (smaller ones, for the slow references) plus synthetic edge cases.
    static let photos: [(String, Bitmap)] = Photos.all.filter { ["chelsea.png", "rocket.jpg", "camera.png"].contains($0.0) }
    static let constant = try! Pixels.make(23, 17) { _, _ in SIMD4(0.3, 0.6, 0.9, 1) }
    static let tiny = try! Pixels.noise(3, 2, seed: 5)
    static let single = try! Pixels.make(1, 1) { _, _ in SIMD4(0.8, 0.1, 0.5, 1) }
    static let stripes = try! Pixels.make(40, 31) { x, y in ((x / 3 + y / 5) % 2 == 0) ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0.2, 0, 1) }
    static let synthetic: [(String, Bitmap)] = [("constant", constant), ("3x2 noise", tiny), ("1x1", single), ("stripes", stripes)]
    static let withAlpha: [(String, Bitmap)] = [("alpha noise", Photos.alphaNoise)]
    static var all: [(String, Bitmap)] { photos + synthetic }
}

func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

@Suite("Gallery filters against their definitions")
struct GalleryFilterTests {
    @Test("median, any odd diameter, edges clamped", arguments: [3, 5, 7, 9, 15])
    func medianFilter(d: Int) throws {
        let r = d / 2
        try checkNeighborhood("median \(d)", Median(diameter: d), images: GalleryImages.all + GalleryImages.withAlpha) { at in
            (0..<4).map { c in median((-r...r).flatMap { dy in (-r...r).map { dx in at(dx, dy)[c] } }) }
        }
        // Linear light gives the same levels (the median commutes with a monotonic curve) via the float path.
        try checkNeighborhood("median \(d) linear", Median(diameter: d), images: GalleryImages.photos, ws: .linear) { at in
            (0..<4).map { c in median((-r...r).flatMap { dy in (-r...r).map { dx in at(dx, dy)[c] } }) }
        }
    }

    @Test(
        "5x5 and 7x7 8-bit medians (generated networks) equal sorting at every pixel, every width",
        arguments: [5, 7])
    func networkMediansAtEveryPixel(d: Int) throws {
        // The networks do four outputs and 16 pixels per block: widths around multiples of 16 and
        // images narrower than the window exercise the block tails; few levels give many ties.
        let r = d / 2
        for (w, h, levels) in [(1, 1, 256), (3, 2, 256), (15, 9, 3), (16, 7, 256), (17, 8, 2), (37, 11, 256), (203, 9, 4), (1100, 5, 256)] {
            var seed = UInt64(w * 31 + h)
            let b = try Pixels.make(w, h) { _, _ in
                func next() -> Float {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    return Float(Int(seed >> 33) % levels) / Float(levels - 1)
                }
                return SIMD4(next(), next(), next(), 1)
            }
            let out = try RenderContext(workingSpace: .none).render(Median(diameter: d).apply(to: Image(bitmap: b)), rect: b.bounds)
            var wrong = 0
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<3 {
                        var window: [UInt8] = []
                        for dy in -r...r {
                            for dx in -r...r { window.append(b.bytes(x: min(max(x + dx, 0), w - 1), y: min(max(y + dy, 0), h - 1))[c]) }
                        }
                        if out.bytes(x: x, y: y)[c] != window.sorted()[window.count / 2] { wrong += 1 }
                    }
                }
            }
            #expect(wrong == 0, "median \(d) on \(w)x\(h) noise of \(levels) levels: \(wrong) channel values differ")
        }
    }

    @Test("8-bit table maps between 8-bit kernels (mapping the first kernel's buffer in place) equal mapping a rendered copy")
    func tableMapsInPlace() throws {
        // Median -> map -> median: the second median asks the map for 8-bit tiles, and the map
        // writes them over the first median's writable pool buffer. Mapping a rendered bitmap
        // (read-only) writes elsewhere. On opaque photos both give the same bytes.
        let maps: [any Filter] = [
            GammaAdjust(power: 1.5), ToneCurve(levels: [0, 0.4, 0.6, 0.8, 1]),
            ExposureAdjust(ev: 0.5), HistogramEqualization()
        ]
        for (name, photo) in GalleryImages.photos {
            let context = RenderContext(workingSpace: .none)
            let median = Median(diameter: 3).apply(to: Image(bitmap: photo))
            let staged = Image(bitmap: try context.render(median, rect: photo.bounds))
            for map in maps {
                let fused = try context.render(Median(diameter: 3).apply(to: map.apply(to: median)), rect: photo.bounds)
                let reference = try context.render(Median(diameter: 3).apply(to: map.apply(to: staged)), rect: photo.bounds)
                #expect(Pixels.maxDifference(fused, reference) == 0, "\(map) between medians on \(name)")
            }
        }
    }

    @Test(
        "8-bit results for a straight destination are the premultiplied ones unpremultiplied, pixel for pixel",
        arguments: [3, 5])
    func byteResultsIntoStraightDestinations(d: Int) throws {
        // A premultiplied 8-bit source with partial alpha takes the 8-bit kernels (which compute in the
        // destination's rows); a straight destination must get round(c * 255 / a) of the same results.
        let size = 300
        let source = try Bitmap(width: size, height: 170, format: .rgba8, alpha: .premultiplied)
        var seed: UInt64 = 0x5EED
        for y in 0..<source.height {
            for x in 0..<size {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let a = UInt8(truncatingIfNeeded: seed >> 56)
                let p = source.row(y).assumingMemoryBound(to: UInt8.self) + 4 * x
                for c in 0..<3 { p[c] = UInt8(UInt32(truncatingIfNeeded: seed >> (8 * c + 8)) % (UInt32(a) + 1)) }
                p[3] = a
            }
        }
        let recipe = Median(diameter: d).apply(to: Image(bitmap: source))
        let context = RenderContext(workingSpace: .none)
        let premultiplied = try context.render(recipe, rect: source.bounds, format: .rgba8, alpha: .premultiplied)
        let straight = try context.render(recipe, rect: source.bounds, format: .rgba8, alpha: .straight)
        var mismatches = 0
        for y in 0..<source.height {
            for x in 0..<size {
                let p = premultiplied.bytes(x: x, y: y), s = straight.bytes(x: x, y: y)
                let a = UInt32(p.w)
                var want = SIMD4<UInt8>(0, 0, 0, p.w)
                if a > 0 { for c in 0..<3 { want[c] = UInt8(min(255, (UInt32(p[c]) * 255 + a / 2) / a)) } }
                if s != want { mismatches += 1 }
            }
        }
        #expect(mismatches == 0, "\(mismatches) pixels differ")
    }
}
