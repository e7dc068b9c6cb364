import SfumatoCore

/// CIEdges: intensity times the Sobel gradient magnitude sqrt(Gx^2 + Gy^2) of each colour channel
/// (the gallery's ``Sobel`` kernels, edges clamped), computed in one float pass so that a large
/// intensity does not magnify an 8-bit rounding; alpha kept (**choice**: Apple says only that edges
/// are found and shown in colour).
public struct Edges: DeclaredFilter, Equatable {
    public static let intensity = ParameterSpec.number(
        "inputIntensity", default: 1, range: 0...100, slider: 0...10, help: "how bright the edges are")
    public static let fields: [FilterField<Edges>] = [.number(intensity, \.intensity)]
    public static let descriptor = FilterDescriptor(
        displayName: "Edges", coreImageName: "CIEdges", shortName: "edges", category: .stylize,
        summary: "the edges, bright on black, in colour", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(intensity: 1) }

    public var intensity: Double

    public init(intensity: Double = 1) { self.intensity = intensity }

    public func apply(to image: Image) -> Image {
        if intensity == 1 { return Sobel().apply(to: image) }
        return _withEdges(image, .clamp) { $0.applying(_EdgesKernel(intensity: Float(intensity))) }
    }
}

/// k sqrt(Gx^2 + Gy^2) per colour channel (premultiplied), alpha of the centre pixel.
struct _EdgesKernel: NeighborhoodKernel {
    let intensity: Float
    var name: String { "CIEdges" }
    var detail: String { "Sobel x \(intensity)" }
    func outputExtent(forInput e: Rect) -> Rect { e.insetBy(dx: -1, dy: -1) }
    func regionOfInterest(for o: Rect) -> Rect { o.insetBy(dx: -1, dy: -1) }

    func apply(input: FloatTile, output out: FloatTile, scratch: TileScratch) throws {
        for y in out.rect.y..<out.rect.maxY {
            let a = input.row(y - 1) - input.rect.x, b = input.row(y) - input.rect.x, c = input.row(y + 1) - input.rect.x
            let dst = out.row(y) - out.rect.x
            for x in out.rect.x..<out.rect.maxX {
                let gx = a[x + 1] + 2 * b[x + 1] + c[x + 1] - a[x - 1] - 2 * b[x - 1] - c[x - 1]
                let gy = c[x - 1] + 2 * c[x] + c[x + 1] - a[x - 1] - 2 * a[x] - a[x + 1]
                var m = intensity * (gx * gx + gy * gy).squareRoot()
                m.w = b[x].w
                dst[x] = m
            }
        }
    }
}
