import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoTestSupport
import Testing

// Convolution, edges, threshold, morphology and histograms: the rest of the gallery's definitions.
extension GalleryFilterTests {
    static func correlate(_ at: (Int, Int) -> [Double], _ w: Int, _ h: Int, _ k: [Double], bias: Double, keepAlpha: Bool) -> [Double] {
        var acc = [bias, bias, bias, keepAlpha ? 0 : bias]
        for j in 0..<h {
            for i in 0..<w {
                let p = at(i - w / 2, j - h / 2)
                for c in 0..<4 { acc[c] += k[j * w + i] * p[c] }
            }
        }
        if keepAlpha { acc[3] = at(0, 0)[3] }
        return acc
    }

    @Test("convolution: emboss, sharpen, separable and not, any odd size, with bias")
    func convolution() throws {
        let kernels: [(Int, Int, [Double], Double)] = [
            (3, 3, [-2, 0, 0, 0, 1, 0, 0, 0, 2], 0),
            (3, 3, [-0.5, -1, -0.5, -1, 7, -1, -0.5, -1, -0.5], 0),
            (5, 3, [1, 2, 3, 2, 1, 0, 0, 0, 0, 0, -1, -2, -3, -2, -1].map { $0 / 9 }, 0.5),  // separable (rank one)
            (3, 5, [0, 1, 0, 1, 2, 1, 0, 1, 0, 1, -1, 1, 0, 1, 0].map { $0 / 7 }, -0.1),  // not separable
            (1, 7, [1, 1, 1, 1, 1, 1, 1].map { $0 / 7 }, 0)
        ]
        for (w, h, k, bias) in kernels {
            let f = try Convolution(width: w, height: h, weights: k, bias: bias)
            try checkNeighborhood("convolution \(w)x\(h)", f, images: GalleryImages.all) { at in
                Self.correlate(at, w, h, k, bias: bias, keepAlpha: false)
            }
        }
        #expect(throws: SfumatoError.self) { try Convolution(width: 2, height: 3, weights: [1, 2, 3, 4, 5, 6]) }
        #expect(throws: SfumatoError.self) { try Convolution(width: 3, height: 3, weights: [1, 2]) }
    }

    @Test("Laplacian with bias, clamped to 0...1, alpha kept", arguments: [0.0, 0.5])
    func laplacian(bias: Double) throws {
        try checkNeighborhood("laplacian", Laplacian(bias: bias), images: GalleryImages.all) { at in
            Self.correlate(at, 3, 3, [0, 1, 0, 1, -4, 1, 0, 1, 0], bias: bias, keepAlpha: true)
        }
    }

    @Test("8-bit Gaussian stays within one level of the float kernel at every pixel", arguments: [0.4, 1, 3, 10])
    func gaussianBytesMatchFloat(sigma: Double) throws {
        // 67 px: rows of 268 bytes exercise the vector loops and their scalar ends; σ 10 has a
        // kernel (61 taps) wider than the image, so the clamped edges are read many times over.
        let noise = try Pixels.noise(67, 23, seed: 7)
        let context = RenderContext(workingSpace: .none)
        // The same levels as floats: a float source takes the float kernel.
        let floatNoise = try context.render(Image(bitmap: noise), format: .rgbaFloat32, encoding: .srgb)
        let filter = GaussianBlur(radius: sigma, edges: .clamp)
        let bytes = try context.render(filter.apply(to: Image(bitmap: noise)))
        let floats = try context.render(filter.apply(to: Image(bitmap: floatNoise)), format: .rgbaFloat32, encoding: .srgb)
        var worst: Float = 0
        for y in 0..<noise.height {
            for x in 0..<noise.width {
                let b = bytes.bytes(x: x, y: y), f = floats.pixel(x: x, y: y) * 255
                for c in 0..<4 { worst = max(worst, abs(Float(b[c]) - f[c])) }
            }
        }
        #expect(worst <= 1, "σ \(sigma): worst \(worst) levels between the 8-bit and float paths")
    }

    /// From σ 8 the 8-bit passes filter even rows only and interpolate the odd ones; the rows
    /// are even in image coordinates, so tiles cut anywhere (odd origins, 5-row tiles) must give
    /// the whole render's bytes, on both vector routes.
    @Test("8-bit Gaussian with interpolated rows: any tiling gives the same bytes", arguments: [8.0, 10, 19.9])
    func gaussianInterpolatedRowsTileInvariant(sigma: Double) throws {
        let photo = GalleryImages.photos[0].1
        let filter = GaussianBlur(radius: sigma, edges: .clamp)
        let whole = RenderContext(options: .init(workingSpace: .none, tileWidth: 4096, tileHeight: 4096))
        func render(_ tileHeight: Int) throws -> Bitmap {
            try RenderContext(options: .init(workingSpace: .none, tileWidth: 48, tileHeight: tileHeight)).render(filter.apply(to: Image(bitmap: photo)))
        }
        for route in ["wide", "baseline"] {
            let body = {
                let reference = try whole.render(filter.apply(to: Image(bitmap: photo)))
                for tileHeight in [1, 5, 8] {
                    #expect(Pixels.maxDifference(try render(tileHeight), reference) == 0, "σ \(sigma), \(route), \(tileHeight)-row tiles")
                }
            }
            if route == "wide" { try body() } else { try CPUFeatures.withBaselineVectors(body) }
        }
    }

    @Test("8-bit Sobel is the exactly rounded magnitude at every pixel, saturating at 255")
    func sobelBytesExact() throws {
        // Noise reaches every gradient size; the checkerboard the largest (|G| = 1020·√2 -> 255).
        let noise = try Pixels.noise(53, 37, seed: 11)
        let board = try Pixels.make(21, 13) { x, y in (x + y) % 2 == 0 ? SIMD4(1, 0, 1, 1) : SIMD4(0, 1, 0, 1) }
        for b in [noise, board] {
            let out = try RenderContext(workingSpace: .none).render(Sobel().apply(to: Image(bitmap: b)), rect: b.bounds)
            var wrong = 0
            for y in 0..<b.height {
                for x in 0..<b.width {
                    func v(_ dx: Int, _ dy: Int, _ c: Int) -> Int {
                        Int(b.bytes(x: min(max(x + dx, 0), b.width - 1), y: min(max(y + dy, 0), b.height - 1))[c])
                    }
                    let got = out.bytes(x: x, y: y)
                    for c in 0..<3 {
                        let gx = v(1, -1, c) - v(-1, -1, c) + 2 * (v(1, 0, c) - v(-1, 0, c)) + v(1, 1, c) - v(-1, 1, c)
                        let gy = v(-1, 1, c) - v(-1, -1, c) + 2 * (v(0, 1, c) - v(0, -1, c)) + v(1, 1, c) - v(1, -1, c)
                        let want = min(255, Int((Double(gx * gx + gy * gy).squareRoot() + 0.5).rounded(.down)))
                        if Int(got[c]) != want { wrong += 1 }
                    }
                    if got.w != 255 { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(wrong) values differ from the exact Sobel magnitude")
        }
    }

    @Test("8-bit grey Sobel: the rounded magnitude of unrounded luma at every pixel, in R, G and B")
    func sobelGreyBytesExact() throws {
        let noise = try Pixels.noise(53, 37, seed: 12)
        let board = try Pixels.make(21, 13) { x, y in (x + y) % 2 == 0 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1) }
        let w = [0.299, 0.587, 0.114]
        for b in [noise, board] {
            let out = try RenderContext(workingSpace: .none).render(Sobel(grey: true).apply(to: Image(bitmap: b)), rect: b.bounds)
            var beyondOne = 0, inexact = 0
            for y in 0..<b.height {
                for x in 0..<b.width {
                    func l(_ dx: Int, _ dy: Int) -> Double {
                        let p = b.bytes(x: min(max(x + dx, 0), b.width - 1), y: min(max(y + dy, 0), b.height - 1))
                        return w[0] * Double(p[0]) + w[1] * Double(p[1]) + w[2] * Double(p[2])
                    }
                    let gx = l(1, -1) - l(-1, -1) + 2 * (l(1, 0) - l(-1, 0)) + l(1, 1) - l(-1, 1)
                    let gy = l(-1, 1) - l(-1, -1) + 2 * (l(0, 1) - l(0, -1)) + l(1, 1) - l(1, -1)
                    let want = min(255, ((gx * gx + gy * gy).squareRoot()).rounded())
                    let got = out.bytes(x: x, y: y)
                    for c in 0..<3 {
                        if abs(Double(got[c]) - want) > 1 { beyondOne += 1 }
                        if Double(got[c]) != want { inexact += 1 }
                    }
                    if got.w != 255 { beyondOne += 1 }
                }
            }
            // Float luma may round a value sitting on a half level the other way, nothing more.
            #expect(beyondOne == 0, "\(beyondOne) values more than a level from the grey Sobel magnitude")
            #expect(inexact * 200 <= 3 * b.width * b.height, "\(inexact) values not exactly rounded")
        }
    }

    @Test("Sobel per channel and on luma")
    func sobel() throws {
        func gradient(_ at: (Int, Int) -> [Double], _ c: Int) -> Double {
            let gx = -at(-1, -1)[c] + at(1, -1)[c] - 2 * at(-1, 0)[c] + 2 * at(1, 0)[c] - at(-1, 1)[c] + at(1, 1)[c]
            let gy = -at(-1, -1)[c] - 2 * at(0, -1)[c] - at(1, -1)[c] + at(-1, 1)[c] + 2 * at(0, 1)[c] + at(1, 1)[c]
            return (gx * gx + gy * gy).squareRoot()
        }
        try checkNeighborhood("sobel", Sobel(), images: GalleryImages.all) { at in
            [gradient(at, 0), gradient(at, 1), gradient(at, 2), at(0, 0)[3]]
        }
        try checkNeighborhood("sobel grey", Sobel(grey: true), images: GalleryImages.all) { at in
            let luma: (Int, Int) -> [Double] = { dx, dy in
                let p = at(dx, dy)
                let l = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]
                return [l, l, l, p[3]]
            }
            let g = gradient(luma, 0)
            return [g, g, g, at(0, 0)[3]]
        }
    }

    @Test("threshold binary on luma")
    func threshold() throws {
        for (name, b) in GalleryImages.all {
            let out = try RenderContext(workingSpace: .none).render(ThresholdBinary(threshold: 0.5, maximum: 1).apply(to: Image(bitmap: b)))
            for (x, y) in Pixels.samplePoints(b.width, b.height) {
                let p = Reference.working(b, x, y, .none)
                let l = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]
                if abs(l - 0.5) < 1e-6 { continue }  // on the threshold itself float rounding decides
                #expect(out.bytes(x: x, y: y).x == (l > 0.5 ? 255 : 0), "\(name) at (\(x), \(y)): luma \(l)")
            }
        }
    }

    @Test("threshold binary: 8-bit pixels map byte to byte with the float path's result, in both working spaces")
    func thresholdBytePath() throws {
        let filter = ThresholdBinary(threshold: 0.4, maximum: 0.8, weights: [0.2, 0.7, 0.1])
        for (name, b) in GalleryImages.all + GalleryImages.withAlpha {
            for ws in [WorkingSpace.none, .linear] {
                let context = RenderContext(workingSpace: ws)
                #expect(try context.explain(filter.apply(to: Image(bitmap: b))).contains("byte to byte"))
                let fast = try context.render(filter.apply(to: Image(bitmap: b)))
                // The same values as floats in the working space: no byte path, the float pass runs.
                let floats = try context.render(
                    Image(bitmap: b), format: .rgbaFloat32, alpha: .premultiplied,
                    encoding: ws == .linear ? .linear : .srgb)
                #expect(try !context.explain(filter.apply(to: Image(bitmap: floats))).contains("byte to byte"))
                let slow = try context.render(filter.apply(to: Image(bitmap: floats)))
                var differing = 0
                for y in 0..<b.height {
                    for x in 0..<b.width where fast.bytes(x: x, y: y) != slow.bytes(x: x, y: y) {
                        differing += 1
                        // Only a luma a rounding step from the threshold may fall the other way.
                        #expect(b.bytes(x: x, y: y).w != 255, "\(name) \(ws) at (\(x), \(y))")
                    }
                }
                #expect(differing * 1000 <= b.width * b.height, "\(name) \(ws): \(differing) pixels differ")
                #expect(fast.bytes(x: 0, y: 0).w == b.bytes(x: 0, y: 0).w)
            }
        }
    }

    @Test("dilate and erode with flat and general probes; area max and min; closing and opening")
    func morphology() throws {
        func extreme(_ at: (Int, Int) -> [Double], _ w: Int, _ h: Int, _ probe: [Double], max isMax: Bool) -> [Double] {
            (0..<4).map { c in
                var best = isMax ? -Double.infinity : Double.infinity
                for j in 0..<h {
                    for i in 0..<w {
                        let v = at(i - w / 2, j - h / 2)[c]
                        best = isMax ? Swift.max(best, v - probe[j * w + i]) : Swift.min(best, v + probe[j * w + i])
                    }
                }
                return best
            }
        }
        let disc = Dilate.disc(diameter: 15, radius: 7)
        // The app's disc is off-centre (its centre is 7.5, 7.5): row 0 holds no tap, row 14 does.
        #expect(disc.probe[7] == 1 && disc.probe[14 * 15 + 7] == 0)
        try checkNeighborhood("dilate disc", disc, images: GalleryImages.all) { at in extreme(at, 15, 15, disc.probe, max: true) }
        // A flat probe whose rows are runs of unlike lengths and starts (the longest run does not
        // start last, a single tap, an empty row): every length comes off the shared ladder.
        let runs: [Double] = [
            0, 0, 0, 0, 0, 0, 0,
            1, 1, 1, 0, 1, 1, 1,
            1, 0, 0, 0, 0, 0, 1,
            1, 1, 1, 1, 0, 0, 0,
            1, 1, 1, 1, 1, 1, 1
        ]
        try checkNeighborhood("dilate runs", try Dilate(width: 7, height: 5, probe: runs), images: GalleryImages.all) { at in
            extreme(at, 7, 5, runs, max: true)
        }
        try checkNeighborhood("erode runs", try Erode(width: 7, height: 5, probe: runs), images: GalleryImages.all) { at in
            extreme(at, 7, 5, runs, max: false)
        }
        // Probe values outside 0...1 are no 8-bit levels: the definition still holds (alpha 0.8
        // for an erosion with -0.2 at a tap).
        let outside = (0..<9).map { $0 == 4 ? -0.2 : ($0 == 0 ? 1.5 : 0.1) }
        try checkNeighborhood("erode outside 0...1", try Erode(width: 3, height: 3, probe: outside), images: GalleryImages.all) { at in
            extreme(at, 3, 3, outside, max: false)
        }
        try checkNeighborhood("dilate outside 0...1", try Dilate(width: 3, height: 3, probe: outside), images: GalleryImages.all) { at in
            extreme(at, 3, 3, outside, max: true)
        }
        let bumpy = (0..<25).map { Double(($0 * 7) % 5) / 20 }  // a general (non-flat) probe
        try checkNeighborhood("dilate bumpy", try Dilate(width: 5, height: 5, probe: bumpy), images: GalleryImages.all) { at in
            extreme(at, 5, 5, bumpy, max: true)
        }
        try checkNeighborhood("erode bumpy", try Erode(width: 5, height: 5, probe: bumpy), images: GalleryImages.all) { at in
            extreme(at, 5, 5, bumpy, max: false)
        }
        // Up to 16 a side windows are taken directly, longer ones by doubling: 21x19 takes that route.
        for (w, h) in [(1, 1), (3, 3), (9, 9), (15, 3), (1, 7), (4, 6), (21, 19)] {
            let zero = [Double](repeating: 0, count: w * h)
            // Even sizes: the window starts size/2 to the left and above, as MPS does.
            let ref: ((Int, Int) -> [Double], Bool) -> [Double] = { at, isMax in
                (0..<4).map { c in
                    var vals: [Double] = []
                    for j in 0..<h { for i in 0..<w { vals.append(at(i - w / 2, j - h / 2)[c]) } }
                    return isMax ? vals.max()! : vals.min()!
                }
            }
            try checkNeighborhood("area max \(w)x\(h)", AreaMax(width: w, height: h), images: GalleryImages.all) { ref($0, true) }
            try checkNeighborhood("area min \(w)x\(h)", AreaMin(width: w, height: h), images: GalleryImages.all) { ref($0, false) }
            _ = zero
        }
        // Closing and opening against two reference passes over a whole small photo.
        let b = GalleryImages.photos[0].1
        for (isClosing, f) in [(true, Closing(width: 9, height: 9) as any Filter), (false, Opening(width: 5, height: 5) as any Filter)] {
            let out = try RenderContext(workingSpace: .none).render(f.apply(to: Image(bitmap: b)))
            let r = isClosing ? 4 : 2
            func pass(_ src: [[SIMD4<UInt8>]], _ isMax: Bool) -> [[SIMD4<UInt8>]] {
                (0..<b.height).map { y in
                    (0..<b.width).map { x in
                        var m = src[y][x]
                        for dy in -r...r {
                            for dx in -r...r {
                                let v = src[min(max(y + dy, 0), b.height - 1)][min(max(x + dx, 0), b.width - 1)]
                                m = isMax ? pointwiseMax(m, v) : pointwiseMin(m, v)
                            }
                        }
                        return m
                    }
                }
            }
            let src = (0..<b.height).map { y in (0..<b.width).map { x in b.bytes(x: x, y: y) } }
            let ref = isClosing ? pass(pass(src, true), false) : pass(pass(src, false), true)
            var mismatches = 0
            for y in 0..<b.height { for x in 0..<b.width where out.bytes(x: x, y: y) != ref[y][x] { mismatches += 1 } }
            #expect(mismatches == 0, "\(isClosing ? "closing" : "opening"): \(mismatches) pixels differ")
        }
    }

    @Test("histogram equalization and specification follow their tables exactly")
    func histograms() throws {
        for (name, b) in GalleryImages.photos + [("constant", GalleryImages.constant), ("stripes", GalleryImages.stripes)] {
            let out = try RenderContext(workingSpace: .none).render(HistogramEqualization().apply(to: Image(bitmap: b)))
            var counts = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
            for y in 0..<b.height { for x in 0..<b.width { let p = b.bytes(x: x, y: y); for c in 0..<3 { counts[c][Int(p[c])] += 1 } } }
            // Reference: OpenCV's equalizeHist convention, written out.
            let luts = counts.map { h -> [Int] in
                let n = h.reduce(0, +)
                let cmin = h.first { $0 > 0 }!
                if cmin == n { return Array(0..<256) }
                var cdf = 0
                return h.map {
                    cdf += $0; return Int((255 * Double(cdf - cmin) / Double(n - cmin)).rounded())
                }
            }
            var bad = 0
            for y in 0..<b.height {
                for x in 0..<b.width {
                    let p = b.bytes(x: x, y: y), q = out.bytes(x: x, y: y)
                    for c in 0..<3 where Int(q[c]) != luts[c][Int(p[c])] { bad += 1 }
                }
            }
            #expect(bad == 0, "equalization of \(name): \(bad) values differ")
        }
        // Specification: the result's cumulative histogram follows the reference's.
        let src = GalleryImages.photos[0].1, ref = GalleryImages.photos[1].1
        let out = try RenderContext(workingSpace: .none).render(HistogramSpecification(reference: Image(bitmap: ref)).apply(to: Image(bitmap: src)))
        func cdf(_ b: Bitmap, _ c: Int) -> [Double] {
            var h = [Double](repeating: 0, count: 256)
            for y in 0..<b.height { for x in 0..<b.width { h[Int(b.bytes(x: x, y: y)[c])] += 1 } }
            var acc = 0.0
            return h.map {
                acc += $0; return acc / Double(b.width * b.height)
            }
        }
        for c in 0..<3 {
            let a = cdf(out, c), r = cdf(ref, c)
            // Matching is exact up to the granularity of the source's levels: compare at 25/50/75%.
            for q in [0.25, 0.5, 0.75] {
                let la = a.firstIndex { $0 >= q }!, lr = r.firstIndex { $0 >= q }!
                #expect(abs(la - lr) <= 3, "channel \(c) quantile \(q): \(la) vs \(lr)")
            }
            // And each level maps to the smallest level whose reference CDF reaches the source CDF.
            let s = cdf(src, c)
            for level in stride(from: 0, to: 256, by: 17) where level == 0 || s[level] > s[level - 1] {
                let d = r.firstIndex { $0 >= s[level] - 1e-12 } ?? 255
                let p = (0..<src.height).lazy.flatMap { y in (0..<src.width).lazy.map { x in (x, y) } }.first { src.bytes(x: $0.0, y: $0.1)[c] == level }
                if let (x, y) = p { #expect(Int(out.bytes(x: x, y: y)[c]) == d) }
            }
        }
    }

    @Test("presets: twelve, named as the app, kebab-case slugs, each renders a real photo")
    func presets() throws {
        #expect(
            GalleryPreset.all.map(\.name) == [
                "Pass Through", "Gaussian Blur", "Median", "Laplacian", "Sobel", "Threshold Binary",
                "Convolution Emboss", "Convolution Sharpen", "Dilate Bokeh", "Morphology Closing",
                "Histogram Equalization", "Histogram Specification"
            ])
        #expect(GalleryPreset.all.map(\.slug).allSatisfy { $0 == $0.lowercased() && !$0.contains(" ") })
        let b = GalleryImages.photos[0].1
        for p in GalleryPreset.all {
            let out = try RenderContext(workingSpace: .none).render(
                p.apply(to: Image(bitmap: b), reference: Image(bitmap: GalleryImages.photos[1].1)), rect: b.bounds)
            #expect(out.width == b.width && out.height == b.height)
        }
        // Pass Through is exact.
        let pass = try RenderContext(workingSpace: .none).render(GalleryPreset.all[0].apply(to: Image(bitmap: b), reference: nil))
        #expect(pass == b)
    }
}
