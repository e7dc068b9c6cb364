import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// A render writes every byte of its output: `RenderContext.render(_:rect:)` hands out memory
/// that is not cleared first (freed blocks are reused), so a filter that skipped a pixel, or left
/// it to the zero a fresh allocation used to have, would leak stale pixels into the result.
@Suite("renders write their whole output")
struct WholeOutputTests {
    /// Photo crops large enough that the default kernels (a 10-pixel Gaussian reaches 30) have an
    /// inside whose neighbourhoods miss the edges, as well as the edge strips: one opaque (the
    /// 8-bit routes) and one with noisy alpha in its lower part (premultiplied, transparent and
    /// opaque pixels, in float).
    static let sources: [Bitmap] = {
        let colour = [false, true].map { withAlpha in
            let photo = try! Fixtures.photo("chelsea.png")
            let noise = try! Pixels.noise(151, 97, seed: 7, alpha: true)
            return try! Pixels.make(151, 97) { x, y in
                let p = photo.pixel(x: x * 2, y: y * 2)
                return SIMD4(p.x, p.y, p.z, withAlpha && y >= 70 ? noise.pixel(x: x, y: y).w : 1)
            }
        }
        // And the opaque one as Gray8 (the grey routes) and as packed RGB8.
        return colour + [try! RenderContext(workingSpace: .none).render(Image(bitmap: colour[0]), format: .gray8), try! colour[0].packedToRGB8()]
    }()

    /// Renders `image` over `rect` into a zeroed bitmap and into one full of garbage; both must match.
    func expectWhole(_ label: String, _ image: Image, _ rect: Rect, _ ws: WorkingSpace, _ format: PixelFormat) throws {
        let context = RenderContext(workingSpace: ws)
        let clean = try Bitmap(width: rect.width, height: rect.height, format: format, alpha: .straight)
        let dirty = try Bitmap(width: rect.width, height: rect.height, format: format, alpha: .straight)
        memset(dirty.baseAddress, 0xA5, dirty.byteCount)
        try context.render(image, rect: rect, into: clean)
        try context.render(image, rect: rect, into: dirty)
        let same = memcmp(clean.baseAddress, dirty.baseAddress, clean.byteCount) == 0
        #expect(same, "\(label), \(ws), \(format): pixels the render did not write (max difference \(Pixels.maxDifference(clean, dirty)))")
    }

    /// Each source, over its extent and over a rectangle reaching past it on every side
    /// (transparent there), in both working spaces, into 8-bit, float and grey bitmaps.
    func cases(_ body: (Image, Rect, WorkingSpace, PixelFormat) throws -> Void) throws {
        for source in Self.sources {
            let e = source.bounds
            for rect in [e, Rect(x: -6, y: -5, width: e.width + 13, height: e.height + 9)] {
                for ws in [WorkingSpace.none, .linear] {
                    for format in [PixelFormat.rgba8, .rgbaFloat32, .gray8, .rgb8] { try body(Image(bitmap: source), rect, ws, format) }
                }
            }
        }
    }

    @Test("every registered filter, with its defaults (by Core Image name and by short name)")
    func everyFilter() throws {
        for type in FilterRegistry.all {
            let d = type.descriptor
            var images: [String: (Image, String)] = [:]
            let other = Image(bitmap: Self.sources[1]).translatedBy(dx: 3, dy: -2)
            for p in d.parameters where p.kind == .image { images[p.key] = (other, "shifted source") }
            // The two names can differ in defaults (gaussian-blur clamps its edges, CIGaussianBlur does not).
            for name in Set([d.name, d.shortName]) {
                let filter = try FilterRegistry.make(name, images: images)
                try cases { input, rect, ws, format in try expectWhole(name, filter.apply(to: input), rect, ws, format) }
            }
        }
    }

    /// Parameters that take other routes than the defaults (small and large kernels, 8-bit
    /// fast paths, Core Image's growing extent).
    static let variants: [(String, [String: ParameterValue])] = [
        ("CIGaussianBlur", ["radius": .number(2)]), ("CIGaussianBlur", ["radius": .number(0.5)]),
        ("gaussian-blur", ["radius": .number(3), "edges": .text("zero")]), ("gaussian-blur", ["radius": .number(40)]),
        ("median", ["diameter": .number(5)]), ("median", ["diameter": .number(7)]), ("median", ["diameter": .number(21)]),
        ("convolution", ["width": .number(5), "height": .number(3), "weights": .vector((0..<15).map { Double($0 % 4) - 1.5 })]),
        ("dilate", ["width": .number(5), "height": .number(5), "probe": .vector((0..<25).map { $0 % 6 == 0 ? 0 : 1 })]),
        ("area-max", ["width": .number(9), "height": .number(5)]), ("closing", ["width": .number(5), "height": .number(5)]),
        ("sobel", ["grey": .flag(true)]), ("threshold-binary", ["threshold": .number(0.3)])
    ]

    @Test("filters with parameters that take other routes")
    func variants() throws {
        for (name, values) in Self.variants {
            let filter = try FilterRegistry.make(name, values: values)
            try cases { input, rect, ws, format in try expectWhole("\(name) \(values)", filter.apply(to: input), rect, ws, format) }
        }
    }

    @Test("every gallery preset")
    func everyPreset() throws {
        let reference = Image(bitmap: try Pixels.noise(31, 17, seed: 3))
        for preset in GalleryPreset.all {
            try cases { input, rect, ws, format in
                try expectWhole(preset.name, preset.apply(to: input, reference: reference), rect, ws, format)
            }
        }
    }
}
