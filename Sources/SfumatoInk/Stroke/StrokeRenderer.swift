import Foundation
import SfumatoCore

/// Rasterises one stroke incrementally: each batch of samples renders only the part of the
/// stroke it changes and reports the dirty rectangle.
///
/// A span of the spline (between samples i and i + 1) depends on samples i - 1 ... i + 2, so it is
/// final once sample i + 2 has arrived; the newest span is drawn provisionally (with a reflected
/// end) into a separate mask that the next batch replaces. When the stroke finishes, the last span
/// is drawn final, so an incremental stroke ends pixel for pixel equal to drawing the whole
/// stroke at once. Not thread-safe: use a renderer from one thread (or serial queue) at a time.
public final class StrokeRenderer: @unchecked Sendable {
    /// The brush settings.
    public let settings: BrushSettings
    /// Layer pixels per document pixel.
    public let scale: Double
    /// The layer's pixel rectangle (drawing is clipped to it).
    public let clip: Rect
    let brush: any Brush
    private let pressure: ToneCurveSplineEvaluator
    private var points: [InkPoint] = []
    private(set) var samples: [PenSample] = []
    private var finalSpans = 0
    let committed: _CoverageMask
    private var provisional: _CoverageMask
    private var provisionalBounds = Rect.zero
    private var hasPressure: Bool
    /// Whether `finish()` has been called.
    public private(set) var isFinished = false

    /// Starts a stroke on a layer of `clip` pixels at `scale` layer pixels per document pixel.
    public init(settings: BrushSettings, scale: Double, clip: Rect, hasPressure: Bool = true) {
        self.settings = settings
        self.scale = scale
        self.clip = clip
        brush = settings.makeBrush()
        pressure = ToneCurveSplineEvaluator(settings.pressureFunction)
        committed = _CoverageMask(scale: scale)
        provisional = _CoverageMask(scale: scale)
        self.hasPressure = hasPressure && settings.noPressure != true
    }

    /// How the stroke meets the layer.
    public var blend: BrushBlend { brush.blend }

    /// Adds samples (predicted ones are ignored) and returns the layer pixels that changed.
    @discardableResult
    public func append(_ new: [PenSample]) -> Rect {
        precondition(!isFinished, "append after finish")
        let real = new.filter { !$0.predicted }.map(\.sanitized)
        if real.isEmpty { return .zero }
        if samples.isEmpty && real.allSatisfy({ $0.pointerKind == .mouse }) { hasPressure = false }
        samples += real
        for s in real {
            let p = pressure.value(s.pressure).bounded(0, 1)
            points.append(brush.ink(for: s, pressure: p, hasPressure: hasPressure))
        }
        var dirty = provisionalBounds
        // Spans whose four control points are all known are final now: their pieces join the
        // run being merged; runs that can no longer grow are drawn final.
        while finalSpans + 2 < points.count {
            for piece in _StrokeGeometry.span(points, finalSpans, scale: scale) {
                for done in run.add(piece) { dirty = dirty.union(commit(done, last: false)) }
            }
            finalSpans += 1
        }
        dirty = dirty.union(redrawProvisional())
        return dirty
    }

    /// Consecutive final pieces that one straight piece can stand for.
    private var run = _PieceRun()
    /// The direction of the last piece drawn final (where the next piece's start wedge is measured from).
    private var lastFinal: SIMD2<Float>?

    /// Draws a piece final; `last`: the stroke's very last piece (with its end cap).
    private func commit(_ piece: _Piece, last: Bool) -> Rect {
        defer { lastFinal = piece.direction }
        return committed.draw(piece, clip: clip, previous: lastFinal, endCap: last)
    }

    /// Draws the newest span (or the first dot) provisionally.
    private func redrawProvisional() -> Rect {
        provisional.clear()
        var pieces = run.pending
        if points.count == 1 {
            pieces = [
                _StrokeGeometry.piece(
                    SIMD2(points[0].x, points[0].y), SIMD2(points[0].x, points[0].y), points[0], points[0], 0, 1, scale)
            ]
        } else if points.count >= 2 {
            pieces += _StrokeGeometry.span(points, points.count - 2, scale: scale)
        }
        // A chain continuing the final pieces, the newest one ending the stroke for now.
        var area = Rect.zero
        var previous = lastFinal
        for (k, piece) in pieces.enumerated() {
            area = area.union(provisional.draw(piece, clip: clip, previous: previous, endCap: k == pieces.count - 1))
            previous = piece.direction
        }
        let dirty = area.union(provisionalBounds)
        provisionalBounds = area
        return dirty
    }

    /// Ends the stroke: the last span becomes final. Returns the pixels that changed.
    @discardableResult
    public func finish() -> Rect {
        if isFinished { return .zero }
        isFinished = true
        var dirty = provisionalBounds
        provisional.clear()
        provisionalBounds = .zero
        // The last span is final now; flush it through the run like every other.
        var last: [_Piece] = []
        if points.count == 1 {
            last = [_StrokeGeometry.piece(SIMD2(points[0].x, points[0].y), SIMD2(points[0].x, points[0].y), points[0], points[0], 0, 1, scale)]
        } else if points.count >= 2 {
            last = _StrokeGeometry.span(points, points.count - 2, scale: scale)
        }
        var final: [_Piece] = []
        for piece in last { final += run.add(piece) }
        final += run.flush()
        for (k, piece) in final.enumerated() { dirty = dirty.union(commit(piece, last: k == final.count - 1)) }
        return dirty
    }

    /// Gives the stroke's coverage tiles back to the shared pool: the renderer is finished and
    /// draws nothing from now on.
    ///
    /// Call it on the thread or queue that drew and composited the stroke. Dropping the last
    /// reference does the same in `deinit`, but on whatever thread that happens to be; the
    /// reference count orders it after the last composite, an ordering ThreadSanitizer cannot
    /// see, so a tile that another stroke then takes looks raced.
    public func discard() {
        isFinished = true
        committed.clear()
        provisional.clear()
        provisionalBounds = .zero
    }

    /// Everything the stroke has drawn so far, in layer pixels.
    public var bounds: Rect { committed.bounds.union(provisionalBounds) }

    /// The stroke's premultiplied value at a layer pixel (the stronger of final and provisional).
    @inline(__always)
    func value(x: Int, y: Int) -> SIMD4<Float> {
        let a = committed.value(x: x, y: y)
        if provisionalBounds.isEmpty { return a }
        let b = provisional.value(x: x, y: y)
        return b.w > a.w ? b : a
    }

    /// Calls `body` for each 64x64 tile the stroke touches, clipped to `area`, with the tile's
    /// planes (committed and, where present, provisional; see ``_CoverageMask``). Visits only
    /// the tiles under `area` (a one-row composite looks up a row of tiles, not all of them).
    func forEachTile(in area: Rect, _ body: (Rect, UnsafePointer<Float>?, UnsafePointer<Float>?) -> Void) {
        let s = _CoverageMask.tileSize
        let a = area.intersection(bounds)
        if a.isEmpty { return }
        @inline(__always) func tileIndex(_ v: Int) -> Int { v >= 0 ? v / s : (v - s + 1) / s }
        let hasProvisional = !provisionalBounds.isEmpty
        for ty in tileIndex(a.y)...tileIndex(a.maxY - 1) {
            for tx in tileIndex(a.x)...tileIndex(a.maxX - 1) {
                let c = committed.existingTile(tx, ty)
                let p = hasProvisional ? provisional.existingTile(tx, ty) : nil
                if c == nil && p == nil { continue }
                let r = Rect(x: tx * s, y: ty * s, width: s, height: s).intersection(a)
                body(r, c.map { UnsafePointer($0) }, p.map { UnsafePointer($0) })
            }
        }
    }

    /// Composites the stroke over (or, for the eraser, out of) premultiplied float pixels:
    /// `row(y)` gives the pixels of row y starting at column `area.x`.
    ///
    /// Row by row across each band of tiles (not tile by tile): a row's inked columns are then one
    /// forward stream through the layer, which the prefetcher follows; the layer's pixels, not the
    /// arithmetic, are what a commit waits on.
    func composite(onto row: (Int) -> UnsafeMutablePointer<SIMD4<Float>>, area: Rect) {
        let s = _CoverageMask.tileSize
        let a = area.intersection(bounds)
        if a.isEmpty { return }
        let over = blend == .over
        let hasProvisional = !provisionalBounds.isEmpty
        @inline(__always) func tileIndex(_ v: Int) -> Int { v >= 0 ? v / s : (v - s + 1) / s }
        var band: [(tx: Int, c: UnsafePointer<Float>?, p: UnsafePointer<Float>?)] = []
        committed.palette.withUnsafeBufferPointer { committedPalette in
            provisional.palette.withUnsafeBufferPointer { provisionalPalette in
                for ty in tileIndex(a.y)...tileIndex(a.maxY - 1) {
                    band.removeAll(keepingCapacity: true)
                    for tx in tileIndex(a.x)...tileIndex(a.maxX - 1) {
                        let c = committed.existingTile(tx, ty)
                        let p = hasProvisional ? provisional.existingTile(tx, ty) : nil
                        if c != nil || p != nil { band.append((tx, c.map { UnsafePointer($0) }, p.map { UnsafePointer($0) })) }
                    }
                    if band.isEmpty { continue }
                    for y in max(a.y, ty * s)..<min(a.maxY, ty * s + s) {
                        let ry = y - ty * s
                        let line = row(y)
                        for (tx, c, p) in band {
                            // Only the columns either mask may have inked on this row.
                            var (lo, hi) = c.map { _TilePool.extent($0, row: ry) } ?? (s, 0)
                            if let p {
                                let (plo, phi) = _TilePool.extent(p, row: ry)
                                lo = min(lo, plo); hi = max(hi, phi)
                            }
                            lo = max(lo, a.x - tx * s); hi = min(hi, a.maxX - tx * s)
                            if lo >= hi { continue }
                            let out = line + (tx * s + lo - area.x)
                            let base = ry * s + lo
                            for i in 0..<(hi - lo) {
                                // The stronger of the two masks, and that mask's colour there.
                                var cover = c?[base + i] ?? 0
                                var key = c?[s * s + base + i] ?? 0
                                var palette = committedPalette
                                if let p, p[base + i] > cover { cover = p[base + i]; key = p[s * s + base + i]; palette = provisionalPalette }
                                if cover <= 0 { continue }
                                if over {
                                    // Toward the piece's limit (1, or graphite's sheen): alpha a becomes a + cover (limit - a).
                                    let limit = _CoverageMask.limit(key: key, palette: palette.baseAddress!)
                                    let a = out[i].w
                                    let k = limit >= 1 ? cover : (a >= limit ? 0 : cover * (limit - a) / (1 - a))
                                    if k > 0 { out[i] = _CoverageMask.color(k, key: key, palette: palette.baseAddress!) + out[i] * (1 - k) }
                                } else {
                                    out[i] = out[i] * (1 - cover)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The pressure curve evaluated through a 1024-entry table (the spline itself in Double is
/// exact but slow for every sample of every stroke).
struct ToneCurveSplineEvaluator {
    let table: [Double]
    let identity: Bool
    init(_ f: SfumatoFilters.ToneCurveSpline) {
        identity = f.xs == [0, 1] && f.ys == [0, 1]
        table = identity ? [] : (0...1024).map { f.value(at: Double($0) / 1024) }
    }
    func value(_ p: Double) -> Double {
        if identity { return p }
        let x = p.bounded(0, 1) * 1024
        let i = min(Int(x), 1023)
        return table[i] + (table[i + 1] - table[i]) * (x - Double(i))
    }
}

import SfumatoFilters

/// Merges consecutive pieces into one while the result stays within 0.1 px of every joint (and
/// width, opacity and colour stay linear), so a wide stroke of dense samples is drawn as a few
/// long pieces instead of hundreds of overlapping short ones. Decisions depend only on the
/// pieces seen so far, so drawing incrementally and drawing at once merge identically.
struct _PieceRun {
    /// Joint points of the run: (x, y, radius, opacity, colour).
    private var joints: [_Piece] = []

    /// The run's pieces not yet drawn final.
    var pending: [_Piece] { joints }

    /// Adds a piece; returns merged pieces that are final.
    mutating func add(_ p: _Piece) -> [_Piece] {
        if joints.isEmpty { joints = [p]; return [] }
        let first = joints[0]
        if joints.count < 64 && p.textured == first.textured && fits(first, joints, end: p) {
            joints.append(p)
            return []
        }
        let done = merged()
        joints = [p]
        return [done]
    }

    /// Everything left, merged.
    mutating func flush() -> [_Piece] {
        if joints.isEmpty { return [] }
        let done = merged()
        joints = []
        return [done]
    }

    private func merged() -> _Piece {
        var m = joints[0]
        let last = joints[joints.count - 1]
        m.bx = last.bx; m.by = last.by; m.br = last.br; m.ob = last.ob; m.cb = last.cb
        return m
    }

    /// Whether one piece from the first start to `end`'s end reproduces every joint (the ends
    /// of `joints`); no array is built per call.
    private func fits(_ first: _Piece, _ joints: [_Piece], end: _Piece) -> Bool {
        let dx = end.bx - first.ax, dy = end.by - first.ay
        let len2 = dx * dx + dy * dy
        if len2 < 1e-6 { return false }
        for q in joints {
            let px = q.bx - first.ax, py = q.by - first.ay
            let t = (px * dx + py * dy) / len2
            if t <= 0 || t >= 1 { return false }
            let off = abs(px * dy - py * dx) / len2.squareRoot()
            if off > 0.1 { return false }
            if abs(q.br - (first.ar + (end.br - first.ar) * t)) > 0.05 { return false }
            if abs(q.ob - (first.oa + (end.ob - first.oa) * t)) > 0.004 { return false }
            let c = first.ca + (end.cb - first.ca) * t - q.cb
            if max(abs(c.x), abs(c.y), abs(c.z)) > 0.004 { return false }
        }
        return true
    }
}

extension StrokeRenderer {
    /// Composites the stroke (committed and provisional) over one row of premultiplied floats
    /// covering columns x0 ..< x0 + count of layer row y.
    public func compositeRow(_ y: Int, x0: Int, count: Int, onto row: UnsafeMutablePointer<SIMD4<Float>>) {
        let area = Rect(x: x0, y: y, width: count, height: 1)
        composite(onto: { _ in row }, area: area)
    }
}
