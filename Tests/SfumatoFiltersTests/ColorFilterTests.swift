import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The photos every reference test runs on, decoded once.
enum Photos {
    static let all: [(String, Bitmap)] = Fixtures.photoPaths.map { p in
        ((p as NSString).lastPathComponent, try! ImageIO.read(path: p).bitmap)
    }
    /// A synthetic image with every kind of alpha (0, partial, 1) and saturated corners.
    static let alphaNoise: Bitmap = {
        let b = try! Pixels.noise(61, 37, seed: 11, alpha: true)
        b.setPixel(x: 0, y: 0, [1, 0, 0, 1]); b.setPixel(x: 1, y: 0, [0, 0, 0, 1]); b.setPixel(x: 2, y: 0, [1, 1, 1, 1])
        b.setPixel(x: 3, y: 0, [0.2, 0.9, 0.4, 0])
        return b
    }()
}

/// Renders `filter` over `bitmap` in `ws` and checks sampled pixels against `reference` (which
/// maps working straight RGBA to working straight RGBA), 8-bit results within `tolerance` levels.
func checkPoint(
    _ name: String, _ filter: any Filter, _ ws: WorkingSpace, tolerance: Double = 1,
    points: Int = 400, _ reference: ([Double]) -> [Double]
) throws {
    for (photoName, bitmap) in Photos.all + [("alpha noise", Photos.alphaNoise)] {
        let out = try RenderContext(workingSpace: ws).render(filter.apply(to: Image(bitmap: bitmap)), rect: bitmap.bounds)
        var worst = 0.0
        for (x, y) in Pixels.samplePoints(bitmap.width, bitmap.height, count: points) {
            let input = Reference.working(bitmap, x, y, ws)
            if input[3] == 0 { continue }
            let want = reference(input)
            let got = out.bytes(x: x, y: y)
            for c in 0..<3 { worst = max(worst, abs(Double(got[c]) - Reference.toLevel(want[c], ws))) }
            worst = max(worst, abs(Double(got.w) - (min(max(want[3], 0), 1) * 255).rounded()))
        }
        #expect(worst <= tolerance, "\(name) \(ws) on \(photoName): worst difference \(worst) levels")
    }
}

func luma(_ p: [Double]) -> Double { 0.2125 * p[0] + 0.7154 * p[1] + 0.0721 * p[2] }

/// CIColorControls' definition: saturation about luma, add brightness, scale about 0.5.
func refColorControls(_ v: [Double], _ sat: Double, _ bright: Double, _ contrast: Double) -> [Double] {
    let l = luma(v)
    var out: [Double] = []
    for i in 0..<3 {
        let saturated: Double = l + sat * (v[i] - l)
        out.append((saturated + bright - 0.5) * contrast + 0.5)
    }
    return out
}

/// Rodrigues rotation about the grey axis (docs/spec/FILTERS.md), written out term by term.
func hueRotate(_ p: [Double], _ angle: Double) -> [Double] {
    let c = cos(angle), s = sin(angle), a = 1 / sqrt(3.0), t = (1 - c) / 3
    let d = c + t, u = t - s * a, v = t + s * a
    let r: Double = d * p[0] + u * p[1] + v * p[2]
    let g: Double = v * p[0] + d * p[1] + u * p[2]
    let b: Double = u * p[0] + v * p[1] + d * p[2]
    return [r, g, b]
}

@Suite("Colour filters against their definitions")
struct ColorFilterTests {
    @Test("CIHueAdjust", arguments: [WorkingSpace.linear, .none], [-4 * Double.pi, -1, 0, 0.5, Double.pi, 3 * Double.pi, 4 * Double.pi])
    func hue(ws: WorkingSpace, angle: Double) throws {
        try checkPoint("hue \(angle)", HueAdjust(angle: angle), ws) { p in
            hueRotate(p, angle) + [p[3]]
        }
    }

    @Test(
        "CIColorControls", arguments: [WorkingSpace.linear, .none],
        [(1.0, 0.0, 1.0), (0, 0, 1), (10, 0, 1), (2, 0.1, 1.2), (1, -1, 1), (1, 1, 1), (1, 0, 0), (1, 0, 4), (8, -0.5, 0.25)])
    func colorControls(ws: WorkingSpace, p: (Double, Double, Double)) throws {
        let (sat, bright, contrast) = p
        try checkPoint("color controls \(p)", ColorControls(saturation: sat, brightness: bright, contrast: contrast), ws) { v in
            refColorControls(v, sat, bright, contrast) + [v[3]]
        }
    }

    @Test("CIExposureAdjust", arguments: [WorkingSpace.linear, .none], [-10.0, -2, 0, 0.5, 3, 10])
    func exposure(ws: WorkingSpace, ev: Double) throws {
        try checkPoint("exposure \(ev)", ExposureAdjust(ev: ev), ws) { v in v.prefix(3).map { $0 * pow(2, ev) } + [v[3]] }
    }

    @Test("CIGammaAdjust", arguments: [WorkingSpace.linear, .none], [0.0, 0.1, 0.5, 1, 1.5, 2.2, 4])
    func gamma(ws: WorkingSpace, power: Double) throws {
        try checkPoint("gamma \(power)", GammaAdjust(power: power), ws) { v in v.prefix(3).map { Reference.power($0, power) } + [v[3]] }
    }

    @Test(
        "CIToneCurve", arguments: [WorkingSpace.linear, .none],
        [
            [0.0, 0.25, 0.5, 0.75, 1], [0, 0.4, 0.6, 0.8, 1], [1, 0.75, 0.5, 0.25, 0], [0, 1, 0, 1, 0], [0.2, 0.2, 0.2, 0.2, 0.2], [0, 0, 0, 0, 1]
        ])
    func toneCurve(ws: WorkingSpace, levels: [Double]) throws {
        let pts = levels.enumerated().map { (Double($0.offset) / 4, $0.element) }
        try checkPoint("tone curve \(levels)", ToneCurve(levels: levels), ws) { v in
            v.prefix(3).map { x in
                let q = Reference.naturalSpline(pts, max(x, 0).squareRoot()); return q * q
            } + [v[3]]
        }
    }

    @Test("CIColorMatrix (linear and general forms)", arguments: [WorkingSpace.linear, .none])
    func colorMatrix(ws: WorkingSpace) throws {
        let cases: [ColorMatrix] = [
            ColorMatrix(r: [0, 1, 0, 0], g: [1, 0, 0, 0], b: [0, 0, 1, 0]),
            ColorMatrix(r: [0.5, 0.3, 0.1, 0], g: [-0.2, 1.1, 0.1, 0], b: [0.1, 0.1, 0.6, 0], bias: [0.05, -0.1, 0.2, 0]),
            ColorMatrix(r: [1, 0, 0, 0.2], g: [0, 1, 0, 0], b: [0, 0, 1, 0], a: [0, 0, 0, 0.5], bias: [0, 0, 0, 0.25]),
            // Entries above 1000 leave 8-bit pixels with partial alpha to the float route (the
            // fixed-point one would overflow); in range only where red equals green.
            ColorMatrix(r: [1001, -1000, 0, 0], g: [0, 1, 0, 0], b: [0.2, 0.3, 0.5, 0])
        ]
        for m in cases {
            try checkPoint("color matrix", m, ws) { v in
                let rows = [m.r, m.g, m.b, m.a]
                return (0..<4).map { i in (0..<4).reduce(m.bias[i]) { $0 + rows[i][$1] * v[$1] } }
            }
        }
    }

    @Test("huge and NaN matrix entries on 8-bit pixels: no trap, the same bytes as the float route", arguments: [WorkingSpace.linear, .none])
    func hugeMatrices(ws: WorkingSpace) throws {
        let cases: [[any Filter]] = [
            [ColorMatrix(r: [10000, 0, 0, 0], g: [0, -9000, 0, 0], b: [0, 0, 1, 0])],
            [ExposureAdjust(ev: 10), ExposureAdjust(ev: 4)],  // fused: 2^14 per channel
            [ColorMatrix(r: [.nan, 0, 0, 0])],
            // A matrix then a curve (a matrix-and-table pass) with entries past the fixed-point
            // route's reach: partial alpha takes the float route four pixels at a time.
            [ColorMatrix(r: [1001, -1000, 0, 0], g: [0, 1, 0, 0], b: [0.2, 0.3, 0.5, 0]), GammaAdjust(power: 1.5)]
        ]
        for (name, photo) in [Photos.all[0], ("alpha noise", Photos.alphaNoise)] {
            let floats = try RenderContext(workingSpace: ws).render(
                Image(bitmap: photo), format: .rgbaFloat32, alpha: .premultiplied,
                encoding: ws == .linear ? .linear : .srgb)
            for chain in cases {
                let context = RenderContext(workingSpace: ws)
                let bytes = try context.render(chain.reduce(Image(bitmap: photo)) { $1.apply(to: $0) })
                let reference = try context.render(chain.reduce(Image(bitmap: floats)) { $1.apply(to: $0) })
                for (x, y) in Pixels.samplePoints(photo.width, photo.height) {
                    let a = bytes.bytes(x: x, y: y), b = reference.bytes(x: x, y: y)
                    #expect(a.w == b.w)
                    // The straight colour of a nearly transparent pixel carries the 8-bit
                    // premultiplication of the float route's input: compare where alpha >= 1/2.
                    guard b.w >= 128 else { continue }
                    for c in 0..<3 { #expect(abs(Int(a[c]) - Int(b[c])) <= 1, "\(chain) on \(name) at (\(x), \(y)): \(a) vs \(b)") }
                }
            }
        }
    }

    @Test("the PencilController chain, fused, against the chained definitions", arguments: [WorkingSpace.linear, .none])
    func pencilControllerChain(ws: WorkingSpace) throws {
        let chain: [any Filter] = [
            HueAdjust(angle: 1), ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2),
            ExposureAdjust(ev: 0.5), GammaAdjust(power: 1.5)
        ]
        struct Chain: Filter {
            static let descriptor = HueAdjust.descriptor
            let filters: [any Filter]
            init(arguments: FilterArguments) throws { filters = [] }
            init(_ f: [any Filter]) { filters = f }
            var arguments: FilterArguments { FilterArguments() }
            func apply(to image: Image) -> Image { filters.reduce(image) { $1.apply(to: $0) } }
        }
        try checkPoint("PencilController chain", Chain(chain), ws) { v in
            let p = refColorControls(hueRotate(v, 1), 2, 0.1, 1.2)
            let q: [Double] = p.map { (x: Double) -> Double in Reference.power(x * pow(2, 0.5), 1.5) }
            return q + [v[3]]
        }
        let plan = try RenderContext(workingSpace: ws).explain(Chain(chain).apply(to: Image(bitmap: Photos.all[0].1)))
        #expect(plan.contains("matrix[CIHueAdjust + CIColorControls + CIExposureAdjust]"))
        #expect(plan.contains("fused point pass"))
    }

    @Test("values outside 0...1 survive between filters")
    func extendedRange() throws {
        let photo = Photos.all[0].1
        for ws in [WorkingSpace.linear, .none] {
            let there = ExposureAdjust(ev: -3).apply(to: ExposureAdjust(ev: 3).apply(to: Image(bitmap: photo)))
            let back = try RenderContext(workingSpace: ws).render(there)
            #expect(Pixels.maxDifference(back, photo) <= 1)
            let bright = ColorControls(brightness: -1).apply(to: ColorControls(brightness: 1).apply(to: Image(bitmap: photo)))
            #expect(Pixels.maxDifference(try RenderContext(workingSpace: ws).render(bright), photo) <= 1)
            // Unfused too (each filter its own pass, float tiles in between).
            let unfused = RenderContext(options: .init(workingSpace: ws, fusion: false))
            #expect(Pixels.maxDifference(try unfused.render(there), photo) <= 1)
        }
    }

    @Test("tone curve: passes through its control points exactly and matches a reference natural spline")
    func spline() {
        let sets: [[(Double, Double)]] = [
            [(0, 0), (0.25, 0.4), (0.5, 0.6), (0.75, 0.8), (1, 1)],
            [(0, 1), (0.25, 0), (0.5, 1), (0.75, 0), (1, 1)],
            [(0.1, 0.2), (0.3, 0.3), (0.45, 0.9), (0.8, 0.7), (0.95, 0.95)],
            [(1, 1), (0, 0), (0.5, 0.25), (0.75, 0.5), (0.25, 0.1)]  // unsorted
        ]
        for pts in sets {
            let f = ToneCurveSpline(points: pts)
            for (x, y) in pts { #expect(f.value(at: x) == min(max(y, 0), 1)) }
            for i in 0...200 {
                let x = Double(i) / 200
                #expect(abs(f.value(at: x) - Reference.naturalSpline(pts, x)) < 1e-12)
            }
        }
        let curve = ToneCurve(levels: [0, 0.4, 0.6, 0.8, 1])
        #expect(curve.spline.samples(count: 5) == [0, 0.4, 0.6, 0.8, 1])
    }

    @Test("source-over compositing: S + D(1 - S.a) over the union of extents", arguments: [WorkingSpace.linear, .none])
    func sourceOver(ws: WorkingSpace) throws {
        let fg = Photos.alphaNoise
        let bg = Photos.all.first { $0.0 == "coffee.png" }!.1
        let moved = Image(bitmap: fg).translatedBy(dx: 100, dy: 50)
        let out = try RenderContext(workingSpace: ws).render(SourceOverCompositing(background: Image(bitmap: bg)).apply(to: moved))
        #expect(out.width == bg.width && out.height == bg.height)
        var worst = 0.0
        for y in 0..<fg.height {
            for x in 0..<fg.width {
                let s = Reference.working(fg, x, y, ws), d = Reference.working(bg, x + 100, y + 50, ws)
                let a = s[3] + d[3] * (1 - s[3])
                let got = out.bytes(x: x + 100, y: y + 50)
                for c in 0..<3 {
                    let premult = s[c] * s[3] + d[c] * d[3] * (1 - s[3])
                    worst = max(worst, abs(Double(got[c]) - Reference.toLevel(premult / a, ws)))
                }
                worst = max(worst, abs(Double(got.w) - (a * 255).rounded()))
            }
        }
        #expect(worst <= 1, "worst \(worst)")
    }

    @Test(
        "CIGaussianBlur: Core Image's rule (transparent outside, extent grows 3σ) and clamp-and-crop",
        arguments: [WorkingSpace.linear, .none], [0.5, 2, 6.5, 10, 12.5, 19.9])
    func gaussian(ws: WorkingSpace, sigma: Double) throws {
        let photo = Photos.all.first { $0.0 == "chelsea.png" }!.1
        let r = Int((3 * sigma).rounded(.up))
        let w = (0...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let norm = w[0] + 2 * w.dropFirst().reduce(0, +)
        for edges in [EdgeMode.grow, .clamp, .zero] {
            let f = GaussianBlur(radius: sigma, edges: edges)
            let recipe = f.apply(to: Image(bitmap: photo))
            #expect(recipe.extent == (edges == .grow ? photo.bounds.insetBy(dx: -r, dy: -r) : photo.bounds))
            let out = try RenderContext(workingSpace: ws).render(recipe, rect: recipe.extent)
            var worst = 0.0
            let points = Pixels.samplePoints(recipe.extent.width, recipe.extent.height, count: 120)
            for (ox, oy) in points {
                let x = ox + recipe.extent.x, y = oy + recipe.extent.y
                var acc = [0.0, 0, 0, 0]
                for dy in -r...r {
                    for dx in -r...r {
                        var sx = x + dx, sy = y + dy
                        if edges == .clamp { sx = min(max(sx, 0), photo.width - 1); sy = min(max(sy, 0), photo.height - 1) }
                        guard photo.bounds.contains(x: sx, y: sy) else { continue }
                        let p = Reference.working(photo, sx, sy, ws)
                        let k = w[abs(dx)] * w[abs(dy)] / (norm * norm)
                        for c in 0..<3 { acc[c] += k * p[c] * p[3] }
                        acc[3] += k * p[3]
                    }
                }
                let got = out.bytes(x: ox, y: oy)
                worst = max(worst, abs(Double(got.w) - (acc[3] * 255).rounded()))
                if acc[3] > 0.25 {
                    for c in 0..<3 { worst = max(worst, abs(Double(got[c]) - Reference.toLevel(acc[c] / acc[3], ws))) }
                }
            }
            #expect(worst <= 1, "sigma \(sigma) \(edges) \(ws): worst \(worst)")
        }
    }

    /// Large sigmas run Deriche's recursive filter (float tiles from σ 4, all from σ 20): its
    /// impulse response against the exact sampled Gaussian (normalised over all pixels), largest
    /// error relative to the peak. Measured: 0.081% (σ 4), 0.092% (σ 10), 0.141% (σ 25).
    @Test("recursive Gaussian: the impulse response stays within 0.2% of the exact Gaussian's peak", arguments: [4.0, 10, 25])
    func recursiveGaussianImpulse(sigma: Double) throws {
        let dot = try Pixels.make(1, 1, format: .rgbaFloat32, alpha: .premultiplied) { _, _ in [1, 1, 1, 1] }
        let recipe = GaussianBlur(radius: sigma, edges: .grow).apply(to: Image(bitmap: dot))
        let out = try RenderContext(workingSpace: .linear).render(recipe, rect: recipe.extent, format: .rgbaFloat32, alpha: .premultiplied)
        let reach = Int(10 * sigma)
        let norm = (-reach...reach).reduce(0.0) { $0 + exp(-Double($1 * $1) / (2 * sigma * sigma)) }
        func g(_ d: Int) -> Double { exp(-Double(d * d) / (2 * sigma * sigma)) / norm }
        let peak = g(0) * g(0)
        var worst = 0.0
        for y in 0..<out.height {
            for x in 0..<out.width {
                let want = g(x + recipe.extent.x) * g(y + recipe.extent.y)
                worst = max(worst, abs(Double(out.pixel(x: x, y: y).w) - want) / peak)
            }
        }
        #expect(worst <= 0.002, "sigma \(sigma): worst error \(worst) of the peak")
    }

    @Test("CIMedianFilter: per-channel 3x3 median, edges clamped", arguments: [WorkingSpace.linear, .none])
    func median(ws: WorkingSpace) throws {
        for (name, photo) in Photos.all + [("alpha noise", Photos.alphaNoise)] {
            let out = try RenderContext(workingSpace: ws).render(MedianFilter().apply(to: Image(bitmap: photo)))
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(photo.width, photo.height, count: 300) {
                let got = out.bytes(x: x, y: y)
                // The median of each premultiplied channel (Core Image's form), then back to straight.
                var med = [Double](repeating: 0, count: 4)
                for c in 0..<4 {
                    var v: [Double] = []
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let p = Reference.working(photo, min(max(x + dx, 0), photo.width - 1), min(max(y + dy, 0), photo.height - 1), ws)
                            v.append(c == 3 ? p[3] : p[c] * p[3])
                        }
                    }
                    med[c] = v.sorted()[4]
                }
                worst = max(worst, abs(Double(got.w) - (med[3] * 255).rounded()))
                if med[3] >= 0.25 {
                    for c in 0..<3 { worst = max(worst, abs(Double(got[c]) - Reference.toLevel(med[c] / med[3], ws))) }
                }
            }
            #expect(worst <= 1, "\(name) \(ws): worst \(worst)")
        }
    }

    @Test("edge cases: 1x1 images, images smaller than the blur kernel, alpha 0")
    func tiny() throws {
        let one = try Pixels.make(1, 1) { _, _ in SIMD4(0.2, 0.6, 0.8, 1) }
        for f in [
            HueAdjust(angle: 1), ColorControls(saturation: 2), ExposureAdjust(ev: 1), GammaAdjust(power: 2),
            ToneCurve(levels: [0, 0.4, 0.6, 0.8, 1]), MedianFilter(), GaussianBlur(radius: 10, edges: .clamp)
        ] as [any Filter] {
            let out = try RenderContext().render(f.apply(to: Image(bitmap: one)), rect: one.bounds)
            #expect(out.width == 1 && out.height == 1)
        }
        // A clamped 1x1 image blurred stays its colour; a grown one spreads and fades.
        let clamped = try RenderContext().render(GaussianBlur(radius: 10, edges: .clamp).apply(to: Image(bitmap: one)))
        #expect(clamped.bytes(x: 0, y: 0) == one.bytes(x: 0, y: 0))
        let grown = GaussianBlur(radius: 10).apply(to: Image(bitmap: one))
        #expect(grown.extent == Rect(x: -30, y: -30, width: 61, height: 61))
        let spread = try RenderContext().render(grown)
        #expect(spread.bytes(x: 30, y: 30).w < 5)
        // A 5x3 image under a 61-tap kernel keeps its mean colour with clamped edges.
        let small = try Pixels.make(5, 3) { x, _ in SIMD4(Float(x) / 4, 0.5, 0.5, 1) }
        let blurred = try RenderContext(workingSpace: .none).render(GaussianBlur(radius: 10, edges: .clamp).apply(to: Image(bitmap: small)))
        #expect(abs(Int(blurred.bytes(x: 2, y: 1).x) - 128) <= 2)
        // Alpha 0 stays alpha 0 through colour filters (no colour appears from nothing).
        let clear = try Pixels.make(4, 4) { _, _ in SIMD4(1, 0, 0, 0) }
        for f in [ColorControls(brightness: 1), ExposureAdjust(ev: 5), ToneCurve(levels: [1, 1, 1, 1, 1])] as [any Filter] {
            let out = try RenderContext().render(f.apply(to: Image(bitmap: clear)))
            #expect(out.bytes(x: 1, y: 1) == SIMD4(0, 0, 0, 0))
        }
    }
}
