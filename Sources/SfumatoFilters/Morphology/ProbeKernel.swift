import SfumatoCore

/// Dilation (max over taps of pixel - probe) or erosion (min over taps of pixel + probe) with a
/// `width` x `height` probe (MPS semantics), edges read from the input's ROI.
///
/// A flat probe (values 0 and 1 only) on 8-bit data is a shape: taps of 0 take part, taps of 1
/// never win (a value in 0...1 minus 1 cannot beat the centre's value minus 0). Each probe row
/// is then a run of taps, done as a horizontal running extreme per run length plus a vertical
/// combination: a 15x15 disc costs about a dozen vector operations per pixel.
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
                    if inside.count != b - a + 1 { flat = false; break }   // holes: not a run
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
    var detail: String { runs != nil ? "flat probe as \(Set(runs!.map(\.length)).count) run lengths + vertical combine" : "general probe" }
    var supportsBytes: Bool { true }

    func outputExtent(forInput e: Rect) -> Rect {
        e.isInfinite ? e : Rect(x: e.x - (width - 1 - cx), y: e.y - (height - 1 - cy), width: e.width + width - 1, height: e.height + height - 1)
    }

    func regionOfInterest(for o: Rect) -> Rect {
        Rect(x: o.x - cx, y: o.y - cy, width: o.width + width - 1, height: o.height + height - 1)
    }

    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        let out = output.rect
        let n = out.width * 4
        guard let runs else {
            // General probe: saturating 8-bit arithmetic per tap.
            for y in out.y..<out.maxY {
                let d = output.row(y)
                d.update(repeating: extreme == .max ? 0 : 255, count: n)
                for i in 0..<height {
                    for j in 0..<width {
                        let p = probe[i * width + j]
                        let q = UInt8(min(max((p * 255).rounded(), 0), 255))
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
        // Horizontal running extremes, one tile per distinct run length, over the ROI rows and
        // the columns any run needs.
        let minStart = runs.filter { $0.length > 0 }.map(\.start).min() ?? 0
        let maxStart = runs.filter { $0.length > 0 }.map(\.start).max() ?? 0
        let cols = Rect(x: out.x + minStart - cx, y: input.rect.y, width: out.width + maxStart - minStart, height: input.rect.height)
        var byLength: [Int: ByteTile] = [:]
        let tmp = scratch.buffer(of: UInt8.self, count: 4 * (cols.width + width) + 64)
        for length in Set(runs.map(\.length)) where length > 0 {
            let t = scratch.byteTile(cols)
            for y in cols.y..<cols.maxY {
                _Running.bytes(input.pointer(x: cols.x, y: y), t.row(y), count: cols.width, length: length, pixelBytes: 4, scratch: tmp, extreme)
            }
            byLength[length] = t
        }
        for y in out.y..<out.maxY {
            let d = output.row(y)
            var first = true
            for (i, run) in runs.enumerated() where run.length > 0 {
                let t = byLength[run.length]!
                let s = t.pointer(x: out.x + run.start - cx, y: y + i - cy)
                if first { d.update(from: s, count: n); first = false } else { _Running.combine(d, s, d, n, extreme) }
            }
            if first { d.update(repeating: extreme == .max ? 0 : 255, count: n) }
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
