import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

/// The reductions against Double sums over every pixel of real photos (and of a sub-area), in
/// both working spaces; results read as floats (premultiplied working values).
@Suite("Reductions against their definitions")
struct ReductionTests {
    static func floats(_ image: Image, _ ws: WorkingSpace) throws -> [SIMD4<Float>] {
        let b = try RenderContext(workingSpace: ws).render(image, rect: image.extent, format: .rgbaFloat32, alpha: .premultiplied, encoding: ws.encoding)
        let p = b.row(0).assumingMemoryBound(to: SIMD4<Float>.self)
        return (0..<b.width).map { p[$0] }
    }

    @Test("average, minimum, maximum, min-max and histogram, whole image and an area")
    func definitions() throws {
        for name in ["rocket.jpg", "coffee.png"] {
            let photo = try Fixtures.photo(name)
            for ws in [WorkingSpace.none, .linear] {
                for area in [photo.bounds, Rect(x: 37, y: 21, width: 201, height: 133)] {
                    var sum = SIMD4<Double>.zero
                    var lo = SIMD4<Double>(repeating: .infinity), hi = SIMD4<Double>(repeating: -.infinity)
                    var bins = [SIMD4<Double>](repeating: .zero, count: 32)
                    for y in area.y..<area.maxY {
                        for x in area.x..<area.maxX {
                            let p = Reference.working(photo, x, y, ws)
                            let pre = SIMD4(p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3])
                            sum += pre
                            lo = pointwiseMin(lo, pre)
                            hi = pointwiseMax(hi, pre)
                            for k in 0..<4 { bins[min(Int(min(max(p[k], 0), 1) * 32), 31)][k] += 1 }
                        }
                    }
                    let v = [Double(area.x), Double(area.y), Double(area.width), Double(area.height)]
                    let whole = area == photo.bounds ? [0.0, 0, 0, 0] : v
                    let image = Image(bitmap: photo)
                    let mean = try Self.floats(AreaAverage(area: whole).apply(to: image), ws)
                    let extremes = try Self.floats(AreaMinMax(area: v).apply(to: image), ws)
                    let maximum = try Self.floats(AreaMaximum(area: v).apply(to: image), ws)
                    let minimum = try Self.floats(AreaMinimum(area: v).apply(to: image), ws)
                    let histogram = try Self.floats(AreaHistogram(area: v, count: 32, scale: 2).apply(to: image), ws)
                    let n = Double(area.area)
                    for k in 0..<4 {
                        #expect(abs(Double(mean[0][k]) - sum[k] / n) < 1e-5, "\(name) \(ws) \(area) mean \(k)")
                        #expect(abs(Double(extremes[0][k]) - lo[k]) < 1e-6 && abs(Double(minimum[0][k]) - lo[k]) < 1e-6)
                        #expect(abs(Double(extremes[1][k]) - hi[k]) < 1e-6 && abs(Double(maximum[0][k]) - hi[k]) < 1e-6)
                    }
                    #expect(histogram.count == 32)
                    for b in 0..<32 {
                        for k in 0..<4 { #expect(abs(Double(histogram[b][k]) - 2 * bins[b][k] / n) < 1e-6, "\(name) \(ws) bin \(b) channel \(k)") }
                    }
                }
            }
        }
    }

    @Test("an opaque 8-bit photo's level counts give the pixels' own results: the same extremes and bins, the same mean to 1e-6")
    func levelCountRoute() throws {
        let photo = try Fixtures.photo("rocket.jpg")
        #expect(photo.isOpaque)
        // The same pixels but for the last one, a little transparent, outside every area below:
        // not opaque, so the renderer reads these as float strips.
        let unmarked = try Bitmap(width: photo.width, height: photo.height, format: .rgba8, alpha: .straight)
        memcpy(unmarked.baseAddress, photo.baseAddress, photo.byteCount)
        unmarked.row(photo.height - 1).storeBytes(of: 254, toByteOffset: 4 * photo.width - 1, as: UInt8.self)
        #expect(!unmarked.isOpaque)
        let area = [40.0, 30, 500, 300], most = [0.0, 0, Double(photo.width - 1), Double(photo.height - 1)]
        let filters: [any Filter] = [
            AreaAverage(area: area), AreaMinimum(area: area), AreaMaximum(area: most), AreaMinMax(area: most),
            AreaHistogram(area: area, count: 64), AreaHistogram(area: most, count: 5), AreaHistogram(area: most, count: 256)
        ]
        for filter in filters {
            let counted = try Self.floats(filter.apply(to: Image(bitmap: photo)), .none)
            let read = try Self.floats(filter.apply(to: Image(bitmap: unmarked)), .none)
            #expect(counted.count == read.count)
            for (a, b) in zip(counted, read) {
                let d: SIMD4<Float> = a - b
                let worst = max(abs(d.x), abs(d.y), abs(d.z), abs(d.w))
                #expect(worst <= 1e-6, "\(type(of: filter)): \(a) against \(b)")
            }
        }
    }

    @Test("the result sits at the area's corner; an area outside the image is empty; tiles and threads agree")
    func placement() throws {
        let photo = Image(bitmap: try Fixtures.photo("chelsea.png"))
        #expect(AreaAverage(area: [10, 20, 30, 40]).apply(to: photo).extent == Rect(x: 10, y: 20, width: 1, height: 1))
        #expect(AreaMinMax(area: [10, 20, 30, 40]).apply(to: photo).extent.width == 2)
        #expect(AreaAverage(area: [5000, 5000, 10, 10]).apply(to: photo).extent.isEmpty)
        let h = AreaHistogram(area: [0, 0, 0, 0], count: 256).apply(to: photo)
        let a = try RenderContext(workingSpace: .none).render(h, rect: h.extent)
        let b = try RenderContext(options: .init(workingSpace: .none, threads: 2, tileWidth: 16, tileHeight: 5)).render(h, rect: h.extent)
        #expect(Pixels.maxDifference(a, b) == 0)
    }
}
