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

    private mutating func add(start s: Int, _ w: [Float]) {
        start.append(s)
        count.append(w.count)
        offset.append(weights.count)
        weights.append(contentsOf: w)
    }

    /// Input span (clamped to the input) needed for outputs `lo ..< hi` (absolute coordinates).
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
        let ix0 = input.rect.x, ix1 = input.rect.maxX - 1
        let iy0 = input.rect.y, iy1 = input.rect.maxY - 1
        // Horizontal pass: every input row of the ROI, output columns.
        let mid = scratch.floatTile(Rect(x: r.x, y: input.rect.y, width: r.width, height: input.rect.height))
        horizontal.weights.withUnsafeBufferPointer { w in
            for y in input.rect.y..<input.rect.maxY {
                let src = input.row(y)
                let dst = mid.row(y)
                for x in r.x..<r.maxX {
                    let i = x - horizontal.outputOrigin
                    let s = horizontal.start[i], n = horizontal.count[i], o = horizontal.offset[i]
                    var acc = SIMD4<Float>.zero
                    for t in 0..<n {
                        let sx = min(max(s + t, ix0), ix1)
                        acc += src[sx - ix0] * w[o + t]
                    }
                    dst[x - r.x] = acc
                }
            }
        }
        // Vertical pass.
        vertical.weights.withUnsafeBufferPointer { w in
            for y in r.y..<r.maxY {
                let i = y - vertical.outputOrigin
                let s = vertical.start[i], n = vertical.count[i], o = vertical.offset[i]
                let dst = out.pointer(x: r.x, y: y)
                dst.update(repeating: .zero, count: r.width)
                for t in 0..<n {
                    let sy = min(max(s + t, iy0), iy1)
                    let src = mid.row(sy)
                    let wt = w[o + t]
                    for x in 0..<r.width { dst[x] += src[x] * wt }
                }
            }
        }
    }
}
