import SfumatoCore

/// Correlation with a `width` x `height` weight matrix plus a bias (docs/spec/FILTERS.md): out(x,y) =
/// Σ w[j*kw+i] in(x+i-kw/2, y+j-kh/2) + bias. A rank-one matrix (a blur, a Sobel half) is
/// detected and run as two one-dimensional passes. `keepAlpha` leaves alpha as it was.
struct _ConvolutionKernel: NeighborhoodKernel {
    let width: Int
    let height: Int
    let weights: [Float]
    let bias: Float
    let keepAlpha: Bool
    /// Column and row factors when the matrix is their outer product.
    let separable: (column: [Float], row: [Float])?
    let label: String
    /// The exact 16-bit integer form for 8-bit data, when the weights allow it.
    let integer: _IntegerKernel?

    init(width: Int, height: Int, weights: [Float], bias: Float, keepAlpha: Bool, label: String = "convolution") {
        self.width = width
        self.height = height
        self.weights = weights
        self.bias = bias
        self.keepAlpha = keepAlpha
        self.label = label
        separable = _ConvolutionKernel.factor(width, height, weights)
        integer = width * height <= 49 ? _IntegerKernel(width: width, height: height, weights: weights, bias: bias) : nil
    }

    var supportsBytes: Bool { integer != nil }
    var deviceKernel: DeviceKernel? {
        integer.map {
            .convolution(width: $0.width, height: $0.height, weights: $0.weights.map(Int32.init), shift: $0.shift, bias: $0.bias, keepAlpha: keepAlpha)
        }
    }
    /// Grey only where an opaque input stays opaque (grey has no alpha): alpha kept, or the
    /// weights and bias adding up to 1.
    var supportsGray: Bool { integer != nil && (keepAlpha || abs(weights.reduce(0, +) + bias - 1) < 1e-6) }

    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        integer!.apply(input: input, output: output, keepAlpha: keepAlpha)
    }

    /// Factors a rank-one matrix as column x row, or nil.
    static func factor(_ w: Int, _ h: Int, _ m: [Float]) -> (column: [Float], row: [Float])? {
        guard w > 1 && h > 1, let (p, q) = (0..<m.count).map({ ($0 / w, $0 % w) }).max(by: { abs(m[$0.0 * w + $0.1]) < abs(m[$1.0 * w + $1.1]) }),
            m[p * w + q] != 0
        else { return nil }
        let row = (0..<w).map { m[p * w + $0] }
        let column = (0..<h).map { m[$0 * w + q] / m[p * w + q] }
        let scale = m.map { abs($0) }.max()!
        for j in 0..<h { for i in 0..<w where abs(m[j * w + i] - column[j] * row[i]) > 1e-6 * scale { return nil } }
        return (column, row)
    }

    var name: String { label }
    var detail: String {
        "\(width)x\(height)\(separable != nil ? ", separable: two passes" : ", direct")"
            + (integer.map { "; 8-bit data: exact 16-bit integer arithmetic (weights x \(1 << $0.shift))" } ?? "")
    }

    func outputExtent(forInput e: Rect) -> Rect { e.insetBy(dx: -(width / 2), dy: -(height / 2)) }
    func regionOfInterest(for o: Rect) -> Rect { o.insetBy(dx: -(width / 2), dy: -(height / 2)) }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let out = output.rect
        let rx = width / 2, ry = height / 2
        let b = SIMD4<Float>(bias, bias, bias, keepAlpha ? 0 : bias)
        if let (column, row) = separable {
            let mid = scratch.floatTile(Rect(x: out.x, y: input.rect.y, width: out.width, height: input.rect.height))
            for y in input.rect.y..<input.rect.maxY {
                let d = mid.row(y)
                d.update(repeating: .zero, count: out.width)
                for i in 0..<width where row[i] != 0 {
                    let s = input.pointer(x: out.x + i - rx, y: y), wi = row[i]
                    for x in 0..<out.width { d[x] += s[x] * wi }
                }
            }
            for y in out.y..<out.maxY {
                let d = output.row(y)
                d.update(repeating: b, count: out.width)
                for j in 0..<height where column[j] != 0 {
                    let s = mid.row(y + j - ry), wj = column[j]
                    for x in 0..<out.width { d[x] += s[x] * wj }
                }
                if keepAlpha { restoreAlpha(d, input.pointer(x: out.x, y: y), out.width) }
            }
            return
        }
        for y in out.y..<out.maxY {
            let d = output.row(y)
            d.update(repeating: b, count: out.width)
            for j in 0..<height {
                for i in 0..<width where weights[j * width + i] != 0 {
                    let s = input.pointer(x: out.x + i - rx, y: y + j - ry), w = weights[j * width + i]
                    for x in 0..<out.width { d[x] += s[x] * w }
                }
            }
            if keepAlpha { restoreAlpha(d, input.pointer(x: out.x, y: y), out.width) }
        }
    }

    @inline(__always)
    private func restoreAlpha(_ d: UnsafeMutablePointer<SIMD4<Float>>, _ s: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
        for x in 0..<n { d[x].w = s[x].w }
    }
}

/// Sobel gradient magnitude sqrt(Gx² + Gy²), Gx = [-1 0 1; -2 0 2; -1 0 1], Gy its transpose:
/// per channel (R, G, B; alpha kept), or on luma with grey weights (the magnitude written to
/// R, G and B).
struct _SobelKernel: NeighborhoodKernel {
    /// Grey weights, or nil for per-channel.
    let grey: SIMD4<Float>?

    var name: String { "Sobel" }
    var detail: String {
        grey == nil ? "per channel; 8-bit data: 16-bit integer gradients" : "on luma; 8-bit data: one float luma row per input row"
    }
    var supportsBytes: Bool { true }
    /// On grey, the luma of (g, g, g) is g when the weights add up to 1: both variants are then
    /// the per-channel Sobel of the grey values.
    var supportsGray: Bool { grey.map { abs($0.x + $0.y + $0.z - 1) < 1e-6 } ?? true }
    /// Per channel only: the luma variant stays on the CPU.
    var deviceKernel: DeviceKernel? { grey == nil ? .sobel : nil }

    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        if input.channels == 1 { return _sobelBytes(input: input, output: output) }
        if let g = grey {
            _sobelGreyBytes(input: input, output: output, weights: g, scratch: scratch)
        } else {
            _sobelBytes(input: input, output: output)
        }
    }

    func outputExtent(forInput e: Rect) -> Rect { e.insetBy(dx: -1, dy: -1) }
    func regionOfInterest(for o: Rect) -> Rect { o.insetBy(dx: -1, dy: -1) }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let out = output.rect
        var source = input
        if let g = grey {
            // Luma first (in every lane), then the same gradient.
            let luma = scratch.floatTile(input.rect)
            for y in input.rect.y..<input.rect.maxY {
                let s = input.row(y), d = luma.row(y)
                for x in 0..<input.rect.width {
                    let v = s[x] * g
                    let l = v.x + v.y + v.z
                    d[x] = SIMD4(l, l, l, s[x].w)
                }
            }
            source = luma
        }
        for y in out.y..<out.maxY {
            let a = source.pointer(x: out.x, y: y - 1), b = source.pointer(x: out.x, y: y), c = source.pointer(x: out.x, y: y + 1)
            let d = output.row(y)
            for x in 0..<out.width {
                let gx = (a[x + 1] - a[x - 1]) + 2 * (b[x + 1] - b[x - 1]) + (c[x + 1] - c[x - 1])
                let gy = (c[x - 1] - a[x - 1]) + 2 * (c[x] - a[x]) + (c[x + 1] - a[x + 1])
                var m = (gx * gx + gy * gy).squareRoot()
                m.w = b[x].w
                d[x] = m
            }
        }
    }
}
