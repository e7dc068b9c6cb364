import SfumatoCore

/// The area parameter the reductions share: [x y width height]; zero width or height means the
/// image's whole extent.
enum _AreaParameter {
    static let spec = ParameterSpec.vector(
        "inputExtent", short: "extent", default: [0, 0, 0, 0], count: 4, range: -1e9...1e9,
        help: "the area [x y width height] in pixels; [0 0 0 0] is the whole image")

    /// The area for an image of `extent`.
    static func area(_ v: [Double], _ extent: Rect) -> Rect {
        // Within the declared range (NaN as empty): the Swift API passes any list.
        guard v.count == 4 else { return extent }
        let v = v.map { spec.clamped($0) }
        if v[2] <= 0 || v[3] <= 0 { return extent }
        let x0 = v[0].rounded(.down), y0 = v[1].rounded(.down)
        let x1 = (v[0] + v[2]).rounded(.up), y1 = (v[1] + v[3]).rounded(.up)
        return Rect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }
}

/// The mean of the premultiplied working values.
struct _AverageReduction: AreaReduction {
    var name: String { "CIAreaAverage" }
    var outputWidth: Int { 1 }
    var stateCount: Int { 4 }
    func accumulate(_ p: UnsafePointer<SIMD4<Float>>, count: Int, into s: inout [Double]) {
        var acc = SIMD4<Double>.zero
        for i in 0..<count { acc += SIMD4<Double>(p[i]) }
        for k in 0..<4 { s[k] += acc[k] }
    }
    func finish(_ s: [Double], pixels: Int) -> [SIMD4<Float>] {
        [SIMD4<Float>(SIMD4(s[0], s[1], s[2], s[3]) / Double(max(pixels, 1)))]
    }
    func combined(_ a: [Double], _ b: [Double]) -> [Double]? { zip(a, b).map { $0 + $1 } }
    var fromLevels: LevelRoute? {
        LevelRoute(.sums) { l in (0..<4).map { l.valueSums[$0] } }
    }
}

/// Per-component minimum and maximum of the premultiplied working values: (minimum, maximum).
struct _ExtremesReduction: AreaReduction {
    enum Output: Sendable { case minimum, maximum, both }
    let output: Output
    var name: String { output == .minimum ? "CIAreaMinimum" : output == .maximum ? "CIAreaMaximum" : "CIAreaMinMax" }
    var outputWidth: Int { output == .both ? 2 : 1 }
    var stateCount: Int { 8 }
    func initialState() -> [Double] { Array(repeating: .infinity, count: 4) + Array(repeating: -.infinity, count: 4) }
    func accumulate(_ p: UnsafePointer<SIMD4<Float>>, count: Int, into s: inout [Double]) {
        var lo = SIMD4<Float>(repeating: .infinity), hi = SIMD4<Float>(repeating: -.infinity)
        for i in 0..<count {
            lo = pointwiseMin(lo, p[i])
            hi = pointwiseMax(hi, p[i])
        }
        for k in 0..<4 {
            s[k] = min(s[k], Double(lo[k]))
            s[4 + k] = max(s[4 + k], Double(hi[k]))
        }
    }
    func combined(_ a: [Double], _ b: [Double]) -> [Double]? { (0..<4).map { min(a[$0], b[$0]) } + (4..<8).map { max(a[$0], b[$0]) } }
    var fromLevels: LevelRoute? {
        LevelRoute(.extremes) { l in
            (0..<4).map { Double(l.values[Int(l.lowest[$0])]) } + (0..<4).map { Double(l.values[Int(l.highest[$0])]) }
        }
    }
    func finish(_ s: [Double], pixels: Int) -> [SIMD4<Float>] {
        let lo = SIMD4<Float>(SIMD4(s[0], s[1], s[2], s[3])), hi = SIMD4<Float>(SIMD4(s[4], s[5], s[6], s[7]))
        switch output {
        case .minimum: return [lo]
        case .maximum: return [hi]
        case .both: return [lo, hi]
        }
    }
}

/// Per channel, the fraction of pixels (times `scale`) whose straight value v falls in bin
/// min(floor(clamp(v, 0, 1) count), count - 1); alpha binned by alpha.
struct _HistogramReduction: AreaReduction {
    let count: Int, scale: Double
    var name: String { "CIAreaHistogram" }
    var outputWidth: Int { count }
    var stateCount: Int { 4 * count }
    func accumulate(_ p: UnsafePointer<SIMD4<Float>>, count n: Int, into s: inout [Double]) {
        let bins = Float(count), top = count - 1
        for i in 0..<n {
            var v = p[i]
            if v.w > 0 && v.w != 1 { v = SIMD4(v.x / v.w, v.y / v.w, v.z / v.w, v.w) }
            for k in 0..<4 {
                let b = min(Int(v[k].bounded(0, 1) * bins), top)
                s[4 * b + k] += 1
            }
        }
    }
    func combined(_ a: [Double], _ b: [Double]) -> [Double]? { zip(a, b).map { $0 + $1 } }
    var fromLevels: LevelRoute? {
        let count = count
        return LevelRoute(.counts) { l in
            // Opaque: no unpremultiplying; each level falls in the bin its working value does.
            let n = l.counts!, bins = Float(count), top = count - 1
            var s = [Double](repeating: 0, count: 4 * count)
            for v in 0..<256 {
                let b = min(Int(l.values[v].bounded(0, 1) * bins), top)
                for k in 0..<3 { s[4 * b + k] += Double(n[4 * v + k]) }
            }
            // Alpha is 1 everywhere: the top bin (level 255's value is exactly 1).
            s[4 * top + 3] += Double(n[4 * 255 + 3])
            return s
        }
    }
    func finish(_ s: [Double], pixels: Int) -> [SIMD4<Float>] {
        let k = scale / Double(max(pixels, 1))
        var out: [SIMD4<Float>] = []
        for b in 0..<count {
            let v = SIMD4<Double>(s[4 * b], s[4 * b + 1], s[4 * b + 2], s[4 * b + 3]) * k
            out.append(SIMD4<Float>(v))
        }
        return out
    }
}
