import SfumatoFilters
import SfumatoTestSupport
import XCTest

@_spi(DeviceInspection) import SfumatoCore

/// The GPU device where no GPU is needed: the route a render lowers to, the generated kernel
/// text, the module cache, and the fall-back to the CPU. (`scripts/gpu-check` runs the kernels
/// themselves on a machine with an NVIDIA GPU and compares their bytes with the CPU's.)
final class DeviceRouteTests: XCTestCase {
    let pencil: [any Filter] = [
        HueAdjust(angle: 1), ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2), ExposureAdjust(ev: 0.5),
        GammaAdjust(power: 1.5)
    ]

    func photo() throws -> Image { Image(bitmap: try Fixtures.photo("rocket.jpg")) }

    func steps(_ image: Image, _ ws: WorkingSpace) throws -> [String] { try DeviceInspection.steps(image, workingSpace: ws).get() }

    func reason(_ image: Image, _ ws: WorkingSpace) -> String {
        switch DeviceInspection.steps(image, workingSpace: ws) {
        case .success(let s): "a route: \(s)"
        case .failure(let e): e.reason
        }
    }

    func testPencilControllerChainIsOneMatrixKernelInEitherSpace() throws {
        let p = try photo()
        for ws in [WorkingSpace.none, .linear] {
            let s = try steps(pencil.reduce(p) { $1.apply(to: $0) }, ws)
            XCTAssertEqual(s.count, 3, "upload, one kernel, download: \(s)")
            XCTAssertTrue(s[1].contains("sfumato_point (a matrix, then a table per channel)"), "\(ws): \(s)")
        }
    }

    func testGalleryPresetsLowerToTheirDeviceKernels() throws {
        let p = try photo()
        let expected: [String: String] = [
            "gaussian-blur": "sfumato_gaussian", "median": "sfumato_median5", "laplacian": "sfumato_convolve3x3",
            "sobel": "sfumato_sobel", "threshold-binary": "sfumato_threshold", "convolution-emboss": "sfumato_convolve3x3",
            "convolution-sharpen": "sfumato_convolve3x3", "dilate-bokeh": "sfumato_extreme_spans",
            "morphology-closing": "sfumato_extreme_rows + sfumato_extreme_columns", "histogram-equalization": "sfumato_histogram"
        ]
        for preset in GalleryPreset.all where !preset.needsReference && preset.slug != "pass-through" {
            let s = try steps(preset.apply(to: p, reference: nil), .none)
            XCTAssertTrue(s.contains { $0.contains(expected[preset.slug]!) }, "\(preset.slug): \(s)")
        }
    }

    func testEdgesFollowTheFilter() throws {
        let p = try photo()
        XCTAssertTrue(try steps(GaussianBlur(radius: 2, edges: .clamp).apply(to: p), .none)[1].contains("edges clamped"))
        XCTAssertTrue(try steps(GaussianBlur(radius: 2, edges: .zero).apply(to: p), .none)[1].contains("edges transparent"))
    }

    func testWhatStaysOnTheCPUSaysWhy() throws {
        let p = try photo()
        XCTAssertTrue(reason(GaussianBlur(radius: 2, edges: .clamp).apply(to: p), .linear).contains("float tiles"))
        // After a point filter the CPU keeps floats (values past 0...1 survive into the blur).
        XCTAssertTrue(reason(GaussianBlur(radius: 2, edges: .clamp).apply(to: GammaAdjust(power: 2).apply(to: p)), .none).contains("float tiles"))
        XCTAssertTrue(reason(p.cropped(to: Rect(x: 10, y: 10, width: 50, height: 50)), .none).contains("crop"))
        let translucent = try Bitmap(width: 8, height: 8, format: .rgba8, alpha: .straight)
        XCTAssertTrue(reason(Image(bitmap: translucent), .none).contains("transparency"))
        let sixteen = try Bitmap(width: 8, height: 8, format: .rgba16, alpha: .straight)
        XCTAssertTrue(reason(Image(bitmap: sixteen), .none).contains("RGBA16"))
    }

    func testAnIntermediateKeepsTheWholeChainOnTheDevice() throws {
        let p = try photo()
        let adjusted = pencil.reduce(p) { $1.apply(to: $0) }.insertingIntermediate()
        let chain = Median(diameter: 3).apply(to: GaussianBlur(radius: 2, edges: .clamp).apply(to: adjusted))
        let s = try steps(chain, .none)
        XCTAssertEqual(s.count, 5, "upload, the point program, the Gaussian, the median, download: \(s)")
        XCTAssertTrue(s[1].contains("sfumato_point") && s[2].contains("sfumato_gaussian") && s[3].contains("sfumato_median3"), "\(s)")
        // The studio's look: adjustments, then any of the gallery's presets over them, one GPU run.
        for preset in GalleryPreset.all where !preset.needsReference && preset.slug != "pass-through" {
            let s = try steps(preset.apply(to: adjusted, reference: nil), .none)
            XCTAssertTrue(s[1].contains("sfumato_point"), "\(preset.slug): \(s)")
        }
    }

    func testBandsCoverTheImageOnceWithTheirHalos() throws {
        // An opaque white image of an odd height.
        let tall = try Bitmap(width: 640, height: 2001, format: .rgba8, alpha: .straight)
        for y in 0..<tall.height { tall.row(y).initializeMemory(as: UInt8.self, repeating: 255, count: tall.width * 4) }
        let p = Image(bitmap: tall)
        let adjusted = pencil.reduce(p) { $1.apply(to: $0) }.insertingIntermediate()
        let cases: [(Image, halo: Int)] = [
            (pencil.reduce(p) { $1.apply(to: $0) }, 0),
            // At least 3 sigma and the median's 1.
            (Median(diameter: 3).apply(to: GaussianBlur(radius: 2, edges: .clamp).apply(to: adjusted)), 7),
            // Sigma 10 filters even rows and interpolates odd ones from rows 3 away: a halo past the radius.
            (GaussianBlur(radius: 10, edges: .clamp).apply(to: p), 33)
        ]
        for (image, least) in cases {
            let bands = try XCTUnwrap(try DeviceInspection.bands(image, workingSpace: .none))
            XCTAssertGreaterThanOrEqual(bands.count, 2, "\(least)")
            XCTAssertEqual(bands.first?.own.lowerBound, 0)
            XCTAssertEqual(bands.last?.own.upperBound, tall.height)
            for (i, b) in bands.enumerated() {
                if i > 0 { XCTAssertEqual(b.own.lowerBound, bands[i - 1].own.upperBound, "no gap, no overlap") }
                XCTAssertEqual(b.own.lowerBound % 2, 0, "bands start on even rows")
                XCTAssertEqual(b.held.lowerBound % 2, 0)
                XCTAssertLessThanOrEqual(b.held.lowerBound, max(0, b.own.lowerBound - least))
                XCTAssertGreaterThanOrEqual(b.held.upperBound, min(tall.height, b.own.upperBound + least))
                XCTAssertLessThanOrEqual(b.held.upperBound, tall.height)
            }
        }
        // A histogram needs the whole image at once; a small image gains nothing from bands.
        let equalized = GalleryPreset.named("histogram-equalization")!.apply(to: p, reference: nil)
        XCTAssertEqual(try DeviceInspection.bands(equalized, workingSpace: .none)?.isEmpty, true)
        let short = try Bitmap(width: 640, height: 200, format: .rgba8, alpha: .straight)
        for y in 0..<short.height { short.row(y).initializeMemory(as: UInt8.self, repeating: 255, count: short.width * 4) }
        XCTAssertEqual(try DeviceInspection.bands(GammaAdjust(power: 2).apply(to: Image(bitmap: short)), workingSpace: .none)?.isEmpty, true)
        XCTAssertTrue(try steps(cases[1].0, .none)[0].contains("bands"))

        // Device memory bounds the bands: with less than the whole image needs, bands of fewer
        // rows, four streams' worth within the limit, still covering every row once.
        for (image, least) in cases {
            // (Four streams of a band holding sigma 10's halo twice need more than 1 MiB.)
            for budget in least > 30 ? [4 << 20] : [4 << 20, 1 << 20] {
                let bands = try XCTUnwrap(try DeviceInspection.bands(image, workingSpace: .none, deviceBudget: budget))
                let most = bands.map(\.held.count).max() ?? 0
                XCTAssertLessThanOrEqual(min(4, bands.count) * DeviceInspection.deviceBytes(image, rows: most), budget)
                XCTAssertEqual(bands.map(\.own.count).reduce(0, +), tall.height)
                XCTAssertEqual(bands.last?.own.upperBound, tall.height)
            }
        }
        // Even a small image runs in bands when it does not fit whole.
        let shortBands = try DeviceInspection.bands(GammaAdjust(power: 2).apply(to: Image(bitmap: short)), workingSpace: .none, deviceBudget: 1 << 20)
        XCTAssertGreaterThanOrEqual(shortBands?.count ?? 0, 2)
        // A histogram needs the whole image; a halo wider than the budget allows fits nowhere.
        XCTAssertNil(try DeviceInspection.bands(equalized, workingSpace: .none, deviceBudget: 1 << 20))
        XCTAssertNil(try DeviceInspection.bands(cases[2].0, workingSpace: .none, deviceBudget: 64 << 10))
    }

    func testTheTransparentBorderIsRedoneOnTheCPUAndNothingElse() throws {
        let p = try photo()
        let transparent = Median(diameter: 3).apply(to: GaussianBlur(radius: 2, edges: .zero).apply(to: p))
        let full = try RenderContext(options: .init(workingSpace: .none)).render(transparent)
        // A destination the "GPU" left zero: the border comes back as the CPU's, the rest stays.
        let out = try Bitmap(width: full.width, height: full.height, format: .rgba8, alpha: .straight)
        let depth = try XCTUnwrap(try DeviceInspection.redoTransparentBorder(transparent, workingSpace: .none, into: out))
        XCTAssertGreaterThanOrEqual(depth.rows, 7, "3 sigma and the median's 1")
        XCTAssertEqual(depth.rows, depth.columns)
        var border = 0, untouched = 0
        for y in 0..<full.height {
            for x in 0..<full.width {
                let inBorder = y < depth.rows || y >= full.height - depth.rows || x < depth.columns || x >= full.width - depth.columns
                if inBorder {
                    XCTAssertEqual(out.bytes(x: x, y: y), full.bytes(x: x, y: y), "(\(x), \(y))")
                    border += 1
                } else if out.bytes(x: x, y: y) == SIMD4(repeating: 0) {
                    untouched += 1
                }
            }
        }
        XCTAssertEqual(untouched, (full.width - 2 * depth.columns) * (full.height - 2 * depth.rows), "the inside is the GPU's")
        XCTAssertGreaterThan(border, 0)
        // A very small image is border through and through; clamped edges need nothing redone.
        let tiny = try Bitmap(width: 9, height: 3, format: .rgba8, alpha: .straight)
        for y in 0..<3 {
            for x in 0..<9 {
                tiny.row(y).storeBytes(of: SIMD4<UInt8>(UInt8(20 * x), UInt8(80 * y), 200, 255), toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
            }
        }
        let small = GaussianBlur(radius: 10, edges: .zero).apply(to: Image(bitmap: tiny))
        let smallOut = try Bitmap(width: 9, height: 3, format: .rgba8, alpha: .straight)
        try DeviceInspection.redoTransparentBorder(small, workingSpace: .none, into: smallOut)
        XCTAssertTrue(smallOut.rowsEqual(try RenderContext(options: .init(workingSpace: .none)).render(small)))
        let clamped = GaussianBlur(radius: 2, edges: .clamp).apply(to: p)
        XCTAssertNil(try DeviceInspection.redoTransparentBorder(clamped, workingSpace: .none, into: out))
    }

    func testKernelTextDependsOnlyOnTheProgramsShape() throws {
        let p = try photo()
        // Two gammas: two programs of one shape, so one text (a slider move compiles nothing).
        let a = try DeviceInspection.pointKernelTexts(GammaAdjust(power: 1.5).apply(to: p), workingSpace: .none)
        let b = try DeviceInspection.pointKernelTexts(GammaAdjust(power: 0.7).apply(to: p), workingSpace: .none)
        XCTAssertEqual(a.count, 1)
        XCTAssertEqual(a, b)
        let chain = try DeviceInspection.pointKernelTexts(pencil.reduce(p) { $1.apply(to: $0) }, workingSpace: .none)
        let other = try DeviceInspection.pointKernelTexts(HueAdjust(angle: -2).apply(to: p), workingSpace: .none)
        XCTAssertEqual(chain, other, "matrix programs share a text whatever their numbers")
        XCTAssertNotEqual(chain, a)
        for text in a + chain {
            XCTAssertTrue(text.contains(".visible .entry sfumato_point("), text)
            XCTAssertTrue(text.contains(".version 7.0"))
        }
    }

    func testModuleCacheCompilesEachTextOnce() {
        XCTAssertEqual(DeviceInspection.compilations(["a", "b", "a", "a", "b"]), 2)
        XCTAssertEqual(DeviceInspection.compilations([]), 0)
    }

    func testAutoFallsBackToTheCPUAndCUDASaysWhy() throws {
        let p = try photo()
        let recipe = pencil.reduce(p) { $1.apply(to: $0) }
        let cpu = try RenderContext(options: .init(workingSpace: .none)).render(recipe)
        let auto = RenderContext(options: .init(workingSpace: .none, device: .auto))
        let plan = try auto.explain(recipe)
        XCTAssertTrue(plan.contains("gpu: kernel sfumato_point"), plan)
        switch RenderDevice.cuda.availability {
        case .available(let name):
            XCTAssertTrue(plan.contains("device: \(name)"), plan)
        case .unavailable(let why):
            XCTAssertTrue(why.contains("libcuda") || why.contains("GPU"), why)
            XCTAssertTrue(plan.contains("device: CPU ("), plan)
            XCTAssertTrue(try auto.render(recipe).rowsEqual(cpu), "auto without a GPU renders on the CPU")
            XCTAssertThrowsError(try RenderContext(options: .init(workingSpace: .none, device: .cuda)).render(recipe)) { e in
                XCTAssertTrue("\(e)".contains("cannot render on the GPU"), "\(e)")
            }
        }
        // Something the GPU route cannot run still renders with .auto, the CPU's bytes.
        let blur = GaussianBlur(radius: 2, edges: .clamp).apply(to: p)
        let linear = try RenderContext(options: .init(workingSpace: .linear, device: .auto)).render(blur)
        XCTAssertTrue(linear.rowsEqual(try RenderContext(options: .init(workingSpace: .linear)).render(blur)))
    }
}

extension Bitmap {
    /// Whether two bitmaps of one size and format hold the same pixels row by row.
    fileprivate func rowsEqual(_ other: Bitmap) -> Bool {
        guard width == other.width, height == other.height, format == other.format else { return false }
        let n = width * format.bytesPerPixel
        return (0..<height).allSatisfy { memcmp(row($0), other.row($0), n) == 0 }
    }
}
