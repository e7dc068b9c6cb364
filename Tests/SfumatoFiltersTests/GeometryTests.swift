import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The geometry against plain Double references of its definitions (Sampling's kernels, widened
/// by the shrink factor, transparent outside the extent), on real photos; orientations and crops
/// exactly. OpenCV's warpAffine and Pillow's LANCZOS are compared in Tests/python/test_geometry.py.
@Suite("Geometry: transforms, sampling, orientation, crop")
struct GeometryTests {
    /// The definition at output pixel (x, y): the inverse image of its centre, the kernel's
    /// weights widened by the local shrink factor, premultiplied working values, normalized by the
    /// weights of the whole lattice (so outside the extent counts as transparent). Straight RGBA.
    static func reference(_ photo: Bitmap, _ t: ProjectiveMap, _ sampling: Sampling, _ x: Int, _ y: Int, _ ws: WorkingSpace) -> [Double] {
        let inverse = t.inverted!
        let cx = Double(x) + 0.5, cy = Double(y) + 0.5
        let p = inverse.apply(x: cx, y: cy)
        func pixel(_ i: Int, _ j: Int) -> [Double] {
            guard photo.bounds.contains(x: i, y: j) else { return [0, 0, 0, 0] }
            let s = Reference.working(photo, i, j, ws)
            return [s[0] * s[3], s[1] * s[3], s[2] * s[3], s[3]]
        }
        var acc = [0.0, 0, 0, 0]
        if sampling == .nearest {
            acc = pixel(Int(p.x.rounded(.down)), Int(p.y.rounded(.down)))
        } else {
            let j = inverse.jacobian(x: cx, y: cy)
            // Shrinks of 0.1 % or less are not widened.
            func widening(_ f: Double) -> Double { f <= 1.001 ? 1 : f }
            let fx = widening((j[0] * j[0] + j[1] * j[1]).squareRoot()), fy = widening((j[2] * j[2] + j[3] * j[3]).squareRoot())
            let u = p.x - 0.5, v = p.y - 0.5
            let rx = sampling.support * fx, ry = sampling.support * fy
            var sx = 0.0, sy = 0.0
            for i in Int((u - rx).rounded(.up))...Int((u + rx).rounded(.down)) { sx += sampling.weight((Double(i) - u) / fx) }
            for jy in Int((v - ry).rounded(.up))...Int((v + ry).rounded(.down)) {
                let wy = sampling.weight((Double(jy) - v) / fy)
                sy += wy
                for i in Int((u - rx).rounded(.up))...Int((u + rx).rounded(.down)) {
                    let w = sampling.weight((Double(i) - u) / fx) * wy
                    let q = pixel(i, jy)
                    for k in 0..<4 { acc[k] += w * q[k] }
                }
            }
            acc = acc.map { $0 / (sx * sy) }
        }
        // Negative lobes can lift alpha past 1 beside the edge: stored, it is 1 (the renderer's rule).
        let a = min(acc[3], 1)
        return a > 0 ? [acc[0] / a, acc[1] / a, acc[2] / a, a] : [0, 0, 0, 0]
    }

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let map: ProjectiveMap
        var description: String { name }
    }

    static let maps: [Case] = [
        Case(
            name: "turn 0.3 and enlarge 1.4",
            map: ProjectiveMap(AffineMap.rotation(0.3).concatenating(.scale(1.4, 1.4)).concatenating(.translation(dx: 90, dy: -40)))),
        Case(
            name: "a turn of cosine and sine to four digits (shrinks 0.008 %: not widened)",
            map: ProjectiveMap(AffineMap(a: 0.9855, b: 0.1692, c: -0.1692, d: 0.9855, tx: 40, ty: -60))),
        Case(name: "shrink 0.37 x 0.52 (widened)", map: ProjectiveMap(AffineMap.scale(0.37, 0.52).concatenating(.translation(dx: 3.3, dy: 7.9)))),
        Case(name: "turn -1.1, shear, shrink", map: ProjectiveMap(AffineMap(a: 0.6, b: 0.3, c: -0.2, d: 0.45, tx: 20, ty: 10).concatenating(.rotation(-1.1)))),
        Case(name: "a perspective", map: ProjectiveMap(mapping: Rect(width: 640, height: 427), to: [(40, 10), (600, 0), (660, 420), (-20, 400)])!)
    ]

    @Test("each sampling within 1 level of its definition, on real photos, in both working spaces", arguments: maps)
    func definition(_ c: Case) throws {
        let photo = try Fixtures.photo("rocket.jpg")
        for sampling in Sampling.allCases {
            for ws in [WorkingSpace.none, .linear] {
                let image = Image(bitmap: photo).transformed(by: c.map, sampling: sampling)
                let e = image.extent
                #expect(!e.isEmpty && !e.isInfinite)
                let out = try RenderContext(workingSpace: ws).render(image, rect: e)
                var worst = 0.0, judged = 0, worstAt = ""
                for (px, py) in Pixels.samplePoints(e.width, e.height, count: 300) {
                    let want = Self.reference(photo, c.map, sampling, e.x + px, e.y + py, ws)
                    let got = out.bytes(x: px, y: py)
                    let alpha = (want[3] * 255).rounded()
                    worst = max(worst, abs(Double(got.w) - alpha))
                    // Colour is judged where it is stored with enough alpha to hold a level.
                    guard alpha >= 128 else { continue }
                    for k in 0..<3 where abs(Double(got[k]) - Reference.toLevel(want[k], ws)) > worst {
                        worst = abs(Double(got[k]) - Reference.toLevel(want[k], ws))
                        worstAt = "(\(px), \(py)): \(got) for \(want.map { ($0 * 255).rounded() })"
                    }
                    judged += 1
                }
                #expect(judged > 50, "\(c) \(sampling) \(ws): only \(judged) samples judged")
                #expect(worst <= 1, "\(c), \(sampling), \(ws): \(worst) levels from the definition at \(worstAt)")
            }
        }
    }

    @Test("every pixel's alpha of small turns within a level of the definition, the transparent corners too")
    func everyPixelAlpha() throws {
        let photo = try Pixels.make(61, 43) { x, y in SIMD4(Float(x % 7) / 7, Float(y % 5) / 5, 0.5, 1) }
        for angle in [0.17, -0.6, 2.2] {
            let map = ProjectiveMap(AffineMap.rotation(angle).concatenating(.translation(dx: 11, dy: -7)))
            for sampling in [Sampling.bilinear, .bicubic] {
                let image = Image(bitmap: photo).transformed(by: map, sampling: sampling)
                let e = image.extent
                for options in [RenderContext.Options(workingSpace: .linear), .init(workingSpace: .none, tileWidth: 16, tileHeight: 3)] {
                    let out = try RenderContext(options: options).render(image, rect: e, format: .rgbaFloat32, alpha: .premultiplied)
                    var worst = 0.0
                    for y in 0..<e.height {
                        for x in 0..<e.width {
                            let want = Self.reference(photo, map, sampling, e.x + x, e.y + y, options.workingSpace)[3]
                            // Bicubic lobes leave alpha a little outside 0...1 beside the edge in a
                            // float destination; the definition stores it within.
                            let got = min(max(Double(out.pixel(x: x, y: y).w), 0), 1)
                            worst = max(worst, abs(got - want) * 255)
                        }
                    }
                    #expect(worst <= 1, "\(angle), \(sampling): alpha \(worst) levels from the definition")
                }
            }
        }
    }

    @Test("turns and a keystone on 8-bit tiles give the float route's bytes: the interior within a level, the soft edges (in float) exactly")
    func byteRoute() throws {
        let photo = try Fixtures.photo("rocket.jpg")
        let none = RenderContext(workingSpace: .none)
        // The same pixels as floats, converted as the renderer converts a byte (b x (1 / 255)):
        // the float route reads them as they are.
        let floats = try Bitmap(width: photo.width, height: photo.height, format: .rgbaFloat32, encoding: .srgb, alpha: .premultiplied)
        for y in 0..<photo.height {
            let src = photo.row(y).assumingMemoryBound(to: UInt8.self), dst = floats.row(y).assumingMemoryBound(to: Float.self)
            for i in 0..<(4 * photo.width) { dst[i] = Float(src[i]) * (1 / 255) }
        }
        let turn = ProjectiveMap(AffineMap.rotation(0.3).concatenating(.translation(dx: 12.25, dy: -7.5)))
        // Keystones that enlarge everywhere: the rows route, stepped along spans between exact
        // points (long ones for a mild keystone; short ones, or a division a pixel, for a strong one).
        let keystone = ProjectiveMap(mapping: Rect(width: 640, height: 427), to: [(-64, -43), (704, -43), (672, 470), (-32, 470)])!
        let strong = ProjectiveMap(mapping: Rect(width: 640, height: 427), to: [(-250, -150), (890, -150), (700, 620), (-60, 620)])!
        let cases = [(turn, Sampling.bilinear), (turn, .bicubic), (keystone, .bilinear), (keystone, .bicubic), (strong, .bilinear)]
        for (map, sampling) in cases {
            let bytes = Image(bitmap: photo).transformed(by: map, sampling: sampling)
            #expect(try none.explain(bytes, rect: bytes.extent).contains("on 8-bit tiles"), "\(sampling) takes the 8-bit route")
            let a = try none.render(bytes, rect: bytes.extent)
            let b = try none.render(Image(bitmap: floats).transformed(by: map, sampling: sampling), rect: bytes.extent)

            var worst = 0, edges = 0, edgeDiffs = 0
            for y in 0..<a.height {
                for x in 0..<a.width {
                    let p = a.bytes(x: x, y: y), q = b.bytes(x: x, y: y)
                    let d = (0..<4).map { abs(Int(p[$0]) - Int(q[$0])) }.max()!
                    worst = max(worst, d)
                    if q.w > 0 && q.w < 255 {
                        edges += 1
                        if d > 0 { edgeDiffs += 1 }
                    }
                }
            }
            #expect(worst <= 1, "\(sampling): \(worst) levels between the routes")
            #expect(edges > 1000 && edgeDiffs == 0, "\(sampling): \(edgeDiffs) of \(edges) soft-edge pixels differ, worst \(worst)")
        }
    }

    @Test("oriented(_:) moves pixels exactly as the decoders' Bitmap.oriented does, on 8-bit and float routes")
    func orientations() throws {
        let photo = try RenderContext(workingSpace: .none).render(
            Image(bitmap: try Fixtures.photo("chelsea.png")).translatedBy(dx: -10, dy: -5), rect: Rect(width: 157, height: 93))
        for n in 1...8 {
            let want = try photo.oriented(n)
            for ws in [WorkingSpace.none, .linear] {
                let image = Image(bitmap: photo).oriented(n)
                #expect(image.extent == Rect(width: want.width, height: want.height), "orientation \(n)")
                let got = try RenderContext(workingSpace: ws).render(image, rect: image.extent)
                #expect(Pixels.maxDifference(got, want) == 0, "orientation \(n), \(ws)")
            }
            let moved = Image(bitmap: photo).translatedBy(dx: -7, dy: 12).oriented(n)
            #expect(moved.extent.x == -7 && moved.extent.y == 12, "orientation \(n) keeps the origin")
        }
        let plan = try RenderContext(workingSpace: .none).explain(Image(bitmap: photo).oriented(6))
        #expect(plan.contains("on 8-bit tiles"), "\(plan)")
    }

    @Test("a turn whose cosine and sine were rounded takes the 8-bit rows; a 1 % shrink is widened")
    func roundedTurnTakesTheRows() throws {
        let photo = Image(bitmap: try Pixels.noise(64, 48, seed: 4))
        func plan(_ map: AffineMap) throws -> String {
            try RenderContext(workingSpace: .none).explain(AffineTransformFilter(transform: map, sampling: .bilinear).apply(to: photo))
        }
        #expect(try plan(AffineMap(a: 0.9855, b: 0.1692, c: -0.1692, d: 0.9855, tx: 0, ty: 0)).contains("bilinear) on 8-bit tiles"))
        let shrunk = try plan(AffineMap(a: 0.99, b: 0, c: 0, d: 0.99, tx: 0, ty: 0))
        #expect(shrunk.contains("widened") && !shrunk.contains("on 8-bit tiles"), "\(shrunk)")
    }

    @Test("crop keeps exactly the rectangle; fractions round outward")
    func crop() throws {
        let photo = try Fixtures.photo("coffee.png")
        let f = try FilterRegistry.make("crop", values: ["rectangle": .vector([20.5, 30, 100, 50.2])])
        let image = f.apply(to: Image(bitmap: photo))
        #expect(image.extent == Rect(x: 20, y: 30, width: 101, height: 51))
        let got = try RenderContext(workingSpace: .linear).render(image, rect: image.extent)
        #expect(Pixels.maxDifference(got, try RenderContext(workingSpace: .none).render(Image(bitmap: photo), rect: image.extent)) == 0)
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("crop", values: ["rectangle": .vector([0, 0, 0, 10])]) }
    }

    @Test("Lanczos scale: the widened Lanczos-3 definition, one axis at a time, edges extended")
    func lanczosScale() throws {
        let photo = try Fixtures.photo("chelsea.png")
        for (scale, aspect) in [(0.27, 1.0), (1.6, 0.8)] {
            let f = LanczosScaleTransform(scale: scale, aspectRatio: aspect)
            let image = f.apply(to: Image(bitmap: photo))
            let (w, h) = f.outputSize(width: photo.width, height: photo.height)
            #expect(image.extent.width == w && image.extent.height == h)
            let out = try RenderContext(workingSpace: .none).render(image, rect: image.extent)
            let tiled = try RenderContext(options: .init(workingSpace: .none, tileWidth: 16, tileHeight: 5)).render(image, rect: image.extent)
            #expect(Pixels.maxDifference(out, tiled) == 0, "scale \(scale): small tiles")
            func taps(_ i: Int, _ outSize: Int, _ inSize: Int) -> [(Int, Double)] {
                let s = Double(outSize) / Double(inSize), f = max(1, 1 / s)
                let centre = (Double(i) + 0.5) / s - 0.5
                let range = Int((centre - 3 * f).rounded(.up))...Int((centre + 3 * f).rounded(.down))
                let w = range.map { Sampling.lanczos3.weight((Double($0) - centre) / f) }
                let sum = w.reduce(0, +)
                return zip(range, w).map { (min(max($0, 0), inSize - 1), $1 / sum) }
            }
            var worst = 0.0
            for (x, y) in Pixels.samplePoints(w, h, count: 300) {
                var acc = [0.0, 0, 0]
                for (sy, wy) in taps(y, h, photo.height) {
                    for (sx, wx) in taps(x, w, photo.width) {
                        let p = photo.bytes(x: sx, y: sy)
                        for k in 0..<3 { acc[k] += wx * wy * Double(p[k]) }
                    }
                }
                let got = out.bytes(x: x, y: y)
                for k in 0..<3 { worst = max(worst, abs(Double(got[k]) - min(max(acc[k], 0), 255).rounded())) }
            }
            #expect(worst <= 1, "scale \(scale), aspect \(aspect): \(worst) levels")
        }
    }

    @Test("straighten fills the frame: every pixel opaque, the centre where it was")
    func straighten() throws {
        let photo = try Fixtures.photo("rocket.jpg")
        let image = StraightenFilter(angle: 0.25).apply(to: Image(bitmap: photo))
        #expect(image.extent == photo.bounds)
        let out = try RenderContext(workingSpace: .none).render(image, rect: image.extent)
        for y in [0, photo.height / 2, photo.height - 1] {
            for x in [0, photo.width / 2, photo.width - 1] { #expect(out.bytes(x: x, y: y).w == 255, "(\(x), \(y))") }
        }
        let s = StraightenFilter(angle: 0.25).fillScale(width: photo.width, height: photo.height)
        #expect(abs(s - (cos(0.25) + 640.0 / 427.0 * sin(0.25))) < 1e-12)
    }

    @Test("hostile maps: singular, NaN, 1e300 and bow ties are refused or give an empty image, never a trap")
    func hostile() throws {
        let photo = Image(bitmap: try Pixels.noise(32, 24))
        #expect(photo.transformed(by: AffineMap.scale(0, 1)).extent.isEmpty)
        #expect(photo.transformed(by: AffineMap(a: .nan, b: 0, c: 0, d: 1, tx: 0, ty: 0)).extent.isEmpty)
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("affine", values: ["transform": .vector([1, 2, 2, 4, 0, 0])]) }
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("affine", values: ["transform": .vector([1, 0, 0, .nan, 0, 0])]) }
        #expect(throws: SfumatoError.self) { try FilterRegistry.make("affine", values: ["transform": .vector([1e300, 0, 0, 1, 0, 0])]) }
        #expect(throws: SfumatoError.self) {
            try FilterRegistry.make(
                "perspective",
                values: ["top-left": .vector([0, 0]), "top-right": .vector([640, 480]), "bottom-right": .vector([640, 0]), "bottom-left": .vector([0, 480])])
        }
        // A huge enlargement: the extent is bounded, and a small render of it works.
        let huge = photo.transformed(by: AffineMap.scale(1e9, 1e9), sampling: .bilinear)
        #expect(huge.extent.width <= 1 << 31)
        let corner = try RenderContext().render(huge, rect: Rect(x: 5_000, y: 5_000, width: 8, height: 8))
        #expect(corner.width == 8)
        // A huge shrink: one pixel, the average of everything.
        let dot = photo.transformed(by: AffineMap.scale(1e-9, 1e-9), sampling: .lanczos3)
        #expect(dot.extent.width <= 1)
        _ = try RenderContext().render(dot.cropped(to: Rect(width: 1, height: 1)), rect: Rect(width: 1, height: 1))
    }
}
