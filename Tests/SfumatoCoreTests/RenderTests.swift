import Foundation
import SfumatoTestSupport
import Testing
import SfumatoCore

/// A small set of kernels and stages for exercising the renderer without the filter module.
struct BoxBlur: NeighborhoodKernel {
    let r: Int
    var name: String { "box \(r)" }
    func outputExtent(forInput e: Rect) -> Rect { e.insetBy(dx: -r, dy: -r) }
    func regionOfInterest(for o: Rect) -> Rect { o.insetBy(dx: -r, dy: -r) }
    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let n = Float((2 * r + 1) * (2 * r + 1))
        for y in output.rect.y..<output.rect.maxY {
            for x in output.rect.x..<output.rect.maxX {
                var acc = SIMD4<Float>()
                for dy in -r...r { for dx in -r...r { acc += input.pointer(x: x + dx, y: y + dy).pointee } }
                output.pointer(x: x, y: y).pointee = acc / n
            }
        }
    }
}

struct Square: ChannelCurve {
    var name: String { "square" }
    func apply(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) { for i in 0..<count { p[i] = p[i] * p[i] } }
}

func scale(_ k: Float) -> PointStage {
    .linear(Matrix4(columns: (SIMD4(k, 0, 0, 0), SIMD4(0, k, 0, 0), SIMD4(0, 0, k, 0), SIMD4(0, 0, 0, 1))))
}

func mix() -> PointStage {
    .linear(Matrix4(rows: [[0.5, 0.3, 0.2, 0.05], [0.1, 0.8, 0.1, 0], [0.2, 0.2, 0.6, -0.02], [0, 0, 0, 1]]))
}

/// A recipe with every kind of node.
func busyRecipe(_ photo: Bitmap) -> Image {
    let base = Image(bitmap: photo)
    let blurred = base.clampedToExtent().applying(BoxBlur(r: 2)).cropped(to: base.extent)
    let points = blurred.applying([mix()], name: "mix").applying([.curve(Square())], name: "square").applying([scale(1.3)], name: "gain")
    let moved = points.translatedBy(dx: 7, dy: -3).cropped(to: base.extent)
    let small = Image(bitmap: photo).resized(width: photo.width / 3, height: photo.height / 3)
    return moved.blended(with: small, by: OverBlend()).cropped(to: base.extent)
}

struct OverBlend: BlendKernel {
    var name: String { "over" }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground.union(background) }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count { output[i] = foreground[i] * 0.5 + background[i] * 0.5 }
    }
}

@Suite("Renderer")
struct RenderTests {
    let photo: Bitmap

    init() throws { photo = try Fixtures.photo("chelsea.png") }

    func context(
        tile: Int = 1024, strip: Int = 64, threads: Int = defaultThreadCount, fusion: Bool = true,
        ws: WorkingSpace = .linear
    ) -> RenderContext {
        RenderContext(options: .init(workingSpace: ws, threads: threads, tileWidth: tile, tileHeight: strip, fusion: fusion))
    }

    @Test("tiled and untiled renders are identical", arguments: [PixelFormat.rgba8, .rgbaFloat32])
    func tiling(format: PixelFormat) throws {
        let recipe = busyRecipe(photo)
        let whole = try context(tile: 65536, strip: 4096, threads: 1).render(recipe, format: format)
        let tiled = try context(tile: 17, strip: 5).render(recipe, format: format)
        #expect(whole == tiled)
    }

    @Test("large plain copies (stored past the cache) give the source's bytes, whole and cropped at odd offsets", arguments: [PixelFormat.rgba8, .rgb8])
    func largeCopies(format: PixelFormat) throws {
        // 2051x1403 is 11.5 MB of RGBA8 and 8.6 MB packed; the crop copies rows with unaligned ends.
        let noise = try Pixels.noise(2051, 1403, seed: 21)
        let source = format == .rgb8 ? try noise.packedToRGB8() : noise
        let none = context(ws: .none)
        #expect(try none.render(Image(bitmap: source), format: format) == source)
        let rect = Rect(x: 3, y: 7, width: 2041, height: 1393)
        let crop = try none.render(Image(bitmap: source), rect: rect, format: format)
        var same = true
        let bpp = format.bytesPerPixel
        for y in 0..<rect.height where memcmp(crop.row(y), source.row(y + rect.y) + bpp * rect.x, bpp * rect.width) != 0 { same = false }
        #expect(same)
    }

    @Test("a sub-rectangle rendered alone equals that part of a full render")
    func subRectangle() throws {
        let recipe = busyRecipe(photo)
        let full = try context().render(recipe, format: .rgbaFloat32)
        #expect(recipe.extent == Rect(x: 0, y: 0, width: 451, height: 297))
        for r in [
            Rect(x: 0, y: 0, width: 40, height: 30), Rect(x: 100, y: 77, width: 123, height: 91),
            Rect(x: 400, y: 247, width: 51, height: 50), Rect(x: 3, y: 296, width: 448, height: 1)
        ] {
            let part = try context(tile: 32, strip: 8).render(recipe, rect: r, format: .rgbaFloat32)
            for y in 0..<r.height {
                for x in 0..<r.width {
                    #expect(part.pixel(x: x, y: y) == full.pixel(x: r.x + x, y: r.y + y))
                }
            }
        }
    }

    @Test("fused and unfused point chains agree within 1e-5 in float", arguments: [WorkingSpace.linear, .none])
    func fusion(ws: WorkingSpace) throws {
        let recipe = Image(bitmap: photo).applying([mix()], name: "a").applying([scale(0.8)], name: "b")
            .applying([.curve(Square())], name: "c").applying([mix()], name: "d").applying([scale(1.1)], name: "e")
        let fused = try context(fusion: true, ws: ws).render(recipe, format: .rgbaFloat32, alpha: .premultiplied)
        let unfused = try context(fusion: false, ws: ws).render(recipe, format: .rgbaFloat32, alpha: .premultiplied)
        #expect(Pixels.maxDifference(fused, unfused) < 1e-5)
        let plan = try context(fusion: true, ws: ws).explain(recipe)
        #expect(plan.contains("matrix[a + b]"))
        #expect(plan.contains("matrix[d + e]"))
    }

    @Test("any thread count gives the same pixels")
    func threads() throws {
        let recipe = busyRecipe(photo)
        let one = try context(threads: 1).render(recipe)
        for t in [2, 3, 8] { #expect(try context(strip: 8, threads: t).render(recipe) == one) }
    }

    @Test("streaming to a sink gives the same rows as rendering to memory")
    func sink() throws {
        final class Collect: RowSink {
            var data: [UInt8] = []
            func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
                data += Array(UnsafeRawBufferPointer(start: rows, count: rowBytes * count))
            }
        }
        let recipe = busyRecipe(photo)
        let memory = try context().render(recipe)
        let c = Collect()
        try context(strip: 7).render(recipe, rect: recipe.extent, to: c)
        #expect(c.data == Array(UnsafeRawBufferPointer(start: memory.baseAddress, count: memory.byteCount)))
    }

    @Test("a strip-encoding sink encodes every strip, a multiple of its rows tall, and takes them in order")
    func encodingSink() throws {
        final class Reverse: StripEncodingSink {
            let stripRowMultiple = 5
            var data: [UInt8] = []
            var strips: [(index: Int, count: Int)] = []
            let encoded = NSLock()
            var encodings = 0
            func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
                Issue.record("a render wrote rows to a strip-encoding sink")
            }
            // An encoding that loses nothing and cannot be mistaken for the rows: bytes reversed.
            func encode(strip index: Int, rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws -> [UInt8] {
                encoded.withLock { encodings += 1 }
                return UnsafeRawBufferPointer(start: rows, count: rowBytes * count).reversed()
            }
            func write(encoded: [UInt8], strip index: Int, count: Int) throws {
                strips.append((index, count))
                data += encoded.reversed()
            }
        }
        let recipe = busyRecipe(photo)
        let memory = try context().render(recipe)
        let sink = Reverse()
        try context(strip: 7, threads: 3).render(recipe, rect: recipe.extent, to: sink)
        #expect(sink.strips.map(\.index) == Array(0..<sink.strips.count))
        #expect(sink.strips.dropLast().allSatisfy { $0.count == 10 }, "strips of 7 rows rounded up to 10")
        #expect(sink.strips.reduce(0) { $0 + $1.count } == recipe.extent.height && sink.encodings == sink.strips.count)
        #expect(sink.data == Array(UnsafeRawBufferPointer(start: memory.baseAddress, count: memory.byteCount)))
        // A finished bitmap's rows (as the GPU route hands them over) take the same way.
        let again = Reverse()
        try context(strip: 7, threads: 3).write(memory, to: again)
        #expect(again.strips.map(\.index) == Array(0..<again.strips.count) && again.strips.count > 3)
        #expect(again.strips.dropLast().allSatisfy { $0.count == 10 } && again.encodings == again.strips.count)
        #expect(again.data == sink.data)
        // One thread: the same strips, one after the other.
        let one = Reverse()
        try context(strip: 7, threads: 1).write(memory, to: one)
        #expect(one.data == sink.data && one.strips.map(\.index) == Array(0..<one.strips.count))
        // A sink that fails while encoding a strip, or while taking one, stops the hand-over with
        // its error, on any number of threads (no hang, no strip after the failure written).
        final class Failing: StripEncodingSink {
            let failEncoding: Bool
            let stripRowMultiple = 3
            var taken = 0
            init(failEncoding: Bool) { self.failEncoding = failEncoding }
            func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {}
            func encode(strip index: Int, rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws -> [UInt8] {
                if failEncoding && index == 2 { throw SfumatoError.io("strip 2 cannot be encoded") }
                return [UInt8(truncatingIfNeeded: index)]
            }
            func write(encoded: [UInt8], strip index: Int, count: Int) throws {
                if !failEncoding && index == 2 { throw SfumatoError.io("strip 2 cannot be written") }
                taken += 1
            }
        }
        for failEncoding in [true, false] {
            for threads in [1, 3] {
                let failing = Failing(failEncoding: failEncoding)
                #expect(throws: SfumatoError.self) { try context(strip: 7, threads: threads).write(memory, to: failing) }
                #expect(failing.taken <= 2, "strips after the failure reached the sink: \(failing.taken)")
            }
        }
    }

    @Test("a streamed source renders like the same pixels in memory, also when read out of order")
    func streamedSource() throws {
        let source = MemoryRows(photo)
        let streamed = Image(rows: source)
        let viaStream = try context(strip: 9).render(busyRecipe(photo).blended(with: streamed, by: OverBlend()).cropped(to: streamed.extent))
        let viaMemory = try context(strip: 9).render(busyRecipe(photo).blended(with: Image(bitmap: photo), by: OverBlend()).cropped(to: streamed.extent))
        #expect(viaStream == viaMemory)
        // A kernel reaching far up and down cannot stream: the renderer falls back to decoding whole.
        let tall = streamed.applying(ShiftUp(d: 250)).cropped(to: streamed.extent)
        let expected = Image(bitmap: photo).applying(ShiftUp(d: 250)).cropped(to: streamed.extent)
        #expect(try context(strip: 8).render(tall) == context(strip: 8).render(expected))
        #expect(source.readers >= 2)
    }

    @Test("a streamed source read by many threads at once, in short strips, gives the pixels in memory")
    func streamedSourceContended() throws {
        // Workers take turns decoding and copy rows meanwhile; decoding never overwrites rows being copied.
        let recipe = { (source: Image) in busyRecipe(photo).blended(with: source, by: OverBlend()).cropped(to: source.extent) }
        let expected = try context(strip: 3).render(recipe(Image(bitmap: photo)))
        for threads in [3, 8] {
            let source = MemoryRows(photo)
            let got = try context(strip: 3, threads: threads).render(recipe(Image(rows: source)))
            #expect(got == expected, "\(threads) threads")
            #expect(source.readers == 1, "\(threads) threads: read once, in order")
        }
    }

    @Test("8-bit stored values pass through an identity recipe unchanged", arguments: [WorkingSpace.linear, .none])
    func identity(ws: WorkingSpace) throws {
        let noise = try Pixels.noise(64, 48, alpha: true)
        let out = try context(ws: ws).render(Image(bitmap: noise).applying([scale(1)], name: "id"))
        // Straight alpha through premultiplied floats: colour of alpha-0 pixels is lost, and
        // low-alpha colours may move by the rounding of the premultiplied form.
        for y in 0..<48 {
            for x in 0..<64 {
                let a = noise.bytes(x: x, y: y), b = out.bytes(x: x, y: y)
                #expect(a.w == b.w)
                if a.w == 255 { #expect(a == b) }
            }
        }
    }

    @Test("histograms count levels")
    func histogram() throws {
        let b = try Pixels.make(10, 10) { x, _ in SIMD4(Float(x) / 255, 1, 0, 1) }
        let h = try RenderContext(workingSpace: .none).histogram(of: Image(bitmap: b))
        #expect(h.pixelCount == 100)
        for k in 0..<10 { #expect(h.counts[0][k] == 10) }
        #expect(h.counts[1][255] == 100)
        #expect(h.counts[2][0] == 100)
    }

    @Test("large bitmaps (mapped, huge pages) start transparent and hold every byte", arguments: [2_900, 4_096])
    func largeBitmaps(width: Int) throws {
        // 2900x800 RGBA float is 37 MB (not a multiple of 2 MB); 4096x800 is exactly 25 huge pages.
        let b = try Bitmap(width: width, height: 800, format: .rgbaFloat32)
        let floats = b.baseAddress.assumingMemoryBound(to: Float.self)
        let count = b.byteCount / 4
        #expect((0..<count).allSatisfy { floats[$0] == 0 })
        for i in stride(from: 0, to: count, by: 1_021) { floats[i] = Float(i) }
        floats[count - 1] = 7
        let c = try b.copy()
        #expect(c == b)
        #expect(c.pixel(x: width - 1, y: 799).w == 7)
    }

    @Test("a large render's output may reuse freed memory and still comes out whole")
    func reusedOutputs() throws {
        // 2100x1100 RGBA8 is 9.2 MB: mapped, and kept for the next render of that size when freed.
        let rect = Rect(width: 2_100, height: 1_100)
        let context = RenderContext(workingSpace: .none)
        for _ in 0..<2 {
            _ = try context.render(Image(color: [1, 0, 0, 1]), rect: rect)  // fills a block with red, then frees it
        }
        // A 4x4 image at (1000, 500): everything else in the rectangle is transparent, not red.
        let small = try Pixels.make(4, 4) { x, y in SIMD4(0, Float(x) / 3, Float(y) / 3, 1) }
        let out = try context.render(Image(bitmap: small).translatedBy(dx: 1_000, dy: 500), rect: rect)
        var stale = 0
        for y in stride(from: 0, to: rect.height, by: 7) {
            for x in stride(from: 0, to: rect.width, by: 3) where !(1_000..<1_004).contains(x) || !(500..<504).contains(y) {
                if out.bytes(x: x, y: y) != SIMD4(0, 0, 0, 0) { stale += 1 }
            }
        }
        #expect(stale == 0, "\(stale) sampled pixels outside the image are not transparent")
        #expect(out.bytes(x: 1_003, y: 503) == small.bytes(x: 3, y: 3))
        // With a red block kept again, a bitmap from the public initializer still starts from zero.
        _ = try context.render(Image(color: [1, 0, 0, 1]), rect: rect)
        let fresh = try Bitmap(width: rect.width, height: rect.height, format: .rgba8)
        let words = fresh.baseAddress.assumingMemoryBound(to: UInt32.self)
        #expect((0..<(fresh.byteCount / 4)).allSatisfy { words[$0] == 0 })
    }

    @Test("infinite and empty regions are refused with a clear error")
    func badRegions() throws {
        let infinite = Image(color: [1, 0, 0, 1])
        #expect(throws: SfumatoError.self) { try RenderContext().render(infinite) }
        #expect(throws: SfumatoError.self) { try RenderContext().render(Image.empty) }
        let r = try RenderContext().render(infinite, rect: Rect(x: -5, y: 1000, width: 3, height: 2))
        #expect(r.bytes(x: 2, y: 1) == SIMD4(255, 0, 0, 255))
    }

    @Test("clamp, crop and translate place pixels where they belong")
    func geometry() throws {
        let b = try Pixels.make(4, 3) { x, y in SIMD4(Float(x) / 3, Float(y) / 2, 0, 1) }
        let img = Image(bitmap: b).clampedToExtent().cropped(to: Rect(x: -2, y: -2, width: 8, height: 7)).translatedBy(dx: 2, dy: 2)
        #expect(img.extent == Rect(x: 0, y: 0, width: 8, height: 7))
        let out = try RenderContext(workingSpace: .none).render(img)
        #expect(out.bytes(x: 0, y: 0) == b.bytes(x: 0, y: 0))
        #expect(out.bytes(x: 7, y: 6) == b.bytes(x: 3, y: 2))
        #expect(out.bytes(x: 3, y: 2) == b.bytes(x: 1, y: 0))
        #expect(out.bytes(x: 5, y: 1) == b.bytes(x: 3, y: 0))
    }

    @Test("resampling: area average down, Lanczos up, constants stay constant")
    func resampling() throws {
        let flat = try Pixels.make(37, 23) { _, _ in SIMD4(0.25, 0.5, 0.75, 1) }
        for (w, h) in [(10, 7), (37, 23), (100, 51), (1, 1)] {
            let out = try RenderContext(workingSpace: .none).render(Image(bitmap: flat).resized(width: w, height: h), format: .rgbaFloat32, encoding: .srgb)
            #expect(out.width == w && out.height == h)
            for y in 0..<h { for x in 0..<w { #expect(absMax(out.pixel(x: x, y: y) - flat.pixel(x: 0, y: 0)) < 1e-5) } }
        }
        // 2x2 blocks average exactly when halving.
        let checker = try Pixels.make(8, 8, format: .rgbaFloat32, encoding: .srgb) { x, y in
            let v = Float((x + y) % 2); return SIMD4(v, v, v, 1)
        }
        let half = try RenderContext(workingSpace: .none).render(Image(bitmap: checker).resized(width: 4, height: 4), format: .rgbaFloat32, encoding: .srgb)
        for y in 0..<4 { for x in 0..<4 { #expect(abs(half.pixel(x: x, y: y).x - 0.5) < 1e-6) } }
    }

    @Test("orientation turns bitmaps upright for all eight EXIF values")
    func orientation() throws {
        let b = try Pixels.make(3, 2) { x, y in SIMD4(Float(x) / 255, Float(y) / 255, 0, 1) }
        // Where stored pixel (0,0) lands for each orientation (viewed image coordinates).
        let corner: [Int: (Int, Int)] = [1: (0, 0), 2: (2, 0), 3: (2, 1), 4: (0, 1), 5: (0, 0), 6: (1, 0), 7: (1, 2), 8: (0, 2)]
        for o in 1...8 {
            let r = try b.oriented(o)
            #expect(r.width == (o >= 5 ? 2 : 3))
            let (cx, cy) = corner[o]!
            #expect(r.bytes(x: cx, y: cy) == SIMD4(0, 0, 0, 255), "orientation \(o)")
        }
    }
}

/// A RowSource over a bitmap, counting readers.
final class MemoryRows: RowSource, @unchecked Sendable {
    let bitmap: Bitmap
    var readers = 0
    init(_ b: Bitmap) { bitmap = b }
    var width: Int { bitmap.width }
    var height: Int { bitmap.height }
    var format: PixelFormat { .rgba8 }
    var isOpaque: Bool { true }
    var summary: String { "memory rows" }
    func makeReader() throws -> any RowReader {
        readers += 1
        return Reader(bitmap)
    }
    final class Reader: RowReader {
        let b: Bitmap
        var y = 0
        init(_ b: Bitmap) { self.b = b }
        func read(into buffer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws -> Int {
            let n = min(count, b.height - y)
            for r in 0..<n { memcpy(buffer + r * rowBytes, b.row(y + r), b.rowBytes) }
            y += n
            return n
        }
    }
}

/// Reads `d` rows above and below (a tall region of interest).
struct ShiftUp: NeighborhoodKernel {
    let d: Int
    var name: String { "shift" }
    func outputExtent(forInput e: Rect) -> Rect { e }
    func regionOfInterest(for o: Rect) -> Rect { o.insetBy(dx: 0, dy: -d) }
    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        for y in output.rect.y..<output.rect.maxY {
            for x in output.rect.x..<output.rect.maxX {
                output.pointer(x: x, y: y).pointee = (input.pointer(x: x, y: y - d).pointee + input.pointer(x: x, y: y + d).pointee) * 0.5
            }
        }
    }
}

func absMax(_ v: SIMD4<Float>) -> Float { max(abs(v.x), abs(v.y), abs(v.z), abs(v.w)) }

@Suite("Gray8 bitmaps")
struct GrayBitmapTests {
    @Test(
        "colour stored as Gray8 keeps its luminance in either working space; grey reads as opaque R = G = B",
        arguments: [WorkingSpace.none, .linear])
    func luminance(ws: WorkingSpace) throws {
        // Partial alpha (float tiles) and opaque (8-bit tiles in the none working space).
        for photo in [try Pixels.noise(37, 23, seed: 9, alpha: true), try Pixels.noise(37, 23, seed: 10)] {
            let gray = try RenderContext(workingSpace: ws).render(Image(bitmap: photo), format: .gray8)
            #expect(gray.format.bytesPerPixel == 1 && gray.isOpaque)
            var worst = 0.0
            for y in 0..<photo.height {
                for x in 0..<photo.width {
                    // Premultiplied working colour: partial alpha lands over black.
                    let p = Reference.working(photo, x, y, ws)
                    let luminance = (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) * p[3]
                    worst = max(worst, abs(Double(gray.row(y).load(fromByteOffset: x, as: UInt8.self)) - Reference.toLevel(luminance, ws)))
                }
            }
            #expect(worst <= 1, "worst \(worst) levels")
            // Grey back to RGBA: opaque, every channel the grey level; grey to grey: the same bytes.
            let rgba = try RenderContext(workingSpace: ws).render(Image(bitmap: gray))
            let again = try RenderContext(workingSpace: ws).render(Image(bitmap: gray), format: .gray8)
            #expect(again == gray)
            for (x, y) in Pixels.samplePoints(gray.width, gray.height, count: 50) {
                let g = gray.row(y).load(fromByteOffset: x, as: UInt8.self)
                #expect(rgba.bytes(x: x, y: y) == SIMD4(g, g, g, 255))
            }
            #expect(try gray.expandedToRGBA8() == rgba)
        }
    }
}
