/// Computes pixels from their positions alone: the algorithm of a generator image (gradients,
/// checkerboards, noise). See ``Image/init(generator:)``.
///
/// Colours are straight (not premultiplied) RGBA in ``encoding``; the renderer converts them to
/// the working space and premultiplies. Pixel (x, y) is the square whose centre is
/// (x + 0.5, y + 0.5), y pointing down.
public protocol PixelGenerator: Sendable {
    /// Name shown in render plans.
    var name: String { get }
    /// The encoding of the colours ``generate(into:x:y:count:)`` writes.
    var encoding: ColorEncoding { get }
    /// Where the image has pixels (by default the whole plane).
    var extent: Rect { get }
    /// Whether the values are colours, converted to the working space (by default); false for
    /// factors (a mask's weights), which the renderer passes on as they are.
    var isColor: Bool { get }
    /// Writes pixels (x, y) ... (x + count - 1, y), straight RGBA.
    func generate(into row: UnsafeMutablePointer<SIMD4<Float>>, x: Int, y: Int, count: Int)
    /// Writes pixels (x, y) ... (x + count - 1, y) as straight sRGB RGBA8, the very bytes a
    /// render in the `.none` working space stores from ``generate(into:x:y:count:)`` (each
    /// value rounded to a level; a pixel of alpha 0 all zero), for an 8-bit output written
    /// without floats. Returns false (the default) where the generator has no such form.
    func generateStraightBytes(into row: UnsafeMutablePointer<UInt8>, x: Int, y: Int, count: Int) -> Bool
}

extension PixelGenerator {
    public var extent: Rect { .infinite }
    public var isColor: Bool { true }
    public func generateStraightBytes(into row: UnsafeMutablePointer<UInt8>, x: Int, y: Int, count: Int) -> Bool { false }
}
