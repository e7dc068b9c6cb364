import Foundation

/// Resamples an image through a projective (or affine) map: each output pixel centre is mapped
/// back into the input and the input is sampled there with a separable kernel, widened by the
/// local shrink factor on each input axis (the Jacobian of the inverse map), so shrinking filters
/// instead of aliasing. Outside the input's extent pixels are transparent, as in Core Image:
/// a finite image gets soft edges; clamp it to its extent first for hard ones.
struct _WarpKernel: NeighborhoodKernel {
    let forward: ProjectiveMap
    let inverse: ProjectiveMap
    let input: Rect
    let output: Rect
    let sampling: Sampling
    /// The widest widening over the output (the ROI margin and the weight buffers' size).
    let widest: Double
    /// k(t) at steps of 1/`tableSteps`, for t in 0...support (cheaper than sin per tap).
    let table: [Float]
    static let tableSteps = 1024.0
    /// No widening past this: a tile of a 1/1024 shrink already reads a million input pixels a row.
    static let maximumWidening = 1024.0

    /// nil when the map cannot be undone.
    init?(_ forward: ProjectiveMap, input: Rect, sampling: Sampling) {
        guard let inverse = forward.inverted else { return nil }
        self.forward = forward
        self.inverse = inverse
        self.input = input
        self.sampling = sampling
        output = _WarpKernel.image(of: input, through: forward)
        // The widening is largest at a corner of the output (w is linear, so the map's local scale
        // is extreme on the boundary); for an affine map it is the same everywhere.
        var widest = 1.0
        if !output.isEmpty {
            let corners =
                output.isInfinite
                ? [(0.0, 0.0)]
                : [
                    (Double(output.x), Double(output.y)), (Double(output.maxX), Double(output.y)),
                    (Double(output.x), Double(output.maxY)), (Double(output.maxX), Double(output.maxY))
                ]
            for (x, y) in corners {
                let (fx, fy) = _WarpKernel.widening(inverse, x: x, y: y)
                widest = max(widest, fx, fy)
            }
        }
        self.widest = widest
        let support = sampling.support
        table = (0...Int(support * _WarpKernel.tableSteps) + 1).map { Float(sampling.weight(Double($0) / _WarpKernel.tableSteps)) }
    }

    /// The bounding box of `rect` mapped through `t`, rounded out to whole pixels; infinite when
    /// the rectangle is infinite or reaches behind the viewer.
    static func image(of rect: Rect, through t: ProjectiveMap) -> Rect {
        if rect.isEmpty { return .zero }
        if rect.isInfinite { return .infinite }
        let pts = [(rect.x, rect.y), (rect.maxX, rect.y), (rect.x, rect.maxY), (rect.maxX, rect.maxY)].map {
            t.apply(x: Double($0.0), y: Double($0.1))
        }
        guard pts.allSatisfy({ $0.w > 1e-9 && $0.x.isFinite && $0.y.isFinite }) else { return .infinite }
        return _boundingRect(xs: pts.map(\.x), ys: pts.map(\.y))
    }

    /// How much the inverse map stretches one output pixel along each input axis, at least 1;
    /// exactly 1 up to ``unwidenedShrink``.
    static func widening(_ inverse: ProjectiveMap, x: Double, y: Double) -> (Double, Double) {
        let j = inverse.jacobian(x: x, y: y)
        let fx = (j[0] * j[0] + j[1] * j[1]).squareRoot(), fy = (j[2] * j[2] + j[3] * j[3]).squareRoot()
        func bounded(_ f: Double) -> Double {
            f.isFinite ? (f <= unwidenedShrink ? 1 : min(f, maximumWidening)) : maximumWidening
        }
        return (bounded(fx), bounded(fy))
    }

    /// Shrinks up to 0.1 % sample with the plain kernel: a turn given to four digits (cos 0.9855,
    /// sin 0.1692) shrinks by 0.008 %, and its widened kernel differs from the plain one by less
    /// than half a level, while the general sampler it would take costs fifteen times the rows'.
    static let unwidenedShrink = 1.001

    var name: String { "warp" }
    var detail: String {
        "\(forward.isAffine ? "affine" : "projective") \(forward), \(sampling.rawValue)"
            + (widest > _WarpKernel.unwidenedShrink && sampling != .nearest ? ", widened up to \(String(format: "%.3g", widest))x" : "")
    }

    func outputExtent(forInput extent: Rect) -> Rect { output }

    /// How far past the mapped point the kernel reads, in input pixels.
    var reach: Int { sampling == .nearest ? 1 : Int((sampling.support * widest).rounded(.up)) + 2 }

    func regionOfInterest(for rect: Rect) -> Rect {
        let r = rect.intersection(output)
        let empty = Rect(x: input.isInfinite ? 0 : input.x, y: input.isInfinite ? 0 : input.y, width: 1, height: 1)
        if r.isEmpty { return empty }
        var roi = _WarpKernel.image(of: r, through: inverse)
        if roi.isInfinite {
            // Part of the rectangle maps behind the viewer: all of a finite input may be needed.
            guard !input.isInfinite else { return empty }
            return input
        }
        roi = roi.insetBy(dx: -reach, dy: -reach)
        if !input.isInfinite { roi = roi.intersection(input) }
        return roi.isEmpty ? empty : roi
    }

    /// Nearest sampling moves bytes; bilinear and bicubic affine rows (``usesAffineRows``) read
    /// 8-bit tiles as a float tile's values and round their results as a float tile is rounded.
    var supportsBytes: Bool { sampling == .nearest || usesAffineRows }
    var supportsGray: Bool { sampling == .nearest }
    var picksInputValues: Bool { sampling == .nearest }
    var keepsOpaque: Bool { sampling == .nearest || usesAffineRows }

    /// Turned edges slant: border tiles find their interior 16 rows at a time.
    var interiorBandRows: Int? { usesAffineRows ? 16 : nil }

    /// The output pixels of `rect` whose sampling blocks lie inside `input` (so no transparency
    /// from beyond the edge reaches them), for the rows route: the columns whose mapped points
    /// stay inside at the rectangle's first and last rows. Along a row, u = N(x) / D(x) with N and
    /// D linear, so each bound is a linear inequality once multiplied by D > 0; inside at both
    /// rows means inside between them (the inside is convex and the map keeps lines straight).
    /// For nearest sampling all of `rect` (whole pixels are moved, never mixed with the outside).
    func interior(of rect: Rect, input extent: Rect) -> Rect {
        if sampling == .nearest { return rect }
        guard usesAffineRows, !extent.isInfinite, !rect.isEmpty else { return .zero }
        let cubic = sampling == .bicubic
        let before = cubic ? 1 : 0, after = cubic ? 2 : 1
        // floor(N / D - 0.5) within [x + before, maxX - 1 - after]: N / D in [x + before + 0.5, maxX - after + 0.5).
        let uLow = Double(extent.x + before) + 0.5, uHigh = Double(extent.maxX - after) + 0.5
        let vLow = Double(extent.y + before) + 0.5, vHigh = Double(extent.maxY - after) + 0.5
        let m = inverse.m
        var x0 = Double(rect.x), x1 = Double(rect.maxX)  // output columns [x0, x1) by their centres
        for row in [rect.y, rect.maxY - 1] {
            let cy = Double(row) + 0.5
            // Each as k cx + base > 0, cx = x + 0.5.
            let du = m[1] * cy + m[2], dv = m[4] * cy + m[5], dw = m[7] * cy + m[8]
            let bounds: [(Double, Double)] = [
                (m[6], dw),  // D > 0
                (m[0] - uLow * m[6], du - uLow * dw), (uHigh * m[6] - m[0], uHigh * dw - du),
                (m[3] - vLow * m[6], dv - vLow * dw), (vHigh * m[6] - m[3], vHigh * dw - dv)
            ]
            for (k, base) in bounds {
                if abs(k) < 1e-12 {
                    if !(base > 1e-9) { return .zero }
                    continue
                }
                let edge = -base / k - 0.5  // the x where k cx + base = 0
                if k > 0 { x0 = max(x0, edge.rounded(.up) + 1) } else { x1 = min(x1, edge.rounded(.down) - 1) }
            }
        }
        guard x0.isFinite, x1.isFinite, x1 > x0 else { return .zero }
        return Rect(x: Int(x0), y: rect.y, width: Int(x1 - x0), height: rect.height)
    }

    /// The input pixel whose square holds the inverse image of output pixel (x, y)'s centre.
    @inline(__always) private func nearest(_ x: Int, _ y: Int) -> (Int, Int)? {
        let p = inverse.apply(x: Double(x) + 0.5, y: Double(y) + 0.5)
        guard p.w > 0, p.x.isFinite, p.y.isFinite, abs(p.x) < 1e15, abs(p.y) < 1e15 else { return nil }
        return (_floorInt(p.x), _floorInt(p.y))
    }

    func apply(input tile: ByteTile, output out: ByteTile, scratch: TileScratch) throws {
        if sampling != .nearest {
            try sampled(_ByteReader(tile), _ByteWriter(out), scratch)
            return
        }
        let n = out.channels
        let have = tile.rect.intersection(input)
        for y in out.rect.y..<out.rect.maxY {
            let row = out.row(y)
            for x in out.rect.x..<out.rect.maxX {
                let d = row + (x - out.rect.x) * n
                if let (sx, sy) = nearest(x, y), have.contains(x: sx, y: sy) {
                    let s = tile.pointer(x: sx, y: sy)
                    for k in 0..<n { d[k] = s[k] }
                } else {
                    for k in 0..<n { d[k] = 0 }
                }
            }
        }
    }

    func apply(input tile: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        let have = tile.rect.intersection(input)
        if sampling == .nearest {
            for y in out.rect.y..<out.rect.maxY {
                let row = out.row(y)
                for x in out.rect.x..<out.rect.maxX {
                    if let (sx, sy) = nearest(x, y), have.contains(x: sx, y: sy) {
                        row[x - out.rect.x] = tile.pointer(x: sx, y: sy).pointee
                    } else {
                        row[x - out.rect.x] = .zero
                    }
                }
            }
            return
        }
        try sampled(_FloatReader(tile), _FloatWriter(out), scratch)
    }

    /// The widened kernel's samples (or the affine rows), reading and writing either kind of tile.
    private func sampled<R: _TileReader, W: _TileWriter>(_ tile: R, _ out: W, _ scratch: TileScratch) throws {
        let have = tile.rect.intersection(input)
        let taps = Int((2 * sampling.support * widest).rounded(.up)) + 3
        let wx = scratch.buffer(of: Float.self, count: taps), wy = scratch.buffer(of: Float.self, count: taps)
        let support = sampling.support
        let affine = forward.isAffine
        let (ax, ay) = affine ? _WarpKernel.widening(inverse, x: 0, y: 0) : (1, 1)
        table.withUnsafeBufferPointer { k in
            let limit = k.count - 1
            // Fills w[0...] with the kernel's weights for centres first...last around u, widened by f; returns their sum.
            @inline(__always) func weights(_ w: UnsafeMutablePointer<Float>, _ u: Double, _ f: Double) -> (Int, Int, Float) {
                let r = support * f
                let first = _ceilInt(u - r), last = _floorInt(u + r)
                var sum: Float = 0
                let step = _WarpKernel.tableSteps / f
                for j in first...max(first, last) {
                    let i = min(_roundedInt(abs(Double(j) - u) * step), limit)
                    w[j - first] = k[i]
                    sum += k[i]
                }
                return (first, max(first, last), sum)
            }
            // Output pixel (x, y): its centre mapped back, the widened kernel's weights, the sum of
            // the taps inside the input (outside is transparent), normalised by all the weights.
            func sample(_ x: Int, _ y: Int) -> SIMD4<Float> {
                let cx = Double(x) + 0.5, cy = Double(y) + 0.5
                let p = inverse.apply(x: cx, y: cy)
                guard p.w > 0, abs(p.x) < 1e12, abs(p.y) < 1e12 else { return .zero }
                let (fx, fy) = affine ? (ax, ay) : _WarpKernel.widening(inverse, x: cx, y: cy)
                let u = p.x - 0.5, v = p.y - 0.5
                // Far outside the input (the transparent corners of a turn): nothing to sum.
                let rx = support * min(fx, widest) + 1, ry = support * min(fy, widest) + 1
                if u + rx < Double(have.x) || u - rx > Double(have.maxX) || v + ry < Double(have.y) || v - ry > Double(have.maxY) {
                    return .zero
                }
                let (x0, x1, sx) = weights(wx, u, min(fx, widest))
                let (y0, y1, sy) = weights(wy, v, min(fy, widest))
                let lo = max(x0, have.x), hi = min(x1, have.maxX - 1)
                var acc = SIMD4<Float>.zero
                let top = max(y0, have.y), bottom = min(y1, have.maxY - 1)
                if lo <= hi && top <= bottom {
                    for i in top...bottom {
                        var line = SIMD4<Float>.zero
                        for j in lo...hi { line += tile.pixel(j, i) * wx[j - x0] }
                        acc += line * wy[i - y0]
                    }
                }
                let norm = sx * sy
                return norm > 0 ? acc / norm : .zero
            }
            if usesAffineRows {
                applyAffineRows(input: tile, output: out, have: have, edge: sample)
                return
            }
            for y in out.rect.y..<out.rect.maxY {
                for x in out.rect.x..<out.rect.maxX { out.set(x, y, sample(x, y)) }
            }
        }
    }
}

/// Pixels of a tile as working floats: a float tile's own, or an 8-bit tile's read as a float
/// tile holding them would be (b / 255), so both routes compute with the same numbers.
protocol _TileReader {
    var rect: Rect { get }
    /// Pixel (x, y), absolute coordinates inside `rect`.
    func pixel(_ x: Int, _ y: Int) -> SIMD4<Float>
}

struct _FloatReader: _TileReader {
    let tile: FloatTile
    init(_ tile: FloatTile) { self.tile = tile }
    var rect: Rect { tile.rect }
    @inline(__always) func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> { tile.pointer(x: x, y: y).pointee }
}

struct _ByteReader: _TileReader {
    let tile: ByteTile
    init(_ tile: ByteTile) { self.tile = tile }
    var rect: Rect { tile.rect }
    @inline(__always) func pixel(_ x: Int, _ y: Int) -> SIMD4<Float> {
        _floats(UnsafeRawPointer(tile.pointer(x: x, y: y)).loadUnaligned(as: SIMD4<UInt8>.self)) * (1 / 255)
    }
}

/// Where results go: a float tile, or an 8-bit tile rounded as a float tile is converted.
protocol _TileWriter {
    var rect: Rect { get }
    func set(_ x: Int, _ y: Int, _ v: SIMD4<Float>)
}

struct _FloatWriter: _TileWriter {
    let tile: FloatTile
    init(_ tile: FloatTile) { self.tile = tile }
    var rect: Rect { tile.rect }
    @inline(__always) func set(_ x: Int, _ y: Int, _ v: SIMD4<Float>) { tile.pointer(x: x, y: y).pointee = v }
}

struct _ByteWriter: _TileWriter {
    let tile: ByteTile
    init(_ tile: ByteTile) { self.tile = tile }
    var rect: Rect { tile.rect }
    @inline(__always) func set(_ x: Int, _ y: Int, _ v: SIMD4<Float>) {
        UnsafeMutableRawPointer(tile.pointer(x: x, y: y)).storeBytes(of: _Convert.floatToBytes(v), as: SIMD4<UInt8>.self)
    }
}

/// The smallest whole-pixel rectangle holding the points, kept within a range whose areas do not
/// overflow (a hostile transform can send corners to 1e300).
func _boundingRect(xs: [Double], ys: [Double]) -> Rect {
    let limit = Double(1 << 30)
    // Values a rounding error away from a whole pixel (cos(pi / 2)) count as that pixel.
    func snapped(_ v: Double) -> Double { abs(v - v.rounded()) < 1e-6 ? v.rounded() : v }
    func bound(_ v: Double) -> Int { Int(v.bounded(-limit, limit)) }
    let x0 = bound(snapped(xs.min()!).rounded(.down)), x1 = bound(snapped(xs.max()!).rounded(.up))
    let y0 = bound(snapped(ys.min()!).rounded(.down)), y1 = bound(snapped(ys.max()!).rounded(.up))
    return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
}
