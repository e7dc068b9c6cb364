/// A per-pixel combination of two images (foreground over background and the like), on
/// premultiplied values in the working space.
public protocol BlendKernel: Sendable {
    /// Name shown in render plans.
    var name: String { get }
    /// The output's extent from the two inputs' extents.
    func outputExtent(foreground: Rect, background: Rect) -> Rect
    /// Combines `count` pixels: `output[i] = f(foreground[i], background[i])` (output may alias either).
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int)
    /// How the kernel runs on 8-bit tiles (in the `.none` working space, both inputs 8-bit):
    /// nil (the default) for float tiles only. See ``OpaqueByteBlend``.
    var opaqueBytes: OpaqueByteBlend? { get }
}

extension BlendKernel {
    public var opaqueBytes: OpaqueByteBlend? { nil }
}

/// Opaque RGBA8 pixels of the two inputs blended into `output` (which may alias either input),
/// from the start of `count` pixels four at a time, stopping at the first four in which either
/// input has a pixel that is not opaque: returns how many pixels were blended (a multiple of 4,
/// or `count`), each result opaque.
public typealias OpaqueByteRows =
    @Sendable (
        _ foreground: UnsafePointer<UInt8>, _ background: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, _ count: Int
    ) -> Int

/// The 8-bit route of a blend kernel whose every output colour channel depends only on the same
/// channel of its two inputs, and whose result of two opaque pixels is opaque (the separable
/// blend modes). The renderer then blends two opaque 8-bit pixels through a table of the float
/// kernel's own results for all 65,536 pairs of levels (so the bytes are the float route's, by
/// construction), or through ``rows`` where the kernel has vector code; pixels with any
/// transparency go through the float kernel one by one.
public struct OpaqueByteBlend: Sendable {
    /// Vector code for opaque pixels (see ``OpaqueByteRows``), which must give the table's bytes
    /// for every pair of levels (each kernel's tests compare the two); nil: the table.
    public let rows: OpaqueByteRows?

    /// A per-channel kernel blended through the table of its float results.
    public static let perChannel = OpaqueByteBlend(rows: nil)

    /// A per-channel kernel with vector code for opaque runs.
    public static func perChannel(rows: @escaping OpaqueByteRows) -> OpaqueByteBlend { OpaqueByteBlend(rows: rows) }
}

extension BlendKernel {
    /// The float kernel's 8-bit results for two opaque pixels, one table a colour channel (red,
    /// green, blue), `table[256 * backdrop + source]` for every pair of levels, computed as a
    /// float tile would be (each byte b read as b / 255 and the result rounded back), in the
    /// `.none` working space. Tests check vector code (``OpaqueByteBlend/rows``) against them.
    public func opaqueByteTables() -> [[UInt8]] { _BlendTables.tables(for: self) }
}
