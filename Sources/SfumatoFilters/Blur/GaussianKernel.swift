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
        let r = radius
        let out = output.rect
        // Horizontal pass over every input row the vertical pass needs.
        let mid = scratch.floatTile(Rect(x: out.x, y: input.rect.y, width: out.width, height: input.rect.height))
        weights.withUnsafeBufferPointer { w in
            for y in input.rect.y..<input.rect.maxY {
                let s = input.pointer(x: out.x, y: y)
                let d = mid.row(y)
                let w0 = w[0]
                for x in 0..<out.width {
                    var acc = s[x] * w0
                    for k in 1...r { acc += (s[x - k] + s[x + k]) * w[k] }
                    d[x] = acc
                }
            }
            // Vertical pass: accumulate rows.
            for y in out.y..<out.maxY {
                let d = output.row(y)
                let c = mid.row(y)
                let w0 = w[0]
                for x in 0..<out.width { d[x] = c[x] * w0 }
                for k in 1...r {
                    let a = mid.row(y - k), b = mid.row(y + k)
                    let wk = w[k]
                    for x in 0..<out.width { d[x] += (a[x] + b[x]) * wk }
                }
            }
        }
    }
}
