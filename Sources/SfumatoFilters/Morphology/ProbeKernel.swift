import SfumatoCore

/// Dilation (max over taps of pixel - probe) or erosion (min over taps of pixel + probe) with a
/// `width` x `height` probe (MPS semantics), edges read from the input's ROI.
///
/// A flat probe (values 0 and 1 only) on 8-bit data is a shape: taps of 0 take part, taps of 1
/// never win (a value in 0...1 minus 1 cannot beat the centre's value minus 0). Each probe row
/// is then a run of taps: the horizontal extremes of every run length come off one shared
/// doubling ladder (`_horizontalExtremes`), and each output row takes the extreme of its probe
/// rows' runs in one pass, sixteen bytes through all rows at a time. A 15x15 disc costs 8
/// horizontal passes per input row and 14 taps per output byte group (6000x4000 RGBA on 2
/// cores: 111-118 ms -> 60-74 ms against one running extreme per length and a pass per tap).
struct _ProbeKernel: NeighborhoodKernel {
    let width: Int
    let height: Int
    /// Row-major probe values.
    let probe: [Float]
    let extreme: _Extreme
    /// For flat probes: per probe row, the first included column and the run length (0: none).
    let runs: [(start: Int, length: Int)]?

    init(width: Int, height: Int, probe: [Float], extreme: _Extreme) {
        self.width = width
        self.height = height
        self.probe = probe
        self.extreme = extreme
        var runs: [(Int, Int)] = []
        var flat = probe.allSatisfy { $0 == 0 || $0 == 1 }
        if flat {
            for i in 0..<height {
                let row = probe[(i * width)..<((i + 1) * width)]
                let inside = row.indices.filter { row[$0] == 0 }.map { $0 - i * width }
                if let a = inside.first, let b = inside.last {
                    if inside.count != b - a + 1 { flat = false; break }  // holes: not a run
                    runs.append((a, b - a + 1))
                } else {
                    runs.append((0, 0))
                }
            }
        }
        self.runs = flat ? runs : nil
    }

    var cx: Int { width / 2 }
    var cy: Int { height / 2 }

    var name: String { extreme == .max ? "dilate \(width)x\(height)" : "erode \(width)x\(height)" }
    var detail: String {
        guard let runs else { return "general probe" }
        return
            "flat probe: \(Set(runs.filter { $0.length > 0 }.map(\.length)).count) run lengths off one doubling ladder, \(runs.filter { $0.length > 0 }.count) rows combined"
    }
    /// 8-bit data only for probe values in 0...1, each taken as its nearest level (a value
    /// outside would be clamped to 0 or 255 and the result would leave the definition's).
    var supportsBytes: Bool { probe.allSatisfy { (0...1).contains($0) } }
    /// A flat probe with a tap of 0 picks the extreme of its 0 taps (a 1 tap never wins, see
    /// above); a probe of 1s alone gives 0 (dilation) or 1 (erosion), no input value.
    var picksInputValues: Bool { runs?.contains { $0.length > 0 } ?? false }
    /// Flat probes only (a run of columns a row); probes with levels stay on the CPU.
    var deviceKernel: DeviceKernel? {
        guard let runs, runs.count == height, height <= 256 else { return nil }
        let spans = runs.enumerated().compactMap { i, run in
            run.length > 0 ? DeviceSpan(dy: i - cy, x0: run.start - cx, x1: run.start + run.length - 1 - cx) : nil
        }
        return .probe(spans: spans, maximum: extreme == .max)
    }
    /// Grey only where an opaque input stays opaque (grey has no alpha): erosion always (alpha
    /// 1 + p clamps to 1), dilation when some tap has p <= 0.
    var supportsGray: Bool { extreme == .min || probe.contains { $0 <= 0 } }

    func outputExtent(forInput e: Rect) -> Rect {
        e.isInfinite ? e : Rect(x: e.x - (width - 1 - cx), y: e.y - (height - 1 - cy), width: e.width + width - 1, height: e.height + height - 1)
    }

    func regionOfInterest(for o: Rect) -> Rect {
        Rect(x: o.x - cx, y: o.y - cy, width: o.width + width - 1, height: o.height + height - 1)
    }

    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        let out = output.rect
        let n = out.width * input.channels
        guard let runs else {
            // General probe: saturating 8-bit arithmetic per tap.
            for y in out.y..<out.maxY {
                let d = output.row(y)
                d.update(repeating: extreme == .max ? 0 : 255, count: n)
                for i in 0..<height {
                    for j in 0..<width {
                        let p = probe[i * width + j]
                        let q = UInt8((p * 255).rounded().bounded(0, 255))
                        let s = input.pointer(x: out.x + j - cx, y: y + i - cy)
                        for k in 0..<n {
                            let v = extreme == .max ? s[k].subtractingReportingOverflow(q) : s[k].addingReportingOverflow(q)
                            let value = v.overflow ? (extreme == .max ? 0 : 255) : v.partialValue
                            d[k] = extreme.pick(d[k], value)
                        }
                    }
                }
            }
            return
        }
        // Horizontal extremes of every run length the probe uses, one tile per length, over the
        // ROI's rows and the columns that length's runs need.
        var needed: [Int: (lo: Int, hi: Int)] = [:]
        for run in runs where run.length > 0 {
            let lo = out.x + run.start - cx, hi = lo + out.width
            needed[run.length] = needed[run.length].map { (min($0.lo, lo), max($0.hi, hi)) } ?? (lo, hi)
        }
        let lo = needed.values.map(\.lo).min() ?? out.x
        let hi = needed.values.map(\.hi).max() ?? out.maxX
        var byLength: [Int: ByteTile] = [:]
        for length in needed.keys {
            byLength[length] = scratch.byteTile(Rect(x: lo, y: input.rect.y, width: hi - lo, height: input.rect.height), channels: input.channels)
        }
        _horizontalExtremes(input, needed, into: byLength, scratch: scratch, extreme)
        // Each probe row's run: its length's tile and where the run starts, looked up once.
        let taps = runs.enumerated().filter { $0.element.length > 0 }.map { (i, run) in (tile: byLength[run.length]!, dx: run.start - cx, dy: i - cy) }
        if taps.isEmpty {
            for y in out.y..<out.maxY { output.row(y).update(repeating: extreme == .max ? 0 : 255, count: n) }
            return
        }
        let rows = scratch.buffer(of: UnsafePointer<UInt8>.self, count: taps.count)
        for y in out.y..<out.maxY {
            for (k, t) in taps.enumerated() { rows[k] = UnsafePointer(t.tile.pointer(x: out.x + t.dx, y: y + t.dy)) }
            _Running.combineAll(UnsafeBufferPointer(start: rows, count: taps.count), output.row(y), n, extreme)
        }
    }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let out = output.rect
        for y in out.y..<out.maxY {
            let d = output.row(y)
            d.update(repeating: SIMD4(repeating: extreme == .max ? -.infinity : .infinity), count: out.width)
            for i in 0..<height {
                for j in 0..<width {
                    let p = probe[i * width + j]
                    if runs != nil && p == 1 { continue }
                    let s = input.pointer(x: out.x + j - cx, y: y + i - cy)
                    if extreme == .max {
                        for x in 0..<out.width { d[x] = extreme.pick(d[x], s[x] - p) }
                    } else {
                        for x in 0..<out.width { d[x] = extreme.pick(d[x], s[x] + p) }
                    }
                }
            }
        }
    }
}

/// For each run length L in `needed`, tile[L] at x = the extreme of input pixels x ..< x + L, for
/// x in that length's columns. All lengths share one doubling ladder per row (spans 1, 2, 4, ...,
/// each level one vector pass from the one below), and each length is then one more pass from
/// the largest span p <= L: max(span p at x, span p at x + L - p). A 15x15 disc's five lengths
/// cost 3 + 5 passes per row instead of 4-5 each.
func _horizontalExtremes(
    _ input: ByteTile, _ needed: [Int: (lo: Int, hi: Int)], into tiles: [Int: ByteTile],
    scratch: TileScratch, _ e: _Extreme
) {
    guard let longest = needed.keys.max() else { return }
    // Columns from the first one any length needs to the input's right edge.
    let x0 = needed.values.map(\.lo).min()!
    let available = input.rect.maxX - x0
    let bpp = input.channels
    var spans = [1]
    while spans.last! * 2 <= longest { spans.append(spans.last! * 2) }
    // levels[k] holds spans[k] at columns x0 ..< x0 + available - spans[k] + 1 (level 0 is the input).
    let levels = spans.dropFirst().map { _ in scratch.buffer(of: UInt8.self, count: bpp * available + 16) }
    // Per length (looked up once, not per row): its tile, its ladder level and span, its columns.
    let lengths = needed.map { length, range in
        let k = spans.lastIndex { $0 <= length }!
        return (length: length, tile: tiles[length]!, k: k, span: spans[k], lo: range.lo, n: bpp * (range.hi - range.lo))
    }
    for y in input.rect.y..<input.rect.maxY {
        let row = UnsafePointer(input.pointer(x: x0, y: y))
        // level(k): the row of spans[k] (level 0 is the input row itself).
        func level(_ k: Int) -> UnsafePointer<UInt8> { k == 0 ? row : UnsafePointer(levels[k - 1]) }
        for k in 1..<spans.count {
            let half = spans[k - 1]
            let count = available - spans[k] + 1
            _Running.combine(level(k - 1), level(k - 1) + bpp * half, levels[k - 1], bpp * count, e)
        }
        for l in lengths {
            let from = level(l.k) + bpp * (l.lo - x0)
            let to = l.tile.pointer(x: l.lo, y: y)
            if l.span == l.length { to.update(from: from, count: l.n) } else { _Running.combine(from, from + bpp * (l.length - l.span), to, l.n, e) }
        }
    }
}
