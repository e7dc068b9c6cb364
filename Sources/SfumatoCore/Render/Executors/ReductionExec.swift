import Foundation

/// A reduction over an area of its input, computed once per render by the first tile that
/// needs it (the others wait for it). The area is read in strips: from the top on one thread
/// when the input holds a stream (which reads in order) or the reduction's states cannot be
/// merged, else in bands on the render's threads at once.
final class _ReductionExec: _Exec, @unchecked Sendable {
    let input: _Exec
    let reduction: any AreaReduction
    let area: Rect
    /// Rows per strip: a strip of the widest image stays a few megabytes.
    static let stripRows = 16
    private let result = _Locked<[SIMD4<Float>]?>(nil)
    private let threads: Int

    init(_ input: _Exec, _ reduction: any AreaReduction, area: Rect, extent: Rect, threads: Int) {
        self.input = input
        self.reduction = reduction
        self.area = area
        self.threads = max(1, threads)
        super.init(extent: extent, natural: .float, children: [input])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String {
        "\(reduction.name) over \(area) (one pass, \(levelRoute == nil ? "" : "8-bit levels, ")in \(bands(merging: true).count) band(s))"
    }

    /// The first strip (what a tile of this pass asks its input for at once).
    var firstStrip: Rect { Rect(x: area.x, y: area.y, width: area.width, height: min(Self.stripRows, area.height)) }

    /// The level route, when the area is opaque 8-bit.
    private var levelRoute: LevelRoute? {
        guard input.natural == .byte && input.opaqueWithin && input.extent.contains(area) else { return nil }
        return reduction.fromLevels
    }

    /// The area cut into bands of whole strips, two a thread (taken as threads come free: a
    /// thread that wakes late takes fewer), or one band when they cannot run at once. Area
    /// average in the benchmark harness, two runs of 21 each: one band a thread 1.92-2.05 ms,
    /// two 1.59-1.78, four 1.83-2.09.
    private func bands(merging: Bool) -> [Rect] {
        let strips = (area.height + Self.stripRows - 1) / Self.stripRows
        let n = merging && !Self.holdsStream(input) && threads > 1 ? min(2 * threads, strips) : 1
        let per = (strips + n - 1) / n * Self.stripRows
        return stride(from: area.y, to: area.maxY, by: per).map { y in
            Rect(x: area.x, y: y, width: area.width, height: min(per, area.maxY - y))
        }
    }

    private static func holdsStream(_ e: _Exec) -> Bool { e is _StreamExec || e.children.contains { holdsStream($0) } }

    /// The bands on up to `threads` threads, each band with a worker of its own (the first with
    /// the caller's); errors are rethrown after all have finished.
    private func eachBand<T>(_ bands: [Rect], _ w: _Worker, _ body: (Rect, _Worker) throws -> T) throws -> [T] {
        if bands.count == 1 { return [try body(bands[0], w)] }
        let results = _Locked<[Int: Result<T, Error>]>([:])
        let ws = w.workingSpace
        parallelFor(bands.count, threads: threads) { k in
            let r = Result { try body(bands[k], k == 0 ? w : _Worker(workingSpace: ws)) }
            results.withLock { $0[k] = r }
        }
        return try results.withLock { all in try (0..<bands.count).map { try all[$0]!.get() } }
    }

    /// Strips of `band` from the top, as `kind` tiles.
    private func eachStrip(of band: Rect, _ kind: TileKind, _ w: _Worker, _ body: (_PixelBuffer, Rect) -> Void) throws {
        var y = band.y
        while y < band.maxY {
            let strip = Rect(x: band.x, y: y, width: band.width, height: min(Self.stripRows, band.maxY - y))
            body(try input.produce(strip, kind, w), strip)
            y = strip.maxY
        }
    }

    private func computed(_ w: _Worker) throws -> [SIMD4<Float>] {
        try result.withLock { cached in
            if let c = cached { return c }
            let state = try levelRoute.map { try levelState($0, w) } ?? pixelState(w)
            let out = reduction.finish(state, pixels: area.area)
            cached = out
            return out
        }
    }

    /// Every pixel through `accumulate`, bands merged by `combined`.
    private func pixelState(_ w: _Worker) throws -> [Double] {
        let canMerge = reduction.combined(reduction.initialState(), reduction.initialState()) != nil
        let states = try eachBand(bands(merging: canMerge), w) { band, w in
            var state = reduction.initialState()
            try eachStrip(of: band, .float, w) { b, strip in
                let t = b.floatTile
                for row in strip.y..<strip.maxY { reduction.accumulate(t.pointer(x: strip.x, y: row), count: strip.width, into: &state) }
            }
            return state
        }
        return states.dropFirst().reduce(states[0]) { reduction.combined($0, $1)! }
    }

    /// An opaque 8-bit area: its levels summarised in one byte pass (sums, extremes or counts:
    /// what the reduction needs), the reduction's state from that. The levels' working values
    /// come from the conversion float tiles use.
    private func levelState(_ route: LevelRoute, _ w: _Worker) throws -> [Double] {
        let ramp = w.buffer(.byte, Rect(x: 0, y: 0, width: 256, height: 1))
        let bytes = ramp.byteTile.row(0)
        for v in 0..<256 { for c in 0..<4 { bytes[4 * v + c] = c == 3 ? 255 : UInt8(v) } }
        let converted = _convert(ramp, to: .float, w).floatTile.row(0)
        // A grey ramp, opaque: the colour channels convert alike, and alpha 255 is 1.
        let values = (0..<256).map { converted[$0].x }
        // Value sums come from level sums only where values are levels / 255.
        let summary = route.summary == .sums && w.workingSpace != .none ? .counts : route.summary
        // Packed RGB rows are scanned as stored (expanding them would write as much as is read).
        let packed = (input as? _RowReadable).flatMap { $0.storedFormat == .rgb8 ? $0 : nil }
        let parts = try eachBand(bands(merging: true), w) { band, w in
            let part = _LevelScan(summary)
            if let packed {
                let offset = 3 * (band.x - packed.extent.x)
                // A bitmap's rows that follow one another in memory (whole rows, no padding) are
                // scanned as one run: no tail and no call per row (area average of 24 MP in
                // process, medians of 21: 1.23 -> 1.15-1.21 ms). A stream's rows live only
                // during the call.
                let joins = packed is _BitmapExec
                var run: (start: UnsafePointer<UInt8>, pixels: Int)?
                try packed.withStoredRows(band, w) { _, p in
                    let row = (p + offset).assumingMemoryBound(to: UInt8.self)
                    guard joins else { return part.addPacked(row, band.width) }
                    // At most 2^26 pixels a run: one call's sums must fit the 32-bit lanes.
                    if let r = run, r.start + 3 * r.pixels == row, r.pixels + band.width <= 1 << 26 {
                        run = (r.start, r.pixels + band.width)
                        return
                    }
                    if let r = run { part.addPacked(r.start, r.pixels) }
                    run = (row, band.width)
                }
                if let r = run { part.addPacked(r.start, r.pixels) }
                return part
            }
            try eachStrip(of: band, .byte, w) { b, strip in
                for row in strip.y..<strip.maxY { part.add(b.byteTile.pointer(x: strip.x, y: row), strip.width) }
            }
            return part
        }
        let all = parts[0]
        for p in parts.dropFirst() { all.merge(p) }
        return values.withUnsafeBufferPointer { v in
            let s = all.summary(values: v.baseAddress!, counts: nil)
            return all.counts.withUnsafeBufferPointer { c in
                route.state(
                    LevelSummary(
                        values: v.baseAddress!, counts: summary == .counts ? c.baseAddress! : nil, lowest: s.lowest, highest: s.highest,
                        valueSums: s.valueSums))
            }
        }
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let values = try computed(w)
        let out = w.buffer(.float, rect)
        out.zero()
        let inside = rect.intersection(extent)
        if !inside.isEmpty {
            let p = out.floatTile.pointer(x: inside.x, y: inside.y)
            for x in inside.x..<inside.maxX { p[x - inside.x] = values[x - extent.x] }
        }
        return _convert(out, to: kind, w)
    }
}
