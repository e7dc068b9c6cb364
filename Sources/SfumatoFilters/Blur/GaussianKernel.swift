import Foundation
import SfumatoCore

/// Separable Gaussian convolution with weights exp(-i²/2σ²), normalised, over radius ceil(3σ).
///
/// Reads transparent black outside its input (compose with `clampedToExtent()` for clamped
/// edges); its output extent grows by the radius on every side.
struct _GaussianKernel: NeighborhoodKernel {
    let sigma: Double
    let radius: Int
    /// weights[0] is the centre, weights[k] the weight at distance k.
    let weights: [Float]

    init(sigma: Double) {
        self.sigma = sigma
        radius = max(1, Int((3 * sigma).rounded(.up)))
        var w = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = w[0] + 2 * w.dropFirst().reduce(0, +)
        w = w.map { $0 / sum }
        weights = w.map(Float.init)
    }

    var name: String { "Gaussian blur" }
    var detail: String { "separable, sigma \(_format(sigma)), radius \(radius), \(2 * radius + 1) taps per pass" }

    func outputExtent(forInput extent: Rect) -> Rect { extent.insetBy(dx: -radius, dy: -radius) }

    func regionOfInterest(for output: Rect) -> Rect { output.insetBy(dx: -radius, dy: -radius) }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let out = output.rect
        let width = out.width
        // Horizontal pass over every input row the vertical pass needs. Taps outside, pixels
        // inside: each inner loop streams through one L1-resident row with its weight in a
        // register (no per-pixel index arithmetic).
        let mid = scratch.floatTile(Rect(x: out.x, y: input.rect.y, width: width, height: input.rect.height))
        for y in input.rect.y..<input.rect.maxY {
            _convolveRow(input.pointer(x: out.x, y: y), stride: 1, into: mid.row(y), width: width)
        }
        for y in out.y..<out.maxY {
            _convolveRow(mid.row(y), stride: mid.stride, into: output.row(y), width: width)
        }
    }

    /// d[x] = sum over k of w[|k|] * s[x + k * stride], for x in 0..<width (symmetric taps).
    @inline(__always)
    private func _convolveRow(_ s: UnsafeMutablePointer<SIMD4<Float>>, stride: Int,
                              into d: UnsafeMutablePointer<SIMD4<Float>>, width: Int) {
        let w0 = weights[0]
        for x in 0..<width { d[x] = s[x] * w0 }
        for k in 1...radius {
            let wk = weights[k]
            let a = s - k * stride, b = s + k * stride
            for x in 0..<width { d[x] += (a[x] + b[x]) * wk }
        }
    }
}
