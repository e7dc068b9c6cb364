/// Which form a tile's pixels take inside a render.
public enum TileKind: String, Sendable {
    /// Premultiplied RGBA Float32 in the working space: the general form.
    case float
    /// Premultiplied RGBA8, sRGB-encoded: used only in the `.none` working space, by kernels
    /// whose 8-bit result is exact (median, morphology, 8-bit convolutions, lookup tables).
    case byte
    /// One 8-bit grey channel a pixel, opaque, sRGB-encoded: only in the `.none` working space,
    /// from ``PixelFormat/gray8`` sources, through kernels that implement grey (``NeighborhoodKernel/supportsGray``).
    case gray

    /// Bytes one pixel of this kind takes.
    public var bytesPerPixel: Int {
        switch self {
        case .float: 16
        case .byte: 4
        case .gray: 1
        }
    }
}

/// A window of float pixels: `rect` in image coordinates, rows `stride` pixels apart.
///
/// Kernels read and write tiles through ``row(_:)``, which takes an absolute image row.
public struct FloatTile: @unchecked Sendable {
    /// The image-space rectangle the tile covers.
    public var rect: Rect
    /// Pixel (`rect.x`, `rect.y`).
    public var base: UnsafeMutablePointer<SIMD4<Float>>
    /// Pixels from one row to the next.
    public var stride: Int

    public init(rect: Rect, base: UnsafeMutablePointer<SIMD4<Float>>, stride: Int) {
        self.rect = rect
        self.base = base
        self.stride = stride
    }

    /// The pixel at column `rect.x` of image row `y`.
    @inlinable @inline(__always)
    public func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        base + (y - rect.y) * stride
    }

    /// The pixel at image coordinates (`x`, `y`).
    @inlinable @inline(__always)
    public func pointer(x: Int, y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        base + (y - rect.y) * stride + (x - rect.x)
    }

    /// A sub-window (must lie inside this tile).
    public func cropped(to r: Rect) -> FloatTile {
        precondition(rect.contains(r), "\(r) outside tile \(rect)")
        return FloatTile(rect: r, base: pointer(x: r.x, y: r.y), stride: stride)
    }
}

/// A window of 8-bit pixels: RGBA (premultiplied, sRGB-encoded, 4 bytes a pixel) or grey
/// (1 byte a pixel), as ``channels`` says.
///
/// Kernels that treat every byte alike (convolution, morphology) work on both by walking
/// `rect.width * channels` bytes a row and reaching neighbours ``channels`` bytes apart.
public struct ByteTile: @unchecked Sendable {
    /// The image-space rectangle the tile covers.
    public var rect: Rect
    /// The first byte of pixel (`rect.x`, `rect.y`).
    public var base: UnsafeMutablePointer<UInt8>
    /// Pixels (not bytes) from one row to the next.
    public var stride: Int
    /// Bytes a pixel: 4 (RGBA) or 1 (grey).
    public var channels: Int

    public init(rect: Rect, base: UnsafeMutablePointer<UInt8>, stride: Int, channels: Int = 4) {
        self.rect = rect
        self.base = base
        self.stride = stride
        self.channels = channels
    }

    /// The first byte of column `rect.x` of image row `y`.
    @inlinable @inline(__always)
    public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> {
        base + channels * ((y - rect.y) * stride)
    }

    /// The first byte of pixel (`x`, `y`).
    @inlinable @inline(__always)
    public func pointer(x: Int, y: Int) -> UnsafeMutablePointer<UInt8> {
        base + channels * ((y - rect.y) * stride + (x - rect.x))
    }

    /// A sub-window (must lie inside this tile).
    public func cropped(to r: Rect) -> ByteTile {
        precondition(rect.contains(r), "\(r) outside tile \(rect)")
        return ByteTile(rect: r, base: pointer(x: r.x, y: r.y), stride: stride, channels: channels)
    }
}
