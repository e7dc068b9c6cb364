import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// Packed RGB8 bitmaps (3 bytes a pixel) give the RGBA8 results' colour through every filter.
@Suite("Packed RGB8 images through every filter")
struct PackedRGBTests {
    /// Two opaque photo crops of one size: the source and, for filters that take a second image,
    /// the other (same extent, so blends of two packed bitmaps take the packed row route).
    static let sources: [Bitmap] = [("chelsea.png", 0), ("coffee.png", 40)].map { name, dx in
        let photo = try! Fixtures.photo(name)
        return try! Pixels.make(151, 97) { x, y in photo.pixel(x: x * 2 + dx, y: y * 2) }
    }

    /// `packed` (RGB8) against the same recipe rendered to RGBA8 (`straight`, `premultiplied`)
    /// and to premultiplied floats in the working space's encoding (`floats`): where alpha is
    /// exactly 1, the RGBA8 colour exactly; elsewhere the colour over black, premultiplied:
    /// in `.none` the premultiplied RGBA8 bytes exactly, in linear light the float colour
    /// (clamped to 0...alpha) encoded, within a level. Returns the two counts of misses.
    static func compare(
        _ packed: Bitmap, straight: Bitmap, premultiplied: Bitmap, floats: Bitmap, _ ws: WorkingSpace
    ) -> (opaque: Int, translucent: Int) {
        var opaque = 0, translucent = 0
        for y in 0..<straight.height {
            let p = packed.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<straight.width {
                let v = floats.pixel(x: x, y: y)
                let q = v.w == 1 || ws == .none ? (v.w == 1 ? straight : premultiplied).bytes(x: x, y: y) : nil
                for c in 0..<3 {
                    let got = p[3 * x + c]
                    if let q {
                        if got != q[c] { if v.w == 1 { opaque += 1 } else { translucent += 1 } }
                    } else {
                        let a = Double(max(v.w, 0)), value = min(max(Double(v[c]), 0), a)
                        if abs(Double(got) - SRGB.encode(value) * 255) > 1 { translucent += 1 }
                    }
                }
            }
        }
        return (opaque, translucent)
    }

    /// `filter` built from `name`, with the other source (packed or not) for its image parameters.
    static func make(_ type: any Filter.Type, _ other: Bitmap) throws -> any Filter {
        var images: [String: (Image, String)] = [:]
        for p in type.descriptor.parameters where p.kind == .image { images[p.key] = (Image(bitmap: other), "the other photo") }
        return try FilterRegistry.make(type.descriptor.name, images: images)
    }

    @Test(
        "every registered filter: RGB8 in and out gives the RGBA8 render's colour, in both working spaces, whole and in small tiles",
        arguments: FilterRegistry.all.indices)
    func everyFilter(_ index: Int) throws {
        let type = FilterRegistry.all[index]
        let (source, other) = (Self.sources[0], Self.sources[1])
        let (packedSource, packedOther) = (try source.packedToRGB8(), try other.packedToRGB8())
        let rgbaRecipe = try Self.make(type, other).apply(to: Image(bitmap: source))
        let packedRecipe = try Self.make(type, packedOther).apply(to: Image(bitmap: packedSource))
        let e = rgbaRecipe.extent
        let rect = e.isInfinite || e.contains(source.bounds) ? source.bounds : e
        for ws in [WorkingSpace.none, .linear] {
            for options in [RenderContext.Options(workingSpace: ws), .init(workingSpace: ws, tileWidth: 16, tileHeight: 5)] {
                let context = RenderContext(options: options)
                let packed = try context.render(packedRecipe, rect: rect, format: .rgb8)
                let (opaque, translucent) = Self.compare(
                    packed, straight: try context.render(rgbaRecipe, rect: rect),
                    premultiplied: try context.render(rgbaRecipe, rect: rect, alpha: .premultiplied),
                    floats: try context.render(rgbaRecipe, rect: rect, format: .rgbaFloat32, alpha: .premultiplied, encoding: ws.encoding), ws)
                let label = "\(type.descriptor.name), \(ws), tiles \(options.tileWidth)x\(options.tileHeight)"
                #expect(opaque == 0, "\(label): \(opaque) opaque channels differ from RGBA8")
                #expect(translucent == 0, "\(label): \(translucent) translucent channels off the colour over black")
            }
        }
    }

    @Test("an RGBA8 source into RGB8 and an RGB8 source into RGBA8, copied and through a matrix, a table and a blur")
    func acrossFormats() throws {
        let source = Self.sources[0], packed = try source.packedToRGB8()
        let filters: [any Filter] = [
            ColorMatrix(r: [0.393, 0.769, 0.189, 0], g: [0.349, 0.686, 0.168, 0], b: [0.272, 0.534, 0.131, 0], bias: [0.05, -0.02, 0.1, 0]),
            GammaAdjust(power: 1.5), GaussianBlur(radius: 2, edges: .clamp)
        ]
        for ws in [WorkingSpace.none, .linear] {
            let context = RenderContext(workingSpace: ws)
            #expect(try context.render(Image(bitmap: source), format: .rgb8) == packed)
            #expect(try context.render(Image(bitmap: packed)) == source)
            for filter in filters {
                let rgba = try context.render(filter.apply(to: Image(bitmap: source)))
                #expect(try context.render(filter.apply(to: Image(bitmap: source)), format: .rgb8) == rgba.packedToRGB8(), "\(filter) \(ws) to RGB8")
                #expect(try context.render(filter.apply(to: Image(bitmap: packed))) == rgba, "\(filter) \(ws) from RGB8")
            }
        }
    }

    @Test("a translucent RGBA8 source into RGB8 through the 8-bit point routes: the premultiplied RGBA8 colour")
    func translucentSource() throws {
        let photo = Self.sources[0]
        let noise = try Pixels.noise(151, 97, seed: 11, alpha: true)
        // Opaque rows first, then every alpha: runs of opaque pixels and stops in both routes.
        let source = try Pixels.make(151, 97) { x, y in
            let p = photo.pixel(x: x, y: y)
            return SIMD4(p.x, p.y, p.z, y < 40 ? 1 : noise.pixel(x: x, y: y).w)
        }
        let filters: [any Filter] = [
            GammaAdjust(power: 1.5), SepiaTone(intensity: 1), MaximumComponent(), ColorInvert(),
            ColorMatrix(r: [7.99, -7.99, 0.5, 0], g: [-3.2, 7.5, -3.3, 0], b: [0.001, -0.002, 1, 0], bias: [-0.5, 7.9, -7.9, 0])
        ]
        let context = RenderContext(workingSpace: .none)
        for filter in filters {
            let image = filter.apply(to: Image(bitmap: source))
            let premultiplied = try context.render(image, alpha: .premultiplied)
            let packed = try context.render(image, format: .rgb8)
            var misses = 0
            for y in 0..<source.height {
                let p = packed.row(y).assumingMemoryBound(to: UInt8.self)
                for x in 0..<source.width {
                    let q = premultiplied.bytes(x: x, y: y)
                    for c in 0..<3 where abs(Int(p[3 * x + c]) - Int(q[c])) > 1 { misses += 1 }
                }
            }
            #expect(misses == 0, "\(filter): \(misses) channels off the premultiplied colour")
        }
    }

    @Test("colour matrices on 8-bit pixels: each level within one of the exact product, RGB8 as RGBA8")
    func matrixLevels() throws {
        // Every level of each channel against the others, and photo pixels.
        let ramp = try Pixels.make(256, 256) { x, y in SIMD4(Float(x) / 255, Float(y) / 255, Float((x * 7 + y * 13) % 256) / 255, 1) }
        let matrices: [(String, [[Double]])] = [
            ("sepia with bias", [[0.393, 0.769, 0.189, 0.05], [0.349, 0.686, 0.168, -0.02], [0.272, 0.534, 0.131, 0.1]]),
            ("identity", [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]),
            ("entries near 8 (11 fraction bits)", [[7.99, -7.99, 0.5, -0.5], [-3.2, 7.5, -3.3, 7.9], [0.001, -0.002, 1, -7.9]]),
            ("small entries (14 fraction bits)", [[0.3, 0.2, 0.1, 0.01], [-0.1, 0.9, 0.2, 0], [0.5, 0.5, -0.9, 0.33]]),
            ("past the integer route (float)", [[9, -8.5, 0.2, 0], [0, 1, 0, 0], [0, 0, 1, 0]])
        ]
        let context = RenderContext(workingSpace: .none)
        for image in [ramp, Self.sources[0]] {
            for (name, m) in matrices {
                // Each vector is the row of its output channel (R' = r · (R, G, B, A)).
                let f = ColorMatrix(
                    r: [m[0][0], m[0][1], m[0][2], 0], g: [m[1][0], m[1][1], m[1][2], 0], b: [m[2][0], m[2][1], m[2][2], 0],
                    bias: [m[0][3], m[1][3], m[2][3], 0])
                let out = try context.render(f.apply(to: Image(bitmap: image)))
                #expect(try context.render(f.apply(to: Image(bitmap: image.packedToRGB8())), format: .rgb8) == out.packedToRGB8(), "\(name)")
                var worst = 0.0
                for y in 0..<image.height {
                    for x in 0..<image.width {
                        let p = image.bytes(x: x, y: y), q = out.bytes(x: x, y: y)
                        for c in 0..<3 {
                            let exact = m[c][0] * Double(p[0]) + m[c][1] * Double(p[1]) + m[c][2] * Double(p[2]) + 255 * m[c][3]
                            worst = max(worst, abs(Double(q[c]) - min(max(exact, 0), 255)))
                        }
                    }
                }
                #expect(worst < 1, "\(name): a level \(worst) from the exact product")
            }
        }
    }

    @Test("streamed packed JPEG rows give the packed bitmap's bytes")
    func streamed() throws {
        let folder = try Fixtures.temporaryFolder("packed-stream")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("photo.jpg").path
        try ImageIO.write(Self.sources[0], to: path)
        let packing = DecodeOptions(packRGB: true)
        let bitmap = try ImageIO.read(path: path, options: packing).bitmap
        #expect(bitmap.format == .rgb8)
        let filters: [any Filter] = [
            SepiaTone(intensity: 1), ExposureAdjust(ev: 0.5), GaussianBlur(radius: 2, edges: .clamp), AreaAverage(), Median(diameter: 5)
        ]
        for ws in [WorkingSpace.none, .linear] {
            let context = RenderContext(workingSpace: ws)
            for filter in filters {
                let rows = filter.apply(to: Image(rows: try JPEGRowSource(path: path, options: packing)))
                let whole = filter.apply(to: Image(bitmap: bitmap))
                let rect = whole.extent
                #expect(try context.render(rows, rect: rect, format: .rgb8) == context.render(whole, rect: rect, format: .rgb8), "\(filter) \(ws)")
            }
        }
    }

    @Test("sizes: an RGB8 bitmap past the pixel limit is refused before allocating; empty and one-pixel renders work")
    func sizes() throws {
        #expect(throws: SfumatoError.self) { try Bitmap(width: 1 << 20, height: 1 << 20, format: .rgb8) }
        #expect(throws: SfumatoError.self) { try Bitmap(width: 0, height: 5, format: .rgb8) }
        let dot = try Pixels.noise(1, 1, seed: 2).packedToRGB8()
        let context = RenderContext(workingSpace: .none)
        for filter in [SepiaTone(intensity: 1), AreaAverage(), GaussianBlur(radius: 2, edges: .clamp)] as [any Filter] {
            let image = filter.apply(to: Image(bitmap: dot))
            #expect(try context.render(image, rect: Rect(width: 1, height: 1), format: .rgb8).width == 1)
        }
        #expect(throws: SfumatoError.self) { try context.render(Image(bitmap: dot), rect: Rect(width: 0, height: 0), format: .rgb8) }
    }
}
