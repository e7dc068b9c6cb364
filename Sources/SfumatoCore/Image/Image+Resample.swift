import Foundation

extension Image {
    /// The image resampled to `width` x `height` pixels (its extent must be finite).
    ///
    /// Shrinking averages the exact area each output pixel covers (no aliasing, no blur beyond
    /// the box); enlarging uses Lanczos-3. Each axis is handled on its own, and edge pixels are
    /// extended so borders do not darken. The result's extent starts at the input's origin
    /// scaled by the same factors.
    ///
    /// ```swift
    /// let preview = photo.resized(width: 960, height: 640)
    /// ```
    public func resized(width: Int, height: Int) -> Image {
        resized(width: width, height: height, sampling: nil)
    }

    /// The image resampled to `width` x `height` pixels with one kernel both ways: `sampling`'s
    /// kernel, widened by the shrink factor on an axis that shrinks (libvips' reduce, Pillow's
    /// resize), so `.lanczos3` is Core Image's Lanczos scale. Edges extended, as above; nil is
    /// the area average down and Lanczos-3 up of ``resized(width:height:)``.
    ///
    /// ```swift
    /// let thumb = photo.resized(width: 400, height: 267, sampling: .lanczos3)
    /// ```
    public func resized(width: Int, height: Int, sampling: Sampling?) -> Image {
        let e = extent
        precondition(!e.isInfinite && !e.isEmpty, "resized(width:height:) needs a finite, non-empty extent")
        precondition(width > 0 && height > 0, "resized(width:height:) needs a positive size")
        if width == e.width && height == e.height { return self }
        return applying(_ResampleKernel(input: e, width: width, height: height, sampling: sampling))
    }

    /// The image scaled by a factor (0.0001...1000) on both axes, rounded to whole pixels.
    public func scaled(by factor: Double) -> Image {
        let e = extent
        return resized(
            width: max(1, Int((Double(e.width) * factor).rounded())),
            height: max(1, Int((Double(e.height) * factor).rounded())))
    }
}

/// Weights of a one-dimensional resampling: for output index i, input taps
/// `start[i] ..< start[i] + count[i]` (clamped to the input) with `weights[offset[i] ...]`.
struct _ResampleAxis: Sendable {
    let outputOrigin: Int
    let inputOrigin: Int
    let inputSize: Int
    var start: [Int] = []
    var count: [Int] = []
    var offset: [Int] = []
    var weights: [Float] = []
    let method: String

    init(inputOrigin: Int, inputSize: Int, outputOrigin: Int, outputSize: Int, sampling: Sampling? = nil) {
        self.inputOrigin = inputOrigin
        self.inputSize = inputSize
        self.outputOrigin = outputOrigin
        let scale = Double(outputSize) / Double(inputSize)
        if outputSize == inputSize {
            method = "copy"
            for i in 0..<outputSize { add(start: inputOrigin + i, [1]) }
        } else if let sampling {
            // The kernel centred on the output pixel's centre mapped back, widened by 1 / scale
            // when shrinking (the output pixel's footprint).
            let f = max(1, 1 / scale)
            method = sampling.rawValue + (f > 1 ? " widened \(String(format: "%.3g", f))x" : "")
            for i in 0..<outputSize {
                let centre = (Double(i) + 0.5) / scale - 0.5
                if sampling == .nearest {
                    add(start: inputOrigin + Int((centre + 0.5).rounded(.down)), [1])
                    continue
                }
                let r = sampling.support * f
                let first = Int((centre - r).rounded(.up)), last = max(first, Int((centre + r).rounded(.down)))
                var w = (first...last).map { sampling.weight((Double($0) - centre) / f) }
                let sum = w.reduce(0, +)
                w = w.map { $0 / sum }
                add(start: inputOrigin + first, w.map(Float.init))
            }
        } else if scale < 1 {
            method = "area average"
            let span = 1 / scale
            for i in 0..<outputSize {
                let a = Double(i) * span, b = Double(i + 1) * span
                let first = Int(a.rounded(.down)), last = min(inputSize - 1, Int((b - 1e-9).rounded(.down)))
                var w: [Float] = []
                for j in first...max(first, last) {
                    let overlap = min(b, Double(j + 1)) - max(a, Double(j))
                    w.append(Float(max(0, overlap) / span))
                }
                add(start: inputOrigin + first, w)
            }
        } else {
            method = "Lanczos-3"
            func lanczos(_ x: Double) -> Double {
                if x == 0 { return 1 }
                if abs(x) >= 3 { return 0 }
                let px = Double.pi * x
                return 3 * sin(px) * sin(px / 3) / (px * px)
            }
            for i in 0..<outputSize {
                let centre = (Double(i) + 0.5) / scale - 0.5
                let first = Int(centre.rounded(.down)) - 2
                var w = (0..<6).map { lanczos(centre - Double(first + $0)) }
                let sum = w.reduce(0, +)
                w = w.map { $0 / sum }
                add(start: inputOrigin + first, w.map(Float.init))
            }
        }
    }

    /// Adds an output's taps from input index `s` on. Edges are extended: a tap before the first
    /// pixel or past the last counts as that pixel, folded in here, so that every stored tap lies
    /// inside the input and the passes read without clamping.
    private mutating func add(start s: Int, _ w: [Float]) {
        let lo = inputOrigin, hi = inputOrigin + inputSize - 1
        var first = max(s, lo), last = min(s + w.count - 1, hi)
        if first > last { (first, last) = s > hi ? (hi, hi) : (lo, lo) }
        var folded = [Float](repeating: 0, count: last - first + 1)
        for (t, weight) in w.enumerated() { folded[min(max(s + t, first), last) - first] += weight }
        start.append(first)
        count.append(folded.count)
        offset.append(weights.count)
        weights.append(contentsOf: folded)
    }

    /// Calls `body` with the taps' starts, counts, weight offsets and weights, unchecked.
    func withTaps<R>(
        _ body: (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) throws -> R
    ) rethrows -> R {
        try start.withUnsafeBufferPointer { s in
            try count.withUnsafeBufferPointer { c in
                try offset.withUnsafeBufferPointer { o in
                    try weights.withUnsafeBufferPointer { w in
                        try body(s.baseAddress!, c.baseAddress!, o.baseAddress!, w.baseAddress!)
                    }
                }
            }
        }
    }

    /// Input span (inside the input) needed for outputs `lo ..< hi` (absolute coordinates).
    func span(_ lo: Int, _ hi: Int) -> (Int, Int) {
        let i0 = lo - outputOrigin, i1 = hi - outputOrigin - 1
        let a = start[i0], b = start[i1] + count[i1]
        return (max(a, inputOrigin), min(b, inputOrigin + inputSize))
    }
}

/// Separable resampling (area average down, Lanczos-3 up), edges extended.
struct _ResampleKernel: NeighborhoodKernel {
    let horizontal: _ResampleAxis
    let vertical: _ResampleAxis
    let output: Rect

    init(input e: Rect, width: Int, height: Int, sampling: Sampling? = nil) {
        let ox = Int((Double(e.x) * Double(width) / Double(e.width)).rounded())
        let oy = Int((Double(e.y) * Double(height) / Double(e.height)).rounded())
        output = Rect(x: ox, y: oy, width: width, height: height)
        horizontal = _ResampleAxis(inputOrigin: e.x, inputSize: e.width, outputOrigin: ox, outputSize: width, sampling: sampling)
        vertical = _ResampleAxis(inputOrigin: e.y, inputSize: e.height, outputOrigin: oy, outputSize: height, sampling: sampling)
    }

    var name: String { "resample" }
    var detail: String {
        "\(horizontal.inputSize)x\(vertical.inputSize) -> \(output.width)x\(output.height), "
            + "\(horizontal.method) across, \(vertical.method) down"
    }

    func outputExtent(forInput extent: Rect) -> Rect { output }

    func regionOfInterest(for rect: Rect) -> Rect {
        let r = rect.intersection(output)
        if r.isEmpty { return Rect(x: horizontal.inputOrigin, y: vertical.inputOrigin, width: 1, height: 1) }
        let (x0, x1) = horizontal.span(r.x, r.maxX)
        let (y0, y1) = vertical.span(r.y, r.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        let r = out.rect.intersection(output)
        if r != out.rect {
            for y in out.rect.y..<out.rect.maxY { out.row(y).update(repeating: .zero, count: out.rect.width) }
        }
        if r.isEmpty { return }
        passes(input.rect, r, scratch, row: { UnsafePointer(input.row($0)) }, target: { out.pointer(x: r.x, y: $0) }, finish: { _, _ in })
    }

    /// The horizontal pass over input rows (`row(y)`: floats from `input.x`), then the vertical
    /// pass into `target(y)`, handed to `finish` row by row. Every tap lies inside the input (see
    /// `_ResampleAxis.add`), and the region of interest holds every tap of the tile's outputs, so
    /// the passes read without clamping.
    func passes(
        _ input: Rect, _ r: Rect, _ scratch: TileScratch, row: (Int) -> UnsafePointer<SIMD4<Float>>,
        target: (Int) -> UnsafeMutablePointer<SIMD4<Float>>, finish: (Int, UnsafeMutablePointer<SIMD4<Float>>) -> Void
    ) {
        let mid = scratch.floatTile(Rect(x: r.x, y: input.y, width: r.width, height: input.height))
        horizontal.withTaps { start, count, offset, w in
            for y in input.y..<input.maxY {
                Self.horizontalRow(row(y) - input.x, into: mid.row(y), outputs: r.x - horizontal.outputOrigin, r.width, start, count, offset, w)
            }
        }
        vertical.withTaps { start, count, offset, w in
            // Each output's sum over its taps in tap order, as the horizontal pass, four columns
            // at a time in registers (adding each tap's row into the output row instead read and
            // wrote the row once a tap).
            let most = (r.y..<r.maxY).map { count[$0 - vertical.outputOrigin] }.max() ?? 0
            let rows = scratch.buffer(of: UnsafePointer<SIMD4<Float>>.self, count: max(most, 1))
            for y in r.y..<r.maxY {
                let i = y - vertical.outputOrigin, n = count[i], wt = w + offset[i]
                for t in 0..<n { rows[t] = UnsafePointer(mid.row(start[i] + t)) }
                let dst = target(y)
                var x = 0
                while x + 4 <= r.width {
                    var a0 = SIMD4<Float>.zero, a1 = a0, a2 = a0, a3 = a0
                    for t in 0..<n {
                        let src = rows[t] + x, k = wt[t]
                        a0 += src[0] * k
                        a1 += src[1] * k
                        a2 += src[2] * k
                        a3 += src[3] * k
                    }
                    dst[x] = a0
                    dst[x + 1] = a1
                    dst[x + 2] = a2
                    dst[x + 3] = a3
                    x += 4
                }
                while x < r.width {
                    var acc = SIMD4<Float>.zero
                    for t in 0..<n { acc += rows[t][x] * wt[t] }
                    dst[x] = acc
                    x += 1
                }
                finish(y, dst)
            }
        }
    }

    /// One row of the horizontal pass: outputs `first ..< first + width` (indices on the axis)
    /// from `src`, which points at input column 0 (tap starts are absolute), into `dst[0...]`.
    @inline(__always)
    static func horizontalRow(
        _ src: UnsafePointer<SIMD4<Float>>, into out: UnsafeMutablePointer<SIMD4<Float>>, outputs first: Int, _ width: Int,
        _ start: UnsafePointer<Int>, _ count: UnsafePointer<Int>, _ offset: UnsafePointer<Int>, _ w: UnsafePointer<Float>
    ) {
        let dst = out - first, end = first + width
        var i = first
        // Four outputs at once where they have as many taps (all but a few at the edges):
        // four independent sums, each in the order of the one-output step, so the
        // additions overlap instead of each waiting for the one before (a shrink's 24
        // taps ran at one addition's latency each: Lanczos ×0.25 of 24 MP 89 -> 67 ms;
        // eight at once was slower, 79).
        while i < end {
            let n = count[i]
            if i + 4 <= end && count[i + 1] == n && count[i + 2] == n && count[i + 3] == n {
                let t0 = src + start[i], t1 = src + start[i + 1], t2 = src + start[i + 2], t3 = src + start[i + 3]
                let w0 = w + offset[i], w1 = w + offset[i + 1], w2 = w + offset[i + 2], w3 = w + offset[i + 3]
                var a0 = SIMD4<Float>.zero, a1 = a0, a2 = a0, a3 = a0
                for t in 0..<n {
                    a0 += t0[t] * w0[t]
                    a1 += t1[t] * w1[t]
                    a2 += t2[t] * w2[t]
                    a3 += t3[t] * w3[t]
                }
                dst[i] = a0
                dst[i + 1] = a1
                dst[i + 2] = a2
                dst[i + 3] = a3
                i += 4
            } else {
                let taps = src + start[i], weights = w + offset[i]
                var acc = SIMD4<Float>.zero
                for t in 0..<n { acc += taps[t] * weights[t] }
                dst[i] = acc
                i += 1
            }
        }
    }
}
