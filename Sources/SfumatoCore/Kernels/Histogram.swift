/// Counts of pixel values per channel, from ``RenderContext/histogram(of:bins:)`` or inside a
/// render for histogram-driven filters.
///
/// A value `v` (0...1, unpremultiplied, in the working space) falls in bin
/// `floor(v * bins)`, clamped to `0 ..< bins` (docs/spec/FILTERS.md). For 8-bit images with 256 bins, bin k
/// holds level k exactly.
public struct Histogram: Sendable, Equatable {
    /// Number of bins per channel (2...65536).
    public let bins: Int
    /// `counts[channel][bin]`, channels R, G, B, A.
    public var counts: [[Int]]
    /// Number of pixels counted.
    public var pixelCount: Int

    /// An empty histogram.
    public init(bins: Int) {
        precondition(bins >= 2 && bins <= 65536, "bins must be 2...65536")
        self.bins = bins
        counts = Array(repeating: Array(repeating: 0, count: bins), count: 4)
        pixelCount = 0
    }

    /// Adds another histogram's counts (same bin count).
    public mutating func merge(_ other: Histogram) {
        precondition(bins == other.bins)
        for c in 0..<4 { for b in 0..<bins { counts[c][b] += other.counts[c][b] } }
        pixelCount += other.pixelCount
    }

    /// The running sum of channel `c`: `cdf[b] = counts[c][0] + … + counts[c][b]`.
    public func cumulative(channel c: Int) -> [Int] {
        var sum = 0
        return counts[c].map {
            sum += $0; return sum
        }
    }
}

/// A filter that first counts its inputs' values, then maps each pixel of its first input
/// through per-pixel stages made from those counts (equalization, specification). The renderer
/// runs the counting as a pass of its own before the tiles that need the result.
public protocol HistogramMapping: Sendable {
    /// Name shown in render plans.
    var name: String { get }
    /// Bins to count per channel.
    var bins: Int { get }
    /// The stages to apply to the first input, from the histograms of every input (in order).
    func stages(for histograms: [Histogram]) -> [PointStage]
}
