import Foundation

/// Receives a render's rows in order, top to bottom (an encoder writing a file, say).
public protocol RowSink: AnyObject {
    /// Takes `count` rows, `rowBytes` apart, starting at `rows`.
    func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws
}

/// A sink that encodes each strip of a render on the thread that rendered it, several strips at
/// once and in any order, and then takes the encoded strips in order: the encoding leaves the
/// one thread that writes (a JPEG compressed in bands joined by restart markers, say).
///
/// A render to such a sink makes every strip but the last the same height, a multiple of
/// ``stripRowMultiple``; ``RowSink/write(rows:rowBytes:count:)`` stays for callers with rows
/// of their own.
public protocol StripEncodingSink: RowSink {
    /// What strip heights must be a multiple of (1...64): an encoder's block rows.
    var stripRowMultiple: Int { get }
    /// Encodes the `count` rows of strip `index` (0 at the top), `rowBytes` apart, on any thread,
    /// concurrently with other strips.
    func encode(strip index: Int, rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws -> [UInt8]
    /// Takes strip `index`, `count` rows encoded, after every strip above it.
    func write(encoded: [UInt8], strip index: Int, count: Int) throws
}

/// Renders image recipes into pixels (Core Image's `CIContext`).
///
/// A render splits the requested rectangle into strips of rows, each strip into tiles, and has
/// every core compute tiles. Each tile pulls exactly the input region it needs through the
/// recipe, so memory stays bounded by (threads x tile) however large the image: a
/// 100-megapixel JPEG filtered into a JPEG holds a few strips of float data, not whole images.
/// Consecutive per-pixel filters run fused, as one pass.
///
/// ```swift
/// let context = RenderContext(workingSpace: .linear)
/// let bitmap = try context.render(image)                       // 8-bit sRGB, image's extent
/// print(try context.explain(image, rect: image.extent))          // the passes it will run
/// ```
public final class RenderContext: Sendable {
    /// Options fixed for the context's lifetime.
    public struct Options: Sendable {
        /// The space filters compute in.
        public var workingSpace: WorkingSpace = .linear
        /// Threads to use (1...512); defaults to the number of cores.
        public var threads: Int = defaultThreadCount
        /// Tile width in pixels (16...65536); renders on grey tiles (a byte a pixel) use tiles twice
        /// as wide (6000x4000 grey, medians of 11: 5x5 closing 8.8 -> 7.1 ms, disc dilation 11.9 ->
        /// 11.0 ms; four times as wide was slower for the disc, whose five run-length tiles then
        /// outgrow the cache).
        public var tileWidth: Int = 1024
        /// Strip (tile) height in pixels (1...4096); smaller strips are used for small renders so
        /// every thread gets work.
        public var tileHeight: Int = 64
        /// Whether renders made only of pixel-for-pixel passes (point filters, blends, crops,
        /// copies) run in strips as wide as the output instead of tiles of ``tileWidth``: a strip
        /// of a row-major bitmap is one block of memory, which the processor's prefetchers stream,
        /// where 1024-pixel tiles cut every row into 4 KiB pieces (6000x4000 sepia, 2 cores:
        /// 7.5 -> 4.4 ms). Defaults to on unless a tile width other than 1024 is given.
        public var fullWidthStrips = true
        /// Whether consecutive point filters fuse into one pass (turn off to measure fusion).
        public var fusion: Bool = true
        /// Whether, in the linear working space, kernels with a linear-light 8-bit variant
        /// (``NeighborhoodKernel/supportsLinearBytes``) use it for opaque 8-bit sRGB images going
        /// to 8-bit sRGB output: within a level of the float tiles' result, at about the speed
        /// of the `.none` working space. Turn off for the float route's exact bytes.
        public var linearBytes: Bool = true
        /// When set and cancelled, renders stop before their next strip with ``SfumatoError/cancelled(_:)``.
        public var cancellation: CancellationToken?
        /// Where renders compute (``RenderDevice``); the CPU by default.
        public var device: RenderDevice = .cpu
        /// Bytes of GPU memory a render may hold (1 MiB and up; nil: three quarters of what is
        /// free). An image whose buffers would not fit runs in horizontal bands that do.
        public var deviceMemoryLimit: Int?

        public init(
            workingSpace: WorkingSpace = .linear, threads: Int = defaultThreadCount, tileWidth: Int = 1024,
            tileHeight: Int = 64, fusion: Bool = true, cancellation: CancellationToken? = nil, device: RenderDevice = .cpu,
            deviceMemoryLimit: Int? = nil, fullWidthStrips: Bool? = nil
        ) {
            // A tile width given is a tile width wanted (tests use small tiles to exercise tiling).
            self.fullWidthStrips = fullWidthStrips ?? (tileWidth == 1024)
            self.cancellation = cancellation
            self.device = device
            self.deviceMemoryLimit = deviceMemoryLimit.map { max($0, 1 << 20) }
            self.workingSpace = workingSpace
            self.threads = min(max(threads, 1), 512)
            self.tileWidth = min(max(tileWidth, 16), 65536)
            self.tileHeight = min(max(tileHeight, 1), 4096)
            self.fusion = fusion
        }
    }

    /// The context's options.
    public let options: Options

    /// A context with the given options.
    public init(options: Options) { self.options = options }

    /// A context computing in `workingSpace` on every core.
    public convenience init(workingSpace: WorkingSpace = .linear) {
        self.init(options: Options(workingSpace: workingSpace))
    }

    /// The working space of this context.
    public var workingSpace: WorkingSpace { options.workingSpace }

    // MARK: - Rendering

    /// Renders `rect` (default: the image's extent, which must then be finite) into a new bitmap.
    ///
    /// - Parameters:
    ///   - format: Storage of the result; 8- and 16-bit results are sRGB-encoded.
    ///   - alpha: Straight (as files hold) or premultiplied.
    ///   - encoding: For float results, linear (default) or sRGB-encoded values.
    public func render(
        _ image: Image, rect: Rect? = nil, format: PixelFormat = .rgba8,
        alpha: AlphaMode = .straight, encoding: ColorEncoding? = nil
    ) throws -> Bitmap {
        let r = rect ?? image.extent
        guard !r.isInfinite, !r.isEmpty else {
            throw SfumatoError.invalidArgument("cannot render an \(r.isEmpty ? "empty" : "infinite") region; give a finite rectangle")
        }
        // Every pixel of the rectangle is written, so the bitmap need not start zero.
        let bitmap = try Bitmap(width: r.width, height: r.height, format: format, encoding: encoding, alpha: alpha, zeroed: false)
        try render(image, rect: r, into: bitmap)
        return bitmap
    }

    /// Renders `rect` of the image into `bitmap`; pixel (`rect.x`, `rect.y`) lands at `origin`
    /// (default: the bitmap's top-left pixel).
    public func render(_ image: Image, rect: Rect, into bitmap: Bitmap, at origin: (x: Int, y: Int) = (0, 0)) throws {
        guard origin.x >= 0, origin.y >= 0, origin.x + rect.width <= bitmap.width, origin.y + rect.height <= bitmap.height else {
            throw SfumatoError.invalidArgument("region \(rect) at \(origin) does not fit a \(bitmap.width)x\(bitmap.height) bitmap")
        }
        bitmap.pixelsChanged()
        let d = _Destination(
            base: bitmap.row(origin.y) + origin.x * bitmap.format.bytesPerPixel, rowBytes: bitmap.rowBytes,
            rect: rect, format: bitmap.format, encoding: bitmap.encoding, alpha: bitmap.alpha, owner: bitmap)
        try withExtendedLifetime(bitmap) {
            try run(image, rect: rect, destination: .memory(d))
        }
    }

    /// Renders `rect` strip by strip into `sink`, in order, holding only a few strips at once.
    public func render(
        _ image: Image, rect: Rect, format: PixelFormat = .rgba8, alpha: AlphaMode = .straight,
        encoding: ColorEncoding? = nil, to sink: any RowSink
    ) throws {
        guard !rect.isInfinite, !rect.isEmpty else {
            throw SfumatoError.invalidArgument("cannot render an \(rect.isEmpty ? "empty" : "infinite") region")
        }
        let enc = encoding ?? (format == .rgbaFloat32 ? .linear : .srgb)
        try run(image, rect: rect, destination: .sink(sink, format, enc, alpha))
    }

    /// Counts the values of `image` over its (finite) extent: `bins` per channel, on
    /// unpremultiplied values in the working space.
    public func histogram(of image: Image, bins: Int = 256) throws -> Histogram {
        guard !image.extent.isInfinite, !image.extent.isEmpty else {
            throw SfumatoError.invalidArgument("a histogram needs a finite, non-empty image")
        }
        let plan = try _Plan(image, workingSpace: workingSpace, fuse: options.fusion, linearBytes: options.linearBytes, threads: options.threads)
        try prepare(plan)
        defer { plan.streams.forEach { $0.endPass() } }
        return try count(plan.root, plan: plan, bins: bins)
    }

    /// Describes the passes a render of `rect` would run: which filters fused into which pass,
    /// tile size, threads. This is what `sfumato apply --explain` prints.
    public func explain(_ image: Image, rect: Rect? = nil, format: PixelFormat = .rgba8) throws -> String {
        let r = rect ?? image.extent
        let plan = try _Plan(image, workingSpace: workingSpace, fuse: options.fusion, linearBytes: options.linearBytes, threads: options.threads)
        // As a render to memory lays it out (a render to a sink streams, in shorter strips).
        let layout = stripLayout(r, streamed: !plan.streams.isEmpty)
        var lines = [
            "render \(r) -> \(format); working space \(workingSpace); \(options.threads) thread(s); "
                + "\(layout.count) strip(s) of \(layout.height) rows in tiles of \(tileWidth(plan, r))x\(layout.height)"
                + "; fusion \(options.fusion ? "on" : "off")"
                + "; vectors \(CPUFeatures.wideVectors ? "AVX-512 where a kernel has a twin" : "baseline (SSE2)")"
        ]
        lines.append(deviceLine(plan, r, format: format))
        for s in plan.streams {
            let cap = streamCapacity(plan, s, r, layout)
            lines.append("stream window: \(cap) decoded rows of \(s.source.summary) kept at a time")
        }
        for h in plan.histograms {
            lines.append("pre-pass: count \(h.mapping.bins)-bin histograms for \(h.mapping.name)")
        }
        lines.append("passes (inputs first):")
        lines += plan.describe().map { "  " + $0 }
        if let p = plan.root as? _PointExec, p.input is _RowReadable {
            lines.append("the last pass reads source rows and writes the output directly (decode and encode fused)")
        }
        return lines.joined(separator: "\n")
    }
}
