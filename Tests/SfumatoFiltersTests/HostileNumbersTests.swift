import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Float images can carry NaN, infinities and huge values (a decoded float file, a user's own
/// bitmap, an earlier filter's overflow). Every registered filter takes them into every kind of
/// destination, on both routes, without a trap: whatever it makes of them, the render ends.
@Suite("Every registered filter given NaN, infinite and huge pixels")
struct HostilePixelsTests {
    static let hostile: [Float] = [.nan, .infinity, -.infinity, 1e30, -1e30, 0.5, 1, 0, -0.25, 3]

    /// Every channel, alpha too, walks through the hostile values at its own pace.
    static let source: Bitmap = try! Pixels.make(29, 19, format: .rgbaFloat32, alpha: .premultiplied, encoding: .linear) { x, y in
        let n = hostile.count
        return SIMD4(hostile[(x + y) % n], hostile[(2 * x + y) % n], hostile[(x + 3 * y) % n], hostile[(x * y + 7) % n])
    }

    @Test("no trap, into 8-bit, gray and float destinations, wide and baseline", arguments: FilterRegistry.all.map { $0.descriptor.name })
    func noTrap(_ name: String) throws {
        let type = FilterRegistry.all.first { $0.descriptor.name == name }!
        let image = Image(bitmap: Self.source)
        for filter in try FilterVerifier.samples(type, image: image) {
            let result = filter.apply(to: image)
            let extent = result.extent.intersection(Self.source.bounds)
            let rect = extent.isEmpty ? Self.source.bounds : extent
            for ws in [WorkingSpace.none, .linear] {
                let context = RenderContext(options: .init(workingSpace: ws, tileWidth: 16, tileHeight: 8))
                for (format, alpha) in [
                    (PixelFormat.rgba8, AlphaMode.straight), (.rgba8, .premultiplied), (.gray8, .straight), (.rgbaFloat32, .straight),
                    (.rgb8, .straight)
                ] {
                    let wide = try? context.render(result, rect: rect, format: format, alpha: alpha)
                    let baseline = try? CPUFeatures.withBaselineVectors { try context.render(result, rect: rect, format: format, alpha: alpha) }
                    #expect((wide == nil) == (baseline == nil), "\(name) into \(format) in \(ws): one route failed, the other did not")
                }
            }
        }
    }
}

/// The Swift API takes arguments unchecked (the memberwise initialisers, ``FilterArguments/set(_:_:)``):
/// every number of every registered filter set to NaN, an infinity or ±1e300 in turn, the others at
/// their defaults, and every list given one entry too few and one too many, makes a filter that
/// renders, on both routes, without a trap (unchecked, as the memberwise initialisers take any
/// list), or validated, an error or such a filter.
@Suite("Every registered filter given NaN, infinite and huge arguments")
struct HostileArgumentsTests {
    static let values: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300]
    static let photo = Image(bitmap: try! Pixels.noise(37, 23, seed: 5, alpha: true))
    /// An opaque packed RGB8 source, rendered into RGB8: the packed routes (integer matrix, packed
    /// blends and level scans, expansion and packing).
    static let packed = Image(bitmap: try! Pixels.noise(37, 23, seed: 6).packedToRGB8())

    @Test("no trap and no hang, wide and baseline", arguments: FilterRegistry.all.map { $0.descriptor.name })
    func noTrap(_ name: String) throws {
        let type = FilterRegistry.all.first { $0.descriptor.name == name }!
        let d = type.descriptor
        var images: [String: (Image, String)] = [:]
        for p in d.parameters where p.kind == .image { images[p.key] = (Self.photo.translatedBy(dx: 3, dy: -2), "shifted") }
        let defaults = try d.arguments(values: [:], images: images)
        var cases: [(String, FilterArguments)] = []
        for p in d.parameters where [.number, .integer, .vector].contains(p.kind) {
            for v in Self.values {
                var arguments = defaults
                if p.kind == .vector, case .vector(let list)? = defaults.values[p.key] ?? p.defaultValue {
                    arguments.set(p, .vector([Double](repeating: v, count: max(list.count, 1))))
                } else {
                    arguments.set(p, .number(v))
                }
                cases.append(("\(p.key) = \(v)", arguments))
            }
            if p.kind == .vector, case .vector(let list)? = defaults.values[p.key] ?? p.defaultValue {
                for wrong in [Array(list.dropLast()), list + [0.5]] {
                    var arguments = defaults
                    arguments.set(p, .vector(wrong))
                    if p.count != nil { #expect(throws: SfumatoError.self, "\(name) \(p.key) = \(wrong)") { try type.init(arguments: arguments) } }
                    cases.append(("\(p.key) = \(wrong)", arguments))
                }
            }
        }
        for (what, arguments) in cases {
            for filter in [try? type.init(uncheckedArguments: arguments), try? type.init(arguments: arguments)].compactMap({ $0 }) {
                let result = filter.apply(to: Self.photo)
                let extent = result.extent.intersection(Self.photo.extent)
                let rect = extent.isEmpty || extent.isInfinite ? Self.photo.extent : extent
                for ws in [WorkingSpace.none, .linear] {
                    // Whole renders: small tiles under a blur of the largest radius would each read ~3000^2 pixels.
                    let context = RenderContext(workingSpace: ws)
                    let wide = try? context.render(result, rect: rect, format: .rgba8)
                    let baseline = try? CPUFeatures.withBaselineVectors { try context.render(result, rect: rect, format: .rgba8) }
                    #expect((wide == nil) == (baseline == nil), "\(name) \(what) in \(ws): one route failed, the other did not")
                    let packedResult = filter.apply(to: Self.packed)
                    let packedWide = try? context.render(packedResult, rect: rect, format: .rgb8)
                    let packedBaseline = try? CPUFeatures.withBaselineVectors { try context.render(packedResult, rect: rect, format: .rgb8) }
                    #expect((packedWide == nil) == (packedBaseline == nil), "\(name) \(what) in \(ws), RGB8: one route failed, the other did not")
                    if let packedWide, let packedBaseline { #expect(packedWide == packedBaseline, "\(name) \(what) in \(ws), RGB8: routes differ") }
                }
            }
        }
    }
}

/// The memberwise initialisers a Swift caller uses take any value, as `init(uncheckedArguments:)`
/// does: what the declaration would refuse renders as the doc comments say, never a trap.
@Suite("Public initialisers given lists and sizes out of their declared forms")
struct HostileInitialiserTests {
    static let photo = Image(bitmap: try! Pixels.noise(23, 17, seed: 11))

    func render(_ filter: any Filter) throws -> Bitmap {
        try RenderContext(workingSpace: .none).render(filter.apply(to: Self.photo), rect: Self.photo.extent, format: .rgba8)
    }

    @Test("a colour matrix with a short or long row leaves the image as it is")
    func colorMatrixLists() throws {
        let original = try render(ColorMatrix())
        for matrix in [ColorMatrix(r: [1]), ColorMatrix(g: [0, 1, 0, 0, 0]), ColorMatrix(bias: [])] {
            #expect(Pixels.maxDifference(try render(matrix), original) == 0)
        }
        var short = FilterArguments()
        short.set(ColorMatrix.rVector, .vector([1, 0]))
        #expect(throws: SfumatoError.self) { try ColorMatrix(arguments: short) }
    }

    @Test("a median of an even, tiny or huge diameter renders the nearest declared one, and validate says so")
    func medianDiameters() throws {
        for (diameter, nearest) in [(4, 5), (0, 3), (-7, 3), (1_000_000, 63), (Int.min, 3), (Int.max, 63)] {
            #expect(throws: SfumatoError.self) { try Median(diameter: diameter).validate() }
            #expect(Pixels.maxDifference(try render(Median(diameter: diameter)), try render(Median(diameter: nearest))) == 0, "\(diameter)")
        }
    }

    @Test("a tone curve of no points is the identity; NaN points are left out; any count draws a spline")
    func toneCurvePoints() throws {
        let identity = try render(ToneCurve())
        #expect(Pixels.maxDifference(try render(ToneCurve(points: [])), identity) <= 1)
        #expect(Pixels.maxDifference(try render(ToneCurve(points: [(.nan, 0.3), (0, 0), (1, 1), (0.5, .nan)])), identity) <= 1)
        for levels in [[0.5], [0, 1], [0, 0.2, 0.5, 0.9, 0.95, 1, 1]] {
            let spline = ToneCurve(levels: levels).spline
            #expect(spline.xs.count == levels.count)
            #expect(spline.value(at: 1) == levels.last!)
            _ = try render(ToneCurve(levels: levels))
        }
    }
}
