import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The AVX-512 twins (module SfumatoAVX512) give the baseline kernels' bytes exactly.
///
/// Each case renders once with the wide kernels and once with `CPUFeatures.withBaselineVectors`.
/// The switch is process-wide; renders of other tests running meanwhile may take either route,
/// which is harmless because both give the same bytes (which is what this suite checks).
@Suite("AVX-512 kernels against the baseline kernels", .serialized)
struct WideVectorTests {
    /// Photos, edge cases, transparency, a width whose rows end inside a 64-byte vector, and
    /// grey copies of the photos.
    static let images: [(String, Bitmap)] = {
        let none = RenderContext(workingSpace: .none)
        let grey = GalleryImages.photos.map { ("\($0.0) grey", try! none.render(Image(bitmap: $0.1), format: .gray8)) }
        let odd = try! Pixels.noise(131, 37, seed: 3)
        let translucentEdge = try! Pixels.make(70, 9) { x, y in SIMD4(Float(x) / 70, 0.5, Float(y) / 9, x < 60 ? 1 : x < 65 ? 0.5 : 0) }
        // Premultiplied 8-bit with alpha takes the byte kernels (straight alpha goes through floats).
        var seed: UInt32 = 9
        func next() -> Float { seed = seed &* 1_664_525 &+ 1_013_904_223; return Float(seed >> 24) / 255 }
        let premultiplied = try! Pixels.make(75, 21, alpha: .premultiplied) { _, _ in SIMD4(next(), next(), next(), next()) }
        // Packed RGB copies: the packed kernels (expanding, packing, the packed matrix and sums).
        let packed = (GalleryImages.photos + [("131x37 noise", odd)]).map { ("\($0.0) packed", try! $0.1.packedToRGB8()) }
        return [("premultiplied alpha noise", premultiplied)] + GalleryImages.all + GalleryImages.withAlpha + [
            ("131x37 noise", odd), ("opaque but for 10 columns (5 transparent)", translucentEdge)
        ] + grey + packed
    }()

    static let filters: [(String, any Filter)] = [
        ("gaussian 0.4 clamp", GaussianBlur(radius: 0.4, edges: .clamp)), ("gaussian 2 clamp", GaussianBlur(radius: 2, edges: .clamp)),
        ("gaussian 3.3 transparent", GaussianBlur(radius: 3.3)), ("gaussian 10 clamp", GaussianBlur(radius: 10, edges: .clamp)),
        ("gaussian 11.9 transparent", GaussianBlur(radius: 11.9)), ("gaussian 19.9 clamp", GaussianBlur(radius: 19.9, edges: .clamp)),
        ("median 3x3", Median(diameter: 3)), ("median 5x5", Median(diameter: 5)), ("median 7x7", Median(diameter: 7)),
        ("gamma 1.5 (a table on grey)", GammaAdjust(power: 1.5)), ("histogram equalization", HistogramEqualization()),
        ("white point (three tables on RGBA)", WhitePointAdjust(color: [1, 0.9, 0.7, 1])), ("colour invert", ColorInvert()),
        ("hue 1 (a matrix)", HueAdjust(angle: 1)), ("colour controls, clipping", ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2)),
        ("threshold 0.5", ThresholdBinary(threshold: 0.5)), ("threshold 0.3, maximum 0.7", ThresholdBinary(threshold: 0.3, maximum: 0.7)),
        ("closing 5x5", Closing(width: 5, height: 5)), ("opening 9x3", Opening(width: 9, height: 3)),
        ("area max 21x19 (by doubling)", AreaMax(width: 21, height: 19)), ("area min 4x6", AreaMin(width: 4, height: 6)),
        ("dilate disc", Dilate.disc(diameter: 15, radius: 7)),
        // Shrinking rows by half or more: the vertical pass first, straight from the bytes.
        ("lanczos x0.27", LanczosScaleTransform(scale: 0.27)),
        // Eight bilinear samples a step along each row while their blocks lie inside.
        (
            "affine turn 0.17, bilinear",
            AffineTransformFilter(
                transform: AffineMap(a: cos(0.17), b: sin(0.17), c: -sin(0.17), d: cos(0.17), tx: 3, ty: -2), sampling: .bilinear)
        ),
        // Rows that change slowly along the step: the pairs loaded one by one, not gathered.
        (
            "affine turn 0.05 enlarged 1.07, bilinear",
            AffineTransformFilter(
                transform: AffineMap(a: 1.07 * cos(0.05), b: 1.07 * sin(0.05), c: -1.07 * sin(0.05), d: 1.07 * cos(0.05), tx: 1, ty: 2),
                sampling: .bilinear)
        ),
        (
            "perspective, bilinear (stepped in spans)",
            PerspectiveTransform(topLeft: [5, 2], topRight: [140, 10], bottomRight: [120, 45], bottomLeft: [0, 38], sampling: .bilinear)
        ),
        (
            "affine shear and enlargement, bilinear",
            AffineTransformFilter(transform: AffineMap(a: 1.7, b: 0.2, c: 0.4, d: 1.3, tx: 0.25, ty: 0), sampling: .bilinear)
        ),
        ("lanczos x0.5, aspect 1.3", LanczosScaleTransform(scale: 0.5, aspectRatio: 1.3)),
        (
            "sepia matrix with bias",
            ColorMatrix(r: [0.393, 0.769, 0.189, 0], g: [0.349, 0.686, 0.168, 0], b: [0.272, 0.534, 0.131, 0], bias: [0.05, -0.02, 0.1, 0])
        ),
        // The AVX-512 matrix rounds in integers: values far outside 0...1, infinite and NaN
        // must clamp as the baseline's float rounding does (NaN to 0, +inf to the top).
        (
            "matrix far out of range, infinite and NaN",
            ColorMatrix(r: [300, -300, 0.5, 0], g: [1e30, -2, 0, 0], b: [.nan, 1, 0, 0], bias: [-1e30, 0.5, .infinity, 0])
        ),
        ("matrix of steep ramps", ColorMatrix(r: [-7.3, 0, 0, 0], g: [0, 11.1, 0, 0], b: [0, 0, 3.7, 0], bias: [3.5, -5, -1.25, 0])),
        // Entries just inside the integer route's reach (|entry| < 8, 11 fraction bits).
        (
            "matrix at the integer weights' limit",
            ColorMatrix(r: [7.99, -7.99, 0.5, 0], g: [-3.2, 7.5, -3.3, 0], b: [0.001, -0.002, 1, 0], bias: [-0.5, 7.9, -7.9, 0])
        )
    ]

    @Test("dispatch: wide kernels run exactly where the processor has AVX-512")
    func dispatch() {
        // Other suites switch to the baseline process-wide while they compare routes, so
        // `wideVectors` itself may read false at any moment; what it falls back to may not vary.
        #expect(CPUFeatures.wideVectorsAvailable == (CPUFeatures.hasAVX512 && ProcessInfo.processInfo.environment["SFUMATO_SIMD"] != "baseline"))
        #expect(!CPUFeatures.wideVectors || CPUFeatures.wideVectorsAvailable)
        CPUFeatures.withBaselineVectors { #expect(!CPUFeatures.wideVectors) }
        #if arch(x86_64) && os(Linux)
            // The switch must agree with the kernel's own flags (a wrong answer either faults or
            // leaves the fast kernels unused).
            let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
            let flags = Set(info.split(whereSeparator: \.isWhitespace).map(String.init))
            #expect(CPUFeatures.hasAVX512 == CPUFeatures.requiredFlags.allSatisfy(flags.contains))
            #expect(CPUFeatures.requiredFlags.contains("avx512vbmi"))  // the byte permutes
        #endif
    }

    @Test("area average: the channel sums of opaque 8-bit rows (64 bytes a step) are the baseline's, to the last float")
    func areaSums() throws {
        // Floats out, so a sum off by one level would show; 131 pixels a row end inside a step.
        for (imageName, bitmap) in Self.images where bitmap.format == .rgba8 || bitmap.format == .rgb8 {
            for options in [RenderContext.Options(workingSpace: .none), .init(workingSpace: .none, tileWidth: 16, tileHeight: 5)] {
                let context = RenderContext(options: options)
                let recipe = AreaAverage().apply(to: Image(bitmap: bitmap))
                let wide = try context.render(recipe, format: .rgbaFloat32)
                let baseline = try CPUFeatures.withBaselineVectors { try context.render(recipe, format: .rgbaFloat32) }
                #expect(wide.pixel(x: 0, y: 0) == baseline.pixel(x: 0, y: 0), "\(imageName)")
            }
        }
        // Against the definition: the plain sum of every byte of one channel.
        let noise = try Pixels.noise(131, 37, seed: 5)
        var red = 0
        for y in 0..<noise.height { for x in 0..<noise.width { red += Int(noise.bytes(x: x, y: y)[0]) } }
        let mean = try RenderContext(workingSpace: .none).render(
            AreaAverage().apply(to: Image(bitmap: noise)), format: .rgbaFloat32, encoding: .srgb)
        #expect(abs(Double(mean.pixel(x: 0, y: 0).x) - Double(red) / Double(131 * 37 * 255)) < 1e-6)
    }

    @Test("identical bytes, whole renders and small tiles", arguments: filters.indices)
    func identical(filter index: Int) throws {
        let (name, filter) = Self.filters[index]
        for (imageName, bitmap) in Self.images {
            for options in [RenderContext.Options(workingSpace: .none), .init(workingSpace: .none, tileWidth: 16, tileHeight: 5)] {
                let context = RenderContext(options: options)
                let format = bitmap.format
                let wide = try context.render(filter.apply(to: Image(bitmap: bitmap)), format: format)
                let baseline = try CPUFeatures.withBaselineVectors { try context.render(filter.apply(to: Image(bitmap: bitmap)), format: format) }
                #expect(Pixels.maxDifference(wide, baseline) == 0, "\(name) on \(imageName), tiles \(options.tileWidth)x\(options.tileHeight)")
            }
        }
    }
}

/// The recursive Gaussian's float rows (four at a time with AVX-512) give the baseline's floats.
@Suite("AVX-512 recursive Gaussian against the baseline", .serialized)
struct WideRecursiveGaussianTests {
    @Test("identical floats, whole renders and small tiles", arguments: [4.0, 10, 23.5])
    func identicalFloats(sigma: Double) throws {
        let images = GalleryImages.photos.prefix(2).map(\.1) + [Photos.alphaNoise, try Pixels.noise(131, 37, seed: 3)]
        for bitmap in images {
            for edges in [EdgeMode.clamp, .grow] {
                for options in [RenderContext.Options(workingSpace: .linear), .init(workingSpace: .linear, tileWidth: 16, tileHeight: 7)] {
                    let context = RenderContext(options: options)
                    let recipe = GaussianBlur(radius: sigma, edges: edges).apply(to: Image(bitmap: bitmap))
                    let wide = try context.render(recipe, rect: recipe.extent, format: .rgbaFloat32, alpha: .premultiplied)
                    let baseline = try CPUFeatures.withBaselineVectors {
                        try context.render(recipe, rect: recipe.extent, format: .rgbaFloat32, alpha: .premultiplied)
                    }
                    #expect(Pixels.maxDifference(wide, baseline) == 0, "σ \(sigma) \(edges), tiles \(options.tileWidth)x\(options.tileHeight)")
                }
            }
        }
    }
}

/// The power curve (CIGammaAdjust in float) four pixels a step gives the baseline's floats.
@Suite("AVX-512 power curve against the baseline", .serialized)
struct WidePowerTests {
    @Test("identical floats: photos, the PencilController chain, and negative, tiny, huge, infinite and NaN values")
    func identicalFloats() throws {
        // 37 pixels a row: steps of four pixels end inside a row.
        var specials: [Float] = [
            0, -0, .leastNormalMagnitude / 64, -.leastNormalMagnitude / 64, 1e-38, 0.5, -0.5, 1, 2, -3, 1e30, -1e30, .infinity, -.infinity, .nan, 1.414_213_5,
            1.414_213_6
        ]
        var seed: UInt32 = 5
        while specials.count < 4 * 37 * 3 {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            specials.append((Float(seed >> 8) / Float(1 << 24) - 0.25) * 4)
        }
        let odd = try Bitmap(width: 37, height: 3, format: .rgbaFloat32, encoding: .linear, alpha: .premultiplied)
        for (k, v) in specials.enumerated() { odd.row(k / 148).assumingMemoryBound(to: Float.self)[k % 148] = v }
        let context = RenderContext(workingSpace: .linear)
        let photos = try GalleryImages.photos.prefix(2).map {
            try context.render(Image(bitmap: $0.1), format: .rgbaFloat32, alpha: .premultiplied)
        }
        let chains: [[any Filter]] = [[GammaAdjust(power: 1.5)], [GammaAdjust(power: 0.4)], GrayFilterTests.pencilChain]
        for bitmap in photos + [odd] {
            for chain in chains {
                var recipe = Image(bitmap: bitmap)
                for f in chain { recipe = f.apply(to: recipe) }
                let wide = try context.render(recipe, format: .rgbaFloat32, alpha: .premultiplied)
                let baseline = try CPUFeatures.withBaselineVectors { try context.render(recipe, format: .rgbaFloat32, alpha: .premultiplied) }
                #expect(wide.byteCount == baseline.byteCount && memcmp(wide.baseAddress, baseline.baseAddress, wide.byteCount) == 0, "\(chain)")
            }
        }
    }
}

/// Kernels that promise to keep opaque input opaque (`NeighborhoodKernel.keepsOpaque`) let the
/// renderer skip making their 8-bit results straight. A broken promise would leave premultiplied
/// colour in a straight destination; this renders both ways and compares.
@Suite("Opaque results skip the straight-alpha pass only where they are opaque")
struct OpaqueResultTests {
    static let filters: [(String, any Filter)] = [
        ("gaussian 2 clamp", GaussianBlur(radius: 2, edges: .clamp)), ("gaussian 6 transparent", GaussianBlur(radius: 6)),
        ("median 3", Median(diameter: 3)), ("median 7", Median(diameter: 7)), ("laplacian", Laplacian()),
        ("laplacian bias 0.5", Laplacian(bias: 0.5)), ("sobel", Sobel()), ("dilate disc", Dilate.disc(diameter: 7, radius: 3)),
        ("dilate, taps above 0", try! Dilate(width: 3, height: 3, probe: [Double](repeating: 0.1, count: 9))),
        // Alpha 0.9 from opaque input: the straight pass must run.
        ("erode, taps above 0", try! Erode(width: 3, height: 3, probe: [Double](repeating: 0.1, count: 9))),
        ("threshold 0.5", ThresholdBinary(threshold: 0.5)), ("threshold 0.3, maximum 0.7", ThresholdBinary(threshold: 0.3, maximum: 0.7)),
        ("closing 5x5", Closing(width: 5, height: 5)),
        ("emboss with bias", try! Convolution(width: 3, height: 3, weights: [-2, 0, 0, 0, 1, 0, 0, 0, 2], bias: 0.25))
    ]

    @Test("straight destination = premultiplied destination made straight, on opaque photos", arguments: filters.indices)
    func straightMatchesPremultiplied(filter index: Int) throws {
        let (name, filter) = Self.filters[index]
        let context = RenderContext(workingSpace: .none)
        for (imageName, bitmap) in GalleryImages.all {
            let image = filter.apply(to: Image(bitmap: bitmap))
            let rect = image.extent.isInfinite ? bitmap.bounds : image.extent
            let straight = try context.render(image, rect: rect, format: .rgba8, alpha: .straight)
            let premultiplied = try context.render(image, rect: rect, format: .rgba8, alpha: .premultiplied)
            // Compared where alpha is at least 128: making 8-bit premultiplied colour straight
            // loses up to 255 / (2a) levels (2 at most here), more below that.
            var worst = 0, compared = 0
            for y in 0..<straight.height {
                for x in 0..<straight.width {
                    let s = straight.bytes(x: x, y: y), p = premultiplied.bytes(x: x, y: y)
                    let a = Int(p[3])
                    #expect(s[3] == p[3])
                    guard a >= 128 else { continue }
                    compared += 1
                    for c in 0..<3 {
                        let expected = a == 0 ? 0 : min(255, (Int(p[c]) * 255 + a / 2) / a)
                        worst = max(worst, abs(Int(s[c]) - expected))
                    }
                }
            }
            #expect(worst <= 2, "\(name) on \(imageName): straight colour off by \(worst) levels")
            if bitmap.width > 100 { #expect(compared >= straight.width * straight.height / 2) }
        }
    }
}
