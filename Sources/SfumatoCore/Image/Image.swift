/// An image recipe: what to compute, not computed pixels (Core Image's `CIImage`).
///
/// Images are immutable values. Filters and transforms build new recipes from old ones in
/// constant time; nothing runs until a ``RenderContext`` renders a region. Every image has an
/// ``extent``, which may be infinite (a constant colour, or after ``clampedToExtent()``).
///
/// ```swift
/// let photo = Image(bitmap: bitmap)
/// let recipe = photo.applying([.linear(.identity)], name: "noop").cropped(to: Rect(width: 100, height: 100))
/// let result = try RenderContext().render(recipe)
/// ```
public struct Image: Sendable, CustomStringConvertible {
    let node: _Node

    init(node: _Node) { self.node = node }

    /// The region where the image may have non-transparent pixels.
    public var extent: Rect { node.extent }

    /// An image of a bitmap's pixels, with its top-left pixel at the origin.
    public init(bitmap: Bitmap) {
        node = _Node(.bitmap(bitmap), inputs: [], extent: bitmap.bounds)
    }

    /// An image read row by row from a decoder as a render needs it, so the whole decoded image
    /// never has to be in memory.
    public init(rows source: any RowSource) {
        node = _Node(.stream(source), inputs: [], extent: Rect(width: source.width, height: source.height))
    }

    /// An infinite image of one colour (straight, not premultiplied, RGBA 0...1 in `encoding`).
    ///
    /// ```swift
    /// Image(color: [1, 1, 1, 1]).cropped(to: Rect(width: 640, height: 480))   // a white canvas
    /// ```
    public init(color: SIMD4<Float>, encoding: ColorEncoding = .srgb) {
        node = _Node(.constant(color, encoding), inputs: [], extent: .infinite)
    }

    /// An image computed from each pixel's position (a gradient, a pattern, noise), infinite
    /// unless the generator gives an extent.
    ///
    /// ```swift
    /// let sky = Image(generator: myGradient).cropped(to: photo.extent)
    /// ```
    public init(generator: any PixelGenerator) {
        node = _Node(.generator(generator), inputs: [], extent: generator.extent)
    }

    /// An empty (fully transparent, zero-extent) image.
    public static let empty = Image(node: _Node(.constant(.zero, .linear), inputs: [], extent: .zero))

    /// The image cut to `rect` (transparent outside).
    public func cropped(to rect: Rect) -> Image {
        let e = extent.intersection(rect)
        if e == extent { return self }
        return Image(node: _Node(.crop(rect), inputs: [node], extent: e))
    }

    /// The image with its edge pixels repeated outward forever (infinite extent).
    ///
    /// The usual partner of neighbourhood filters: `clampedToExtent() -> blur -> cropped(to:)`
    /// blurs without darkening the borders.
    public func clampedToExtent() -> Image {
        if extent.isInfinite || extent.isEmpty { return self }
        return Image(node: _Node(.clamp, inputs: [node], extent: .infinite))
    }

    /// The image moved by whole pixels.
    public func translatedBy(dx: Int, dy: Int) -> Image {
        if dx == 0 && dy == 0 { return self }
        if case .translate(let ox, let oy) = node.op {
            return Image(node: node.inputs[0]).translatedBy(dx: dx + ox, dy: dy + oy)
        }
        return Image(node: _Node(.translate(dx, dy), inputs: [node], extent: extent.offsetBy(dx: dx, dy: dy)))
    }

    /// The image with per-pixel stages applied (see ``PointStage``). `name` appears in plans.
    public func applying(_ stages: [PointStage], name: String) -> Image {
        if stages.isEmpty { return self }
        // Stages do not move pixels, so the extent stays (as in Core Image, pixels outside it are
        // never computed, even by a stage that would give alpha 0 some colour).
        return Image(node: _Node(.point(stages, name: name), inputs: [node], extent: extent))
    }

    /// The image filtered by a neighbourhood kernel.
    public func applying(_ kernel: any NeighborhoodKernel) -> Image {
        Image(node: _Node(.neighborhood(kernel), inputs: [node], extent: kernel.outputExtent(forInput: extent)))
    }

    /// This image combined with a background by a blend kernel.
    public func blended(with background: Image, by kernel: any BlendKernel) -> Image {
        Image(
            node: _Node(
                .blend(kernel), inputs: [node, background.node],
                extent: kernel.outputExtent(foreground: extent, background: background.extent)))
    }

    /// This image mapped through stages computed from the histograms of this image and `others`.
    public func applying(_ mapping: any HistogramMapping, others: [Image] = []) -> Image {
        Image(node: _Node(.histogram(mapping), inputs: [node] + others.map(\.node), extent: extent))
    }

    public var description: String { "Image(\(extent), \(node.summary))" }
}

/// A decoder that can deliver an image's rows in order, from the top, any number of times.
public protocol RowSource: AnyObject, Sendable {
    /// Width in pixels.
    var width: Int { get }
    /// Height in pixels.
    var height: Int { get }
    /// The format rows are delivered in (`.rgba8`, `.rgb8`, `.gray8` or `.rgba16`, straight
    /// alpha, sRGB-encoded).
    var format: PixelFormat { get }
    /// Whether every pixel is opaque (a JPEG, a PNG without alpha).
    var isOpaque: Bool { get }
    /// A short description for render plans, e.g. `JPEG photo.jpg`.
    var summary: String { get }
    /// Starts reading from the first row.
    func makeReader() throws -> any RowReader
}

/// One pass of reading a ``RowSource``.
public protocol RowReader: AnyObject {
    /// Reads the next `count` rows into `buffer`, rows `rowBytes` apart; returns how many were read
    /// (fewer only at the end of the image). Throws on damaged data.
    func read(into buffer: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws -> Int
}

/// The algorithm side of a recipe: one operation and its inputs. Immutable.
final class _Node: @unchecked Sendable {
    enum Op {
        case bitmap(Bitmap)
        case stream(any RowSource)
        case constant(SIMD4<Float>, ColorEncoding)
        case generator(any PixelGenerator)
        case crop(Rect)
        case clamp
        case translate(Int, Int)
        case point([PointStage], name: String)
        case neighborhood(any NeighborhoodKernel)
        case blend(any BlendKernel)
        /// Inputs: image, background, mask (``Image/blended(over:mask:)``).
        case maskBlend
        /// ``Image/insertingIntermediate()``.
        case intermediate
        case histogram(any HistogramMapping)
        case reduction(any AreaReduction, Rect)
    }

    let op: Op
    private(set) var inputs: [_Node]
    let extent: Rect

    init(_ op: Op, inputs: [_Node], extent: Rect) {
        self.op = op
        self.inputs = inputs
        self.extent = extent
    }

    /// Frees a chain of nodes in a loop: released one inside another's deinit, a recipe of
    /// 60,000 steps overflowed the stack.
    deinit {
        var pending = inputs
        inputs = []
        while var node = pending.popLast() {
            if isKnownUniquelyReferenced(&node) {
                pending.append(contentsOf: node.inputs)
                node.inputs = []
            }
        }
    }

    var summary: String {
        switch op {
        case .bitmap(let b): "bitmap \(b.width)x\(b.height) \(b.format)"
        case .stream(let s): s.summary
        case .constant(let c, _): "colour \(c)"
        case .generator(let g): g.name
        case .crop(let r): "crop \(r)"
        case .clamp: "clamp to extent"
        case .translate(let dx, let dy): "translate \(dx),\(dy)"
        case .point(_, let name): name
        case .neighborhood(let k): k.name
        case .blend(let k): k.name
        case .maskBlend: "blend with mask"
        case .intermediate: "8-bit intermediate"
        case .histogram(let m): m.name
        case .reduction(let r, let area): "\(r.name) over \(area)"
        }
    }
}

extension Image {
    /// The image's colour values re-encoded: `.srgb -> .linear` decodes with the sRGB curve,
    /// `.linear -> .srgb` encodes. Used to run a filter in another working space inside a
    /// render (a linear-light tone curve inside a `.none` render, say): a per-channel stage,
    /// so it fuses with neighbouring colour filters.
    public func convertingEncoding(from: ColorEncoding, to: ColorEncoding) -> Image {
        if from == to { return self }
        return applying([.curve(_TransferCurve(decode: from == .srgb))], name: from == .srgb ? "sRGB to linear" : "linear to sRGB")
    }
}

struct _TransferCurve: ChannelCurve {
    let decode: Bool
    var name: String { decode ? "sRGB decode" : "sRGB encode" }
    func apply(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        if decode {
            for i in 0..<count { p[i] = SRGB.decode(p[i]) }
        } else {
            for i in 0..<count { p[i] = SRGB.encode(p[i]) }
        }
    }
}
