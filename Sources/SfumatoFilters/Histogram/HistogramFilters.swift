import SfumatoCore

/// Histogram equalization (the convention of OpenCV's equalizeHist), per channel R, G, B with
/// 256 bins: lut[i] = round(255 (cdf(i) - cdf_min) / (N - cdf_min)), cdf_min the count at the
/// darkest level present; a constant channel stays as it is. Alpha is kept.
///
/// Built as histogram -> cumulative -> normalise -> lookup table: the renderer counts first, then
/// maps every pixel through the table (one 256-entry table per channel on 8-bit data).
public struct HistogramEqualization: Filter, Equatable {
    public static let descriptor = FilterDescriptor(
        displayName: "Histogram Equalization", coreImageName: nil, shortName: "histogram-equalization", category: "Histogram",
        summary: "spread each channel's levels evenly", parameters: [])
    public init() {}
    public init(arguments: FilterArguments) throws {}
    public var arguments: FilterArguments { FilterArguments() }
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

/// Histogram specification (matching): per channel R, G, B, each level s maps to the smallest
/// level d with CDF_ref(d) >= CDF_src(s), so the result's histogram follows the reference's.
public struct HistogramSpecification: Filter {
    public static let referenceImage = ParameterSpec.image(
        "inputReferenceImage", short: "reference",
        help: "the image whose histogram to match")
    public static let descriptor = FilterDescriptor(
        displayName: "Histogram Specification", coreImageName: nil, shortName: "histogram-specification", category: "Histogram",
        summary: "remap each channel to match a reference image's histogram", parameters: [referenceImage])

    public var reference: Image
    public var referenceName: String

    public init(reference: Image, name: String = "reference") {
        self.reference = reference
        referenceName = name
    }

    public init(arguments a: FilterArguments) throws {
        guard let r = a.image(Self.referenceImage) else {
            throw SfumatoError.invalidArgument("histogram-specification: needs reference=IMAGE")
        }
        reference = r
        referenceName = a.imageNames[Self.referenceImage.key] ?? "reference"
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.referenceImage, image: reference, name: referenceName)
        return a
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

/// Maps v through a per-channel table of 256 levels: bin = floor(v x 256) clamped, out = table[bin] / 255.
struct _LevelTable: ChannelCurve {
    let tables: [[UInt8]]
    let name: String
    func apply(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            var v = p[i]
            for c in 0..<3 {
                let bin = Int(min(max(v[c] * 256, 0), 255))
                v[c] = Float(tables[c][bin]) / 255
            }
            p[i] = v
        }
    }
}
