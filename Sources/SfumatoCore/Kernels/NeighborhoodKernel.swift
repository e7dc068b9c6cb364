/// A filter whose output pixel depends on a neighbourhood of input pixels (blur, median,
/// convolution, morphology, resampling).
///
/// The renderer asks ``regionOfInterest(for:)`` which input pixels an output rectangle needs,
/// renders that much of the input, and calls ``apply(input:output:scratch:)``. Kernels that can
/// work exactly on 8-bit values (in the `.none` working space) say so with ``supportsBytes`` and
/// implement the byte variant too.
public protocol NeighborhoodKernel: Sendable {
    /// Name shown in render plans, e.g. `CIGaussianBlur`.
    var name: String { get }
    /// Detail shown in render plans, e.g. `separable, sigma 2, radius 6, 13 taps`.
    var detail: String { get }
    /// The output's extent for an input of the given extent.
    func outputExtent(forInput extent: Rect) -> Rect
    /// The input rectangle needed to compute `output` (on any tiles: the largest region).
    func regionOfInterest(for output: Rect) -> Rect
    /// The input rectangle the byte or float variant needs, when they differ (a kernel whose two
    /// variants are different algorithms); by default ``regionOfInterest(for:)``.
    func regionOfInterest(for output: Rect, bytes: Bool) -> Rect
    /// The part of output `rect` whose pixels read only inside an input of extent `input` (one
    /// rectangle, possibly empty). Where a render's 8-bit results go straight to the output, the
    /// renderer computes that part on 8-bit tiles and the rest in float, so that the partial
    /// alpha where a kernel meets the transparent outside keeps full precision. By default `rect`
    /// less the margins its region of interest reaches past it (a kernel whose output pixel reads
    /// around the same position of the input); a warp says where its samples land.
    func interior(of rect: Rect, input: Rect) -> Rect
    /// For a kernel whose interior slants across rows (a turn): rows a band of a border tile, each
    /// band finding its own interior; nil (the default): whole tiles.
    var interiorBandRows: Int? { get }
    /// Whether ``apply(input:output:scratch:)-2n8dx`` on byte tiles is implemented and exact.
    var supportsBytes: Bool { get }
    /// Computes `output.rect` from `input` (which covers `regionOfInterest(for: output.rect)`).
    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws
    /// Whether the 8-bit variant also takes grey tiles (``ByteTile/channels`` 1, no alpha), so a
    /// ``PixelFormat/gray8`` source renders a byte a pixel through this kernel. Only for kernels
    /// that treat every byte alike and keep an opaque input opaque: grey tiles cannot hold alpha.
    var supportsGray: Bool { get }
    /// Whether the 8-bit variant gives alpha 255 wherever every input pixel it reads has alpha
    /// 255. The renderer then skips making such results straight (they are the same either way),
    /// a pass over the output. By default ``supportsGray`` (which promises as much).
    var keepsOpaque: Bool { get }
    /// The 8-bit variant, called only when ``supportsBytes`` is true (and on grey tiles only
    /// when ``supportsGray`` is).
    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws
    /// Whether ``applyLinear(input:output:scratch:)`` is implemented: in the linear working space,
    /// the renderer then runs the kernel on opaque 8-bit sRGB tiles going to an 8-bit sRGB
    /// destination, instead of on float tiles (see ``_LinearWords``). Its bytes must be within one
    /// level of the float variant's result, encoded.
    var supportsLinearBytes: Bool { get }
    /// The kernel in linear light on opaque 8-bit sRGB tiles: decoded to linear 16-bit words,
    /// filtered, encoded back to bytes (alpha 255). Called only when ``supportsLinearBytes`` is
    /// true, with every input pixel opaque.
    func applyLinear(input: ByteTile, output: ByteTile, scratch: TileScratch) throws
    /// Whether each output value is one of the input's values of the same channel, picked by
    /// their order or position alone (a median, a minimum or maximum over a shape, a
    /// nearest-neighbour move), for an input within 0...1. Such a kernel commutes with every
    /// increasing map of the values, sRGB's encoding among them: in linear light its 8-bit
    /// variant on the sRGB bytes of an opaque input gives exactly the float route's result,
    /// encoded, and the renderer uses it so. Only with ``supportsBytes``.
    var picksInputValues: Bool { get }
    /// Whether ``applyEncodedBytes(input:output:scratch:)`` is implemented: in the `.none` working
    /// space the renderer then runs the kernel on opaque 8-bit tiles going straight to an 8-bit
    /// destination. For kernels whose results can leave 0...1 (the sharpeners): as 8-bit
    /// intermediates (``supportsBytes``) they would clip what a later filter should still see, so
    /// other consumers read float tiles. Its bytes must be within one level of the float variant's.
    var supportsEncodedBytes: Bool { get }
    /// The kernel on opaque 8-bit tiles of encoded values into an 8-bit destination (alpha 255).
    /// Called only when ``supportsEncodedBytes`` is true, with every input pixel opaque.
    func applyEncodedBytes(input: ByteTile, output: ByteTile, scratch: TileScratch) throws
    /// The same computation for a GPU device, when one is written (default nil: the kernel runs
    /// on the CPU only). It must give the 8-bit variant's bytes.
    var deviceKernel: DeviceKernel? { get }
}

extension NeighborhoodKernel {
    public func regionOfInterest(for output: Rect, bytes: Bool) -> Rect { regionOfInterest(for: output) }
    public var interiorBandRows: Int? { nil }
    public func interior(of rect: Rect, input e: Rect) -> Rect {
        let roi = regionOfInterest(for: rect, bytes: true)
        let left = rect.x - roi.x, top = rect.y - roi.y, right = roi.maxX - rect.maxX, bottom = roi.maxY - rect.maxY
        return Rect(x: e.x + left, y: e.y + top, width: e.width - left - right, height: e.height - top - bottom).intersection(rect)
    }
    public var supportsBytes: Bool { false }
    public var supportsGray: Bool { false }
    public var supportsLinearBytes: Bool { false }
    public func applyLinear(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        throw SfumatoError.unsupported("\(name) has no linear-light 8-bit implementation")
    }
    public var picksInputValues: Bool { false }
    public var supportsEncodedBytes: Bool { false }
    public func applyEncodedBytes(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        throw SfumatoError.unsupported("\(name) has no 8-bit implementation for a destination")
    }
    public var keepsOpaque: Bool { supportsGray }
    public var detail: String { "" }
    public var deviceKernel: DeviceKernel? { nil }
    public func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        throw SfumatoError.unsupported("\(name) has no 8-bit implementation")
    }
}

/// Temporary tiles for a kernel's own intermediate results (the first pass of a separable
/// filter, say). Memory comes from the render worker's pool and is reused after the call.
public final class TileScratch {
    let pool: _BufferPool
    private var held: [_PixelBuffer] = []

    init(pool: _BufferPool) { self.pool = pool }

    /// An uninitialised float tile covering `rect`, valid until the kernel returns.
    public func floatTile(_ rect: Rect) -> FloatTile {
        let b = _PixelBuffer(kind: .float, rect: rect, pool: pool)
        held.append(b)
        return b.floatTile
    }

    /// An uninitialised byte tile covering `rect` (`channels` 4 for RGBA, 1 for grey), valid
    /// until the kernel returns.
    public func byteTile(_ rect: Rect, channels: Int = 4) -> ByteTile {
        precondition(channels == 1 || channels == 4, "byte tiles have 4 channels (RGBA) or 1 (grey)")
        let b = _PixelBuffer(kind: channels == 1 ? .gray : .byte, rect: rect, pool: pool)
        held.append(b)
        return b.byteTile
    }

    /// Raw memory of `count` values of `T`, valid until the kernel returns.
    public func buffer<T>(of type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let bytes = max(count * MemoryLayout<T>.stride, 16)
        let pixels = (bytes + 15) / 16
        let b = _PixelBuffer(kind: .float, rect: Rect(width: pixels, height: 1), pool: pool)
        held.append(b)
        return b.raw.bindMemory(to: T.self, capacity: count)
    }

    func releaseAll() { held.removeAll(keepingCapacity: true) }
}
