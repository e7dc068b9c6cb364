import SfumatoCore

/// Histogram specification (matching): per channel R, G, B, each level s maps to the smallest
/// level d with CDF_ref(d) >= CDF_src(s), so the result's histogram follows the reference's.
public struct HistogramSpecification: DeclaredFilter {
    public static let referenceImage = ParameterSpec.image(
        "inputReferenceImage", short: "reference",
        help: "the image whose histogram to match")
    public static let fields: [FilterField<HistogramSpecification>] = [.image(referenceImage, \.reference, name: \.referenceName)]
    public static let descriptor = FilterDescriptor(
        displayName: "Histogram Specification", coreImageName: nil, shortName: "histogram-specification", category: .histogram,
        summary: "remap each channel to match a reference image's histogram", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(reference: .empty) }

    public var reference: Image
    public var referenceName: String

    public init(reference: Image, name: String = "reference") {
        self.reference = reference
        referenceName = name
    }

    public func apply(to image: Image) -> Image { image.applying(_Specify(), others: [reference]) }

    /// The per-channel table from source and reference counts.
    public static func table(source: [Int], reference: [Int]) -> [UInt8] {
        let ns = Double(source.reduce(0, +)), nr = Double(reference.reduce(0, +))
        var cs = 0.0
        var cr = [Double](repeating: 0, count: 256)
        var acc = 0.0
        for d in 0..<256 { acc += Double(reference[d]); cr[d] = acc / nr }
        var d = 0
        return source.map { c in
            cs += Double(c)
            let target = cs / ns
            while d < 255 && cr[d] < target - 1e-12 { d += 1 }
            return UInt8(d)
        }
    }
}

struct _Specify: HistogramMapping {
    var name: String { "histogram specification" }
    var bins: Int { 256 }
    func stages(for histograms: [Histogram]) -> [PointStage] {
        let tables = (0..<3).map { HistogramSpecification.table(source: histograms[0].counts[$0], reference: histograms[1].counts[$0]) }
        return [.curve(_LevelTable(tables: tables, name: "specification table"))]
    }
}
