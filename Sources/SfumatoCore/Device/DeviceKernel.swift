/// What a neighbourhood kernel computes, in terms a GPU device can run: the algorithm and its
/// numbers, no code. A ``NeighborhoodKernel`` that returns one from
/// ``NeighborhoodKernel/deviceKernel`` runs on the GPU, whose kernels give the bytes of the
/// kernel's own 8-bit variant (``NeighborhoodKernel/supportsBytes``).
public enum DeviceKernel: Sendable, Equatable {
    /// Separable Gaussian in 16-bit fixed point: `weights[0]` the centre, `weights[k]` the tap
    /// k pixels out (each × 65536), radius `weights.count − 1` (1...64); with
    /// `interpolatingRows`, odd rows are the cubic midpoint of the filtered even rows.
    case gaussian(weights: [UInt16], interpolatingRows: Bool)
    /// Per-channel median (alpha too) over a square window of odd `diameter` (3...63).
    case median(diameter: Int)
    /// Per-channel maximum (`maximum`) or minimum over a `width` × `height` rectangle whose
    /// top-left is (−width/2, −height/2) from the output pixel.
    case rectangle(width: Int, height: Int, maximum: Bool)
    /// Per-channel maximum or minimum over a flat probe, one span of columns per row.
    case probe(spans: [DeviceSpan], maximum: Bool)
    /// An integer convolution: `weights` (`width` × `height`, row-major, odd sides) are the
    /// filter's times 2^`shift` (0...6), `bias` its bias × 255 × 2^shift; out = clamp((bias +
    /// rounding + Σ w·in) >> shift, 0, 255) per channel, alpha the centre's when `keepAlpha`.
    case convolution(width: Int, height: Int, weights: [Int32], shift: Int, bias: Int32, keepAlpha: Bool)
    /// The Sobel magnitude per channel (alpha the centre's), 16-bit integer gradients.
    case sobel
}

/// One row of a flat morphology probe: columns `x0...x1` of row `dy`, offsets from the output pixel.
public struct DeviceSpan: Sendable, Equatable {
    /// Row offset, negative above.
    public var dy: Int
    /// First column offset (inclusive).
    public var x0: Int
    /// Last column offset (inclusive).
    public var x1: Int

    /// A span of columns `x0...x1` on row offset `dy`.
    public init(dy: Int, x0: Int, x1: Int) {
        self.dy = dy
        self.x0 = x0
        self.x1 = x1
    }
}
