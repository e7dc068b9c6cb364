import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Grey images: the one-channel path gives the bytes of the four-channel path.
@Suite("Gray8 images through convolution and morphology")
struct GrayFilterTests {
    /// Grey versions of real photos plus synthetic edge cases (1x1, smaller than the kernels,
    /// constant, hard stripes).
    static let images: [(String, Bitmap)] = {
        let none = RenderContext(workingSpace: .none)
        let photos = GalleryImages.photos.map { ($0.0, try! none.render(Image(bitmap: $0.1), format: .gray8)) }
        let synthetic = GalleryImages.synthetic.map { ($0.0, try! none.render(Image(bitmap: $0.1), format: .gray8)) }
        return photos + synthetic
    }()

    static let runs: [Double] = [
        0, 0, 0, 0, 0, 0, 0,
        1, 1, 1, 0, 1, 1, 1,
        1, 0, 0, 0, 0, 0, 1,
        1, 1, 1, 1, 0, 0, 0,
        1, 1, 1, 1, 1, 1, 1
    ]
    static let bumpy = (0..<25).map { Double(($0 * 7) % 5) / 20 }
    static let sharpen = [-0.5, -1, -0.5, -1, 7, -1, -0.5, -1, -0.5]
    /// `filters` over `bitmap`, and over the same values from a float bitmap, which takes the
    /// float route: the reference for the 8-bit and grey routes.
    static func withFloatReference(_ bitmap: Bitmap, _ filters: [any Filter], _ context: RenderContext) throws -> (Image, Image) {
        let floats = try context.render(
            Image(bitmap: bitmap), format: .rgbaFloat32, alpha: .premultiplied,
            encoding: context.workingSpace.encoding)
        var image = Image(bitmap: bitmap), reference = Image(bitmap: floats)
        for f in filters { image = f.apply(to: image); reference = f.apply(to: reference) }
        return (image, reference)
    }

    /// The PencilController app's four colour filters, fused into one pass.
    static let pencilChain: [any Filter] = [
        HueAdjust(angle: 1), ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2),
        ExposureAdjust(ev: 0.5), GammaAdjust(power: 1.5)
    ]

    /// Filters with a grey kernel, with their names, and two that must not run on grey tiles: an
    /// opaque input does not stay opaque through them (grey tiles hold no alpha).
    static let filters: [(String, any Filter)] = [
        ("laplacian", Laplacian()), ("laplacian bias 0.5", Laplacian(bias: 0.5)),
        ("sharpen", try! Convolution(width: 3, height: 3, weights: sharpen)),
        ("emboss", try! Convolution(width: 3, height: 3, weights: [-2, 0, 0, 0, 1, 0, 0, 0, 2])),
        ("sobel", Sobel()), ("sobel on luma", Sobel(grey: true)),
        ("gaussian 2, edges clamped", GaussianBlur(radius: 2, edges: .clamp)), ("gaussian 5, transparent edges", GaussianBlur(radius: 5)),
        ("sobel on weights adding to 1.5 (not grey)", Sobel(grey: true, weights: [0.5, 0.5, 0.5])),
        (
            "emboss 5x3 with bias (alpha 0.25: not grey)",
            try! Convolution(width: 5, height: 3, weights: [-1, -1, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 1, 1], bias: 0.25)
        ),
        ("dilate, every tap above 0 (alpha below 1: not grey)", try! Dilate(width: 3, height: 3, probe: [Double](repeating: 0.1, count: 9))),
        ("dilate disc", Dilate.disc(diameter: 15, radius: 7)),
        ("dilate runs", try! Dilate(width: 7, height: 5, probe: runs)), ("erode runs", try! Erode(width: 7, height: 5, probe: runs)),
        ("dilate bumpy", try! Dilate(width: 5, height: 5, probe: bumpy)), ("erode bumpy", try! Erode(width: 5, height: 5, probe: bumpy)),
        ("area max 1x1", AreaMax(width: 1, height: 1)), ("area max 4x6", AreaMax(width: 4, height: 6)),
        ("area min 15x3", AreaMin(width: 15, height: 3)), ("area max 21x19 (by doubling)", AreaMax(width: 21, height: 19)),
        ("area min 1x7", AreaMin(width: 1, height: 7)),
        ("closing 5x5", Closing(width: 5, height: 5)), ("closing 9x9", Closing(width: 9, height: 9)),
        ("opening 5x5", Opening(width: 5, height: 5))
    ]

    @Test("grey tiles give exactly the bytes of the RGBA path on the same grey image, borders included, into grey and RGBA8 (the Gaussian within a level)")
    func grayEqualsRGBA() throws {
        let none = RenderContext(workingSpace: .none)
        for (name, filter) in GrayFilterTests.filters {
            for (imageName, gray) in GrayFilterTests.images {
                let image = filter.apply(to: Image(bitmap: gray))
                // The grey source must run on grey tiles where it can, or this test would compare
                // the RGBA path with itself.
                #expect(
                    try none.explain(image, format: .gray8).contains("on 8-bit grey tiles") == !name.contains("not grey"),
                    "\(name): grey tiles used or not as expected")
                let expanded = filter.apply(to: Image(bitmap: try gray.expandedToRGBA8()))
                // The same grey as RGBA (R = G = B) through the 4-channel kernels, stored as grey
                // and as straight RGBA8 (where alpha shows).
                // Exact, except the Gaussian: its 8-bit route is fixed point (within a level of the
                // float one), and next to a transparent surround the RGBA route computes in float
                // where the grey one, into grey, stays in 8 bits.
                let tolerance: Float = name.contains("gaussian") ? 1 : 0
                for format in [PixelFormat.gray8, .rgba8] {
                    let got = try none.render(image, format: format), want = try none.render(expanded, format: format)
                    var mismatches = 0, first = (0, 0)
                    for y in 0..<gray.height {
                        for x in 0..<gray.width {
                            let d = got.pixel(x: x, y: y) - want.pixel(x: x, y: y)
                            if (d.replacing(with: -d, where: d .< 0) * 255).max() > tolerance + 0.01 {
                                if mismatches == 0 { first = (x, y) }
                                mismatches += 1
                            }
                        }
                    }
                    #expect(mismatches == 0, "\(name) on \(imageName) into \(format): \(mismatches) pixels differ by more than \(tolerance), first at \(first)")
                }
            }
        }
    }

    @Test(
        "point filters on Gray8 (one lookup a pixel) give the float route's bytes, into grey and RGBA8, in both working spaces",
        arguments: [WorkingSpace.none, .linear])
    func grayPointFilters(ws: WorkingSpace) throws {
        let context = RenderContext(workingSpace: ws)
        let chains: [(String, [any Filter])] = [
            ("gamma", [GammaAdjust(power: 1.5)]), ("exposure", [ExposureAdjust(ev: 0.7)]),
            ("tone curve", [ToneCurve(levels: [0, 0.2, 0.6, 0.8, 1])]), ("threshold", [ThresholdBinary(threshold: 0.4)]),
            ("PencilController chain", GrayFilterTests.pencilChain),
            (
                "sepia with alpha",
                [
                    ColorMatrix(
                        r: [0.393, 0.769, 0.189, 0], g: [0.349, 0.686, 0.168, 0], b: [0.272, 0.534, 0.131, 0],
                        a: [0, 0, 0, 0.6], bias: [0.05, 0, -0.05, 0])
                ]
            )
        ]
        for (name, filters) in chains {
            for (imageName, gray) in GrayFilterTests.images.prefix(2) {
                let (image, reference) = try GrayFilterTests.withFloatReference(gray, filters, context)
                for format in [PixelFormat.gray8, .rgba8] {
                    let got = try context.render(image, format: format), want = try context.render(reference, format: format)
                    #expect(got == want, "\(name) on \(imageName) into \(format), \(ws): max difference \(Pixels.maxDifference(got, want))")
                }
            }
        }
    }

    @Test(
        "point filters from 8-bit RGBA into Gray8 (the 8-bit routes, then luminance) stay within a level of the float route's",
        arguments: [WorkingSpace.none, .linear])
    func rgbaPointFiltersIntoGray(ws: WorkingSpace) throws {
        let context = RenderContext(workingSpace: ws)
        let chains: [(String, [any Filter])] = [
            ("gamma (table)", [GammaAdjust(power: 1.5)]), ("threshold (pixel function)", [ThresholdBinary(threshold: 0.4)]),
            ("PencilController chain (matrix tail)", GrayFilterTests.pencilChain)
        ]
        for (name, filters) in chains {
            for (imageName, rgba) in [GalleryImages.photos[0], GalleryImages.withAlpha[0]] {
                let (image, reference) = try GrayFilterTests.withFloatReference(rgba, filters, context)
                let got = try context.render(image, format: .gray8), want = try context.render(reference, format: .gray8)
                // Threshold's knife edge: a luma at the cut may land either side in the two routes.
                let worst = Pixels.maxDifference(got, want)
                #expect(
                    worst <= 1.01 || name.hasPrefix("threshold") && worst == 255 && Pixels.meanDifference(got, want) < 0.05,
                    "\(name) on \(imageName), \(ws): \(worst) levels")
            }
        }
    }

    @Test("Gray8 histograms count what RGBA8 counts of the same grey; equalization and specification give its bytes")
    func grayHistograms() throws {
        let none = RenderContext(workingSpace: .none)
        let reference = Image(bitmap: GrayFilterTests.images[1].1)
        for (imageName, gray) in GrayFilterTests.images {
            let expanded = try gray.expandedToRGBA8()
            for bins in [256, 64] {
                let got = try none.histogram(of: Image(bitmap: gray), bins: bins)
                let want = try none.histogram(of: Image(bitmap: expanded), bins: bins)
                #expect(got.counts == want.counts && got.pixelCount == want.pixelCount, "\(imageName), \(bins) bins")
            }
            for filter in [HistogramEqualization() as any Filter, HistogramSpecification(reference: reference)] {
                for format in [PixelFormat.gray8, .rgba8] {
                    let got = try none.render(filter.apply(to: Image(bitmap: gray)), format: format)
                    let want = try none.render(filter.apply(to: Image(bitmap: expanded)), format: format)
                    #expect(got == want, "\(type(of: filter)) on \(imageName) into \(format): max difference \(Pixels.maxDifference(got, want))")
                }
            }
        }
    }

    @Test("grey renders in small tiles (32 wide on grey tiles, 8 rows) equal whole-image ones")
    func grayTiles() throws {
        let small = RenderContext(options: .init(workingSpace: .none, tileWidth: 16, tileHeight: 8))
        let whole = RenderContext(options: .init(workingSpace: .none, tileWidth: 65536, tileHeight: 4096))
        let gray = GrayFilterTests.images[0].1
        for (name, filter) in GrayFilterTests.filters.prefix(8) + GrayFilterTests.filters.suffix(4) {
            let image = filter.apply(to: Image(bitmap: gray))
            #expect(try small.explain(image, format: .gray8).contains(name.contains("not grey") ? "tiles of 16x8" : "tiles of 32x8"), "\(name)")
            #expect(try small.render(image, format: .gray8) == (try whole.render(image, format: .gray8)), "\(name)")
        }
    }

    @Test("grey files streamed with keepGray run on grey tiles and give the decoded bitmap's bytes")
    func streamedGrayFiles() throws {
        let gray = GrayFilterTests.images[0].1
        let folder = try Fixtures.temporaryFolder("gray-stream")
        let none = RenderContext(workingSpace: .none)
        let keep = DecodeOptions(keepGray: true)
        for (name, bytes) in [("g.png", try PNG.encode(gray)), ("g.jpg", try JPEG.encode(gray, options: EncodeOptions(quality: 90)))] {
            let path = folder.appendingPathComponent(name).path
            try writeFileAtomically(bytes, to: path)
            let decoded = try ImageIO.read(path: path, options: keep).bitmap
            let (streamed, _) = try ImageIO.open(path: path, options: keep)
            for filter in [Laplacian() as any Filter, Closing(width: 5, height: 5), GammaAdjust(power: 1.5)] {
                let image = filter.apply(to: streamed)
                if !(filter is GammaAdjust) {
                    #expect(try none.explain(image, format: .gray8).contains("on 8-bit grey tiles"), "\(name)")
                }
                #expect(
                    try none.render(image, format: .gray8) == (try none.render(filter.apply(to: Image(bitmap: decoded)), format: .gray8)),
                    "\(name), \(type(of: filter))")
            }
        }
    }

    @Test("the grey Laplacian and disc dilation follow their definitions at every pixel of a grey photo")
    func grayDefinitions() throws {
        let gray = GrayFilterTests.images[0].1
        func g(_ x: Int, _ y: Int) -> Int {
            Int(gray.row(min(max(y, 0), gray.height - 1)).load(fromByteOffset: min(max(x, 0), gray.width - 1), as: UInt8.self))
        }
        let none = RenderContext(workingSpace: .none)
        let lap = try none.render(Laplacian().apply(to: Image(bitmap: gray)), format: .gray8)
        let disc = Dilate.disc(diameter: 15, radius: 7)
        let dil = try none.render(disc.apply(to: Image(bitmap: gray)), format: .gray8)
        var worst = 0
        for y in 0..<gray.height {
            for x in 0..<gray.width {
                let l = min(max(g(x - 1, y) + g(x + 1, y) + g(x, y - 1) + g(x, y + 1) - 4 * g(x, y), 0), 255)
                worst = max(worst, abs(Int(lap.row(y).load(fromByteOffset: x, as: UInt8.self)) - l))
                if x % 7 == 0 && y % 5 == 0 {  // the disc's 225 taps: every 35th pixel
                    var m = 0
                    for j in 0..<15 { for i in 0..<15 where disc.probe[j * 15 + i] == 0 { m = max(m, g(x + i - 7, y + j - 7)) } }
                    worst = max(worst, abs(Int(dil.row(y).load(fromByteOffset: x, as: UInt8.self)) - m))
                }
            }
        }
        #expect(worst == 0, "worst difference \(worst) levels")
    }
}
