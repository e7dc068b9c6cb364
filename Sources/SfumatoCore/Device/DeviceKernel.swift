/// What a neighbourhood kernel computes, in terms a GPU device can run: the algorithm's name and
/// its numbers, with no code. A ``NeighborhoodKernel`` that returns one from
/// ``NeighborhoodKernel/deviceKernel`` runs on the GPU; the device's kernels give the bytes of
/// the kernel's own 8-bit variant (``NeighborhoodKernel/supportsBytes``).
public enum DeviceKernel: Sendable, Equatable {
    /// Separable Gaussian in 16-bit fixed point: `weights[0]` the centre, `weights[k]` the tap
    /// k pixels out (each × 65536), `radius` = weights.count − 1 (1...63); with
    /// `interpolatingRows`, odd rows are the cubic midpoint of the filtered even rows.
    case gaussian(weights: [UInt16], interpolatingRows: Bool)
    /// Per-channel median over a square window of odd `diameter` (3...63).
    case median(diameter: Int)
    /// Per-channel maximum (`maximum` true) or minimum over a probe given as one horizontal span
    /// per row: for row offset `dy` (−r...r, in order), columns `x0...x1` relative to the pixel.
    case extreme(maximum: Bool, spans: [DeviceSpan])
    /// A kernel written for the device in its own words (Laplacian, Sobel, 8-bit convolutions):
    /// `entry` names a kernel of the device's gallery, `integers` its numeric arguments in
    /// order, `regionRadius` how far it reads.
    case gallery(entry: String, integers: [Int32], regionRadius: Int)
}

/// One row of a morphology probe: offsets `dy`, `x0...x1` from the output pixel.
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
