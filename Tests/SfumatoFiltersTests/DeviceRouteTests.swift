import SfumatoFilters
import SfumatoTestSupport
import XCTest

@testable import SfumatoCore

/// The GPU device where no GPU is needed: the route a render lowers to, the generated kernel
/// text, the module cache, and the fall-back to the CPU. (`scripts/gpu-check` runs the kernels
/// themselves on a machine with an NVIDIA GPU and compares their bytes with the CPU's.)
final class DeviceRouteTests: XCTestCase {
    let pencil: [any Filter] = [
        HueAdjust(angle: 1), ColorControls(saturation: 2, brightness: 0.1, contrast: 1.2), ExposureAdjust(ev: 0.5),
        GammaAdjust(power: 1.5)
    ]

    func photo() throws -> Image {
        Image(bitmap: try Fixtures.photo("rocket.jpg"))
    }

    func route(_ image: Image, _ ws: WorkingSpace) throws -> _CUDARoute {
        let plan = try _Plan(image, workingSpace: ws, fuse: true)
        return try _CUDARoute.lower(plan, rect: image.extent, tileWidth: 1024)
    }

    func unsupported(_ image: Image, _ ws: WorkingSpace) throws -> String {
        let plan = try _Plan(image, workingSpace: ws, fuse: true)
        do {
            _ = try _CUDARoute.lower(plan, rect: image.extent, tileWidth: 1024)
            return ""
        } catch {
            return error.description
        }
    }

    func testPencilControllerChainIsOneFixedPointKernelInEitherSpace() throws {
        let p = try photo()
        for ws in [WorkingSpace.none, .linear] {
            let r = try route(pencil.reduce(p) { $1.apply(to: $0) }, ws)
            XCTAssertEqual(r.steps.count, 1, "\(ws)")
            guard case .point(let exec)? = r.steps.first else { return XCTFail("\(ws): \(r.steps)") }
            XCTAssertNil(exec.lut, "the chain mixes channels")
            XCTAssertNotNil(exec.tailFixed, "\(ws): the fixed-point matrix route")
        }
    }

    func testGalleryPresetsLowerToTheirDeviceKernels() throws {
        let p = try photo()
        let expected: [String: String] = [
            "gaussian-blur": "gaussian", "median": "median", "dilate-bokeh": "probe", "morphology-closing": "rectangle",
            "histogram-equalization": "histogram", "laplacian": "convolution", "sobel": "sobel", "convolution-emboss": "convolution",
            "convolution-sharpen": "convolution"
        ]
        for preset in GalleryPreset.all where expected[preset.slug] != nil {
            let r = try route(preset.apply(to: p, reference: nil), .none)
            let kinds = r.steps.map { step -> String in
                switch step {
                case .point: "point"
                case .pixel: "pixel"
                case .histogram: "histogram"
                case .neighborhood(let k, _, _):
                    switch k {
                    case .gaussian: "gaussian"
                    case .median: "median"
                    case .rectangle: "rectangle"
                    case .probe: "probe"
                    case .convolution: "convolution"
                    case .sobel: "sobel"
                    }
                }
            }
            XCTAssertTrue(kinds.contains(expected[preset.slug]!), "\(preset.slug): \(kinds)")
        }
    }

    func testEdgesFollowTheFilter() throws {
        let p = try photo()
        let clamped = try route(GaussianBlur(radius: 2, edges: .clamp).apply(to: p), .none)
        let transparent = try route(GaussianBlur(radius: 2, edges: .zero).apply(to: p), .none)
        guard case .neighborhood(_, let c1, _)? = clamped.steps.first, case .neighborhood(_, let c2, _)? = transparent.steps.first else {
            return XCTFail("\(clamped.steps) \(transparent.steps)")
        }
        XCTAssertTrue(c1)
        XCTAssertFalse(c2)
    }

    func testWhatStaysOnTheCPUSaysWhy() throws {
        let p = try photo()
        XCTAssertTrue(try unsupported(GaussianBlur(radius: 2, edges: .clamp).apply(to: p), .linear).contains("float tiles"))
        // After a point filter the CPU keeps floats (values past 0...1 survive into the blur).
        XCTAssertTrue(try unsupported(GaussianBlur(radius: 2, edges: .clamp).apply(to: GammaAdjust(power: 2).apply(to: p)), .none).contains("float tiles"))
        XCTAssertTrue(try unsupported(p.cropped(to: Rect(x: 10, y: 10, width: 50, height: 50)), .none).contains("crop"))
        let translucent = try Bitmap(width: 8, height: 8, format: .rgba8, alpha: .straight)
        XCTAssertTrue(try unsupported(Image(bitmap: translucent), .none).contains("transparency"))
        let sixteen = try Bitmap(width: 8, height: 8, format: .rgba16, alpha: .straight)
        XCTAssertTrue(try unsupported(Image(bitmap: sixteen), .none).contains("RGBA16"))
    }

    func testKernelTextDependsOnlyOnTheProgramsShape() throws {
        let a = _PointKernelPTX.text(for: [.matrixTail]), b = _PointKernelPTX.text(for: [.matrixTail])
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, _PointKernelPTX.text(for: [.table]))
        for text in [a, _PointKernelPTX.text(for: [.table])] {
            XCTAssertTrue(text.contains(".visible .entry sfumato_point("))
            XCTAssertTrue(text.contains(".version 7.0"))
            XCTAssertFalse(text.contains("nan") || text.contains("inf"), "no numbers of the program in the text")
        }
        // Two gammas give two programs with the same shape, so the same text: no recompilation.
        let p = try photo()
        let g1 = try route(GammaAdjust(power: 1.5).apply(to: p), .none), g2 = try route(GammaAdjust(power: 0.7).apply(to: p), .none)
        guard case .point(let e1)? = g1.steps.first, case .point(let e2)? = g2.steps.first else { return XCTFail() }
        XCTAssertNotNil(e1.lut)
        XCTAssertNotNil(e2.lut)
        XCTAssertNotEqual(Array(UnsafeBufferPointer(start: e1.lut!, count: 768)), Array(UnsafeBufferPointer(start: e2.lut!, count: 768)))
    }

    func testModuleCacheCompilesEachTextOnce() {
        let cache = _ModuleCache<Int>()
        var compiles = 0
        for text in ["a", "b", "a", "a", "b"] {
            _ = cache.module(for: text) { t in
                compiles += 1
                return t.count
            }
        }
        XCTAssertEqual(compiles, 2)
        XCTAssertEqual(cache.compiled, 2)
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
            let bytes = try auto.render(recipe)
            XCTAssertEqual(cpu.rowsEqual(bytes), true, "auto without a GPU renders on the CPU")
            XCTAssertThrowsError(try RenderContext(options: .init(workingSpace: .none, device: .cuda)).render(recipe)) { e in
                XCTAssertTrue("\(e)".contains("cannot render on the GPU"), "\(e)")
            }
        }
        // Something the GPU route cannot run still renders with .auto.
        let linear = try RenderContext(options: .init(workingSpace: .linear, device: .auto)).render(GaussianBlur(radius: 2, edges: .clamp).apply(to: p))
        XCTAssertEqual(linear.width, p.extent.width)
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
