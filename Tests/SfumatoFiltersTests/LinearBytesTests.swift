import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Kernels with a linear-light 8-bit variant (``NeighborhoodKernel/supportsLinearBytes``): in the
/// linear working space, opaque 8-bit sRGB images going to 8-bit output are filtered on 16-bit
/// linear words instead of floats. The promise is one level: every byte is the float route's
/// (`linearBytes` off) or its neighbour.
@Suite("Linear light on 16-bit words against the float route", .serialized)
struct LinearBytesTests {
    /// Photos and the cases the word arithmetic finds hardest: the darkest levels (where one level
    /// is fewest words), hard black-white edges (the largest sums), and every level side by side.
    static let images: [(String, Bitmap)] = {
        var seed: UInt32 = 7
        func next() -> UInt32 { seed = seed &* 1_664_525 &+ 1_013_904_223; return seed >> 24 }
        let dark = try! Pixels.make(97, 41) { _, _ in SIMD4(Float(next() % 12) / 255, Float(next() % 4) / 255, Float(next() % 30) / 255, 1) }
        let edges = try! Pixels.make(64, 48) { x, y in (x / 2 + y / 3) % 2 == 0 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
        let levels = try! Pixels.make(256, 24) { x, y in
            let v = Float(y % 2 == 0 ? x : 255 - x) / 255
            return SIMD4(v, Float((x * 7) % 256) / 255, 1 - v, 1)
        }
        return GalleryImages.photos + GalleryImages.synthetic + [("dark noise", dark), ("black-white edges", edges), ("every level", levels)]
    }()

    static let sigmas: [Double] = [0.3, 1, 2, 3.3, 3.99]

    @Test("Gaussian, σ below 4, clamped and transparent edges, whole and in small tiles: within one level", arguments: sigmas)
    func gaussian(sigma: Double) throws {
        for (imageName, bitmap) in Self.images {
            for edges in [EdgeMode.clamp, .grow] {
                let recipe = GaussianBlur(radius: sigma, edges: edges).apply(to: Image(bitmap: bitmap))
                for options in [RenderContext.Options(), .init(tileWidth: 16, tileHeight: 5)] {
                    let words = RenderContext(options: options)
                    var floatOptions = options
                    floatOptions.linearBytes = false
                    let floats = RenderContext(options: floatOptions)
                    let plan = try words.explain(recipe, rect: recipe.extent)
                    #expect(plan.contains("linear light in 16-bit words"), "\(imageName): \(plan)")
                    let a = try words.render(recipe), b = try floats.render(recipe)
                    let (worst, differing) = Self.compare(a, b)
                    #expect(worst <= 1, "\(imageName) σ \(sigma) \(edges): \(worst) levels")
                    // On photos almost every byte is the float route's exactly (the offset centres the
                    // words' truncation); the synthetic cases sit on rounding boundaries by design.
                    if GalleryImages.photos.contains(where: { $0.0 == imageName }) {
                        #expect(Double(differing) <= 0.02 * Double(4 * a.width * a.height), "\(imageName) σ \(sigma) \(edges): \(differing) bytes differ")
                    }
                }
            }
        }
    }

    @Test("box mean up to radius 127, whole and in small tiles: within one level", arguments: [1, 3, 10, 127])
    func box(radius: Int) throws {
        for (imageName, bitmap) in Self.images {
            let recipe = BoxBlur(radius: Double(radius)).apply(to: Image(bitmap: bitmap))
            // Tiles much smaller than the box would each sum most of the image again.
            try Self.check(recipe, imageName, "box \(radius)", tile: radius > 10 ? (96, 24) : (16, 5))
        }
    }

    @Test("disc mean, whole and in small tiles: within one level", arguments: [1.0, 3.5, 8, 30])
    func disc(radius: Double) throws {
        for (imageName, bitmap) in Self.images {
            try Self.check(
                DiscBlur(radius: radius).apply(to: Image(bitmap: bitmap)), imageName, "disc \(radius)",
                tile: radius > 10 ? (48, 16) : (16, 5))
        }
    }

    /// A cell's mean within a unit flips a level near a rounding edge, for the whole cell, and dark
    /// photos hold many levels only about 20 units apart: up to 4 % of bytes may differ (measured
    /// 3.3 % on rocket.jpg's night sky in cells of 2).
    @Test("pixellate's cell means, whole and in small tiles: within one level", arguments: [2.0, 8, 37, 256])
    func pixellate(scale: Double) throws {
        for (imageName, bitmap) in Self.images {
            let recipe = Pixellate(center: [5, -3], scale: scale).apply(to: Image(bitmap: bitmap))
            try Self.check(recipe, imageName, "pixellate \(scale)", tile: scale > 10 ? (48, 16) : (16, 5), maximumDiffering: 0.04)
        }
    }

    @Test("motion blur's boxes across and down, whole and in small tiles: within one level")
    func motion() throws {
        for (imageName, bitmap) in Self.images {
            for (radius, angle) in [(20.0, 0.0), (5, Double.pi / 2), (1, Double.pi)] {
                let recipe = MotionBlur(radius: radius, angle: angle).apply(to: Image(bitmap: bitmap))
                try Self.check(recipe, imageName, "motion \(radius) at \(angle)")
            }
        }
    }

    /// Renders `recipe` with the words and with floats, whole and in small tiles: the plan names
    /// the words, every byte is within one level, and on photos at most `maximumDiffering` (2%) of
    /// bytes differ.
    static func check(
        _ recipe: Image, _ imageName: String, _ what: String, tile: (Int, Int) = (16, 5), maximumDiffering: Double = 0.02
    ) throws {
        for options in [RenderContext.Options(), .init(tileWidth: tile.0, tileHeight: tile.1)] {
            var floatOptions = options
            floatOptions.linearBytes = false
            let words = RenderContext(options: options), floats = RenderContext(options: floatOptions)
            let plan = try words.explain(recipe, rect: recipe.extent)
            #expect(plan.contains("linear light in 16-bit words"), "\(imageName) \(what): \(plan)")
            let a = try words.render(recipe), b = try floats.render(recipe)
            let (worst, differing) = compare(a, b)
            #expect(worst <= 1, "\(imageName) \(what): \(worst) levels")
            if GalleryImages.photos.contains(where: { $0.0 == imageName }) {
                #expect(
                    Double(differing) <= maximumDiffering * Double(4 * a.width * a.height), "\(imageName) \(what): \(differing) bytes differ")
            }
        }
    }

    @Test("the AVX-512 tile gives the baseline's bytes, and a streamed JPEG the bitmap's")
    func routes() throws {
        let recipe = { (image: Image) in GaussianBlur(radius: 2, edges: .clamp).apply(to: image) }
        for (imageName, bitmap) in Self.images {
            let context = RenderContext(options: .init(tileWidth: 40, tileHeight: 7))
            let wide = try context.render(recipe(Image(bitmap: bitmap)))
            let baseline = try CPUFeatures.withBaselineVectors { try context.render(recipe(Image(bitmap: bitmap))) }
            #expect(wide == baseline, "\(imageName)")
        }
        let path = Fixtures.path("rocket.jpg")
        let (streamed, _) = try ImageIO.open(path: path)
        let context = RenderContext()
        #expect(try context.explain(recipe(streamed)).contains("linear light in 16-bit words"))
        #expect(try context.render(recipe(streamed)) == (try context.render(recipe(Image(bitmap: try Fixtures.photo("rocket.jpg"))))))
    }

    @Test("the float route where the words would not do: alpha, σ 4 and up, the none working space, float output")
    func fallbacks() throws {
        let context = RenderContext()
        let opaque = Image(bitmap: GalleryImages.photos[0].1)
        let cases: [(String, Image)] = [
            ("translucent image", GaussianBlur(radius: 2, edges: .clamp).apply(to: Image(bitmap: Photos.alphaNoise))),
            ("σ 4 (the float route's recursive filter)", GaussianBlur(radius: 4, edges: .clamp).apply(to: opaque)),
            ("a box of radius 128 (its word sums could pass 2^32)", BoxBlur(radius: 128).apply(to: opaque)),
            ("a disc of radius 150 (the same)", DiscBlur(radius: 150).apply(to: opaque)),
            ("motion at an angle (bilinear taps)", MotionBlur(radius: 10, angle: 0.3).apply(to: opaque)),
            ("pixellate's cells of 257 (their word sums could pass 2^32)", Pixellate(center: [0, 0], scale: 257).apply(to: opaque))
        ]
        for (name, recipe) in cases {
            #expect(!(try context.explain(recipe, rect: recipe.extent)).contains("linear light in 16-bit words"), "\(name)")
        }
        let recipe = GaussianBlur(radius: 2, edges: .clamp).apply(to: opaque)
        #expect(!(try RenderContext(workingSpace: .none).explain(recipe, rect: recipe.extent)).contains("linear light in 16-bit words"))
        // Float output takes float tiles: the same floats with the words allowed or not.
        var off = RenderContext.Options()
        off.linearBytes = false
        #expect(try context.render(recipe, format: .rgbaFloat32) == (try RenderContext(options: off).render(recipe, format: .rgbaFloat32)))
    }

    /// The largest difference in levels and the number of bytes that differ.
    static func compare(_ a: Bitmap, _ b: Bitmap) -> (Int, Int) {
        precondition(a.width == b.width && a.height == b.height && a.format == .rgba8 && b.format == .rgba8)
        var worst = 0, differing = 0
        for y in 0..<a.height {
            let p = a.row(y).assumingMemoryBound(to: UInt8.self), q = b.row(y).assumingMemoryBound(to: UInt8.self)
            for i in 0..<(4 * a.width) where p[i] != q[i] {
                worst = max(worst, abs(Int(p[i]) - Int(q[i])))
                differing += 1
            }
        }
        return (worst, differing)
    }
}
