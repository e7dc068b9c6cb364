import SfumatoCore

/// Histogram equalization (the convention of OpenCV's equalizeHist), per channel R, G, B with
/// 256 bins: lut[i] = round(255 (cdf(i) - cdf_min) / (N - cdf_min)), cdf_min the count at the
/// darkest level present; a constant channel stays as it is. Alpha is kept.
///
/// Built as histogram -> cumulative -> normalise -> lookup table: the renderer counts first, then
/// maps every pixel through the table (one 256-entry table per channel on 8-bit data).
public struct HistogramEqualization: DeclaredFilter, Equatable {
    public static let fields: [FilterField<HistogramEqualization>] = []
    public static let descriptor = FilterDescriptor(
        displayName: "Histogram Equalization", coreImageName: nil, shortName: "histogram-equalization", category: .histogram,
        summary: "spread each channel's levels evenly", parameters: fields.map(\.spec))
    public init() {}
    public func apply(to image: Image) -> Image { image.applying(_Equalize()) }

    /// The per-channel 8-bit table for a histogram (exposed for tests and the gallery).
    public static func table(_ counts: [Int]) -> [UInt8] {
        let n = counts.reduce(0, +)
        var cdf = 0
        let cdfMin = counts.first { $0 > 0 } ?? 0
        if cdfMin == n { return (0..<256).map { UInt8($0) } }  // constant channel
        return counts.map { c in
            cdf += c
            return UInt8(max(0, min(255, (255 * Double(cdf - cdfMin) / Double(n - cdfMin)).rounded())))
        }
    }
}

struct _Equalize: HistogramMapping {
    var name: String { "histogram equalization" }
    var bins: Int { 256 }
    func stages(for histograms: [Histogram]) -> [PointStage] {
        let h = histograms[0]
        let tables = (0..<3).map { HistogramEqualization.table(h.counts[$0]) }
        return [.curve(_LevelTable(tables: tables, name: "equalization table"))]
    }
}
