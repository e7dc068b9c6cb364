import Foundation

/// A persistent bitmap that recipes can read and write, frame after frame (Core Image's
/// `CIImageAccumulator`): the ink layer of the studio, ForceSketch's fading canvas.
///
/// Pixels are premultiplied, in `encoding` (sRGB-encoded for the `.none` working space, linear
/// for `.linear`), stored as RGBA8 or RGBA Float32. ``image`` reads the current contents as a
/// recipe; ``setImage(_:dirtyRect:context:)`` renders a recipe (which may read ``image`` itself)
/// into it. A second buffer is kept, so feeding the accumulator back into itself never
/// allocates per frame.
///
/// ```swift
/// let layer = try ImageAccumulator(extent: Rect(width: 1920, height: 1280), format: .rgba8)
/// try layer.setImage(strokes.composited(over: layer.image), dirtyRect: dirty, context: context)
/// ```
public final class ImageAccumulator: @unchecked Sendable {
    /// The region it covers.
    public let extent: Rect
    /// RGBA8 or RGBA Float32.
    public let format: PixelFormat
    /// How the stored values are encoded.
    public let encoding: ColorEncoding
    private(set) var front: Bitmap
    private var back: Bitmap

    /// An accumulator of transparent black.
    public init(extent: Rect, format: PixelFormat = .rgbaFloat32, encoding: ColorEncoding = .srgb) throws {
        guard format == .rgba8 || format == .rgbaFloat32 else {
            throw SfumatoError.unsupported("an accumulator stores RGBA8 or RGBA Float32, not \(format)")
        }
        guard !extent.isEmpty, !extent.isInfinite else {
            throw SfumatoError.invalidArgument("an accumulator needs a finite, non-empty extent, not \(extent)")
        }
        self.extent = extent
        self.format = format
        self.encoding = encoding
        front = try Bitmap(width: extent.width, height: extent.height, format: format, encoding: encoding, alpha: .premultiplied)
        back = try Bitmap(width: extent.width, height: extent.height, format: format, encoding: encoding, alpha: .premultiplied)
    }

    /// The current contents as a recipe (valid until the next change).
    public var image: Image { Image(bitmap: front).translatedBy(dx: extent.x, dy: extent.y) }

    /// The stored pixels (premultiplied), for reading; do not keep it across changes.
    public var bitmap: Bitmap { front }

    /// Renders `recipe` over `dirtyRect` (default: everything) and keeps the result; pixels
    /// outside the dirty rectangle are left as they were.
    public func setImage(_ recipe: Image, dirtyRect: Rect? = nil, context: RenderContext) throws {
        let r = (dirtyRect ?? extent).intersection(extent)
        if r.isEmpty { return }
        // Render into the back buffer (the recipe may read the front one), then copy the
        // untouched remainder across and swap.
        try context.render(recipe, rect: r, into: back, at: (r.x - extent.x, r.y - extent.y))
        if r != extent {
            let bpp = format.bytesPerPixel
            for y in 0..<extent.height {
                let inside = y >= r.y - extent.y && y < r.maxY - extent.y
                if !inside {
                    memcpy(back.row(y), front.row(y), back.rowBytes)
                } else {
                    let x0 = r.x - extent.x, x1 = r.maxX - extent.x
                    if x0 > 0 { memcpy(back.row(y), front.row(y), x0 * bpp) }
                    if x1 < extent.width { memcpy(back.row(y) + x1 * bpp, front.row(y) + x1 * bpp, (extent.width - x1) * bpp) }
                }
            }
        }
        swap(&front, &back)
    }

    /// Sets every pixel to transparent black.
    public func clear() { front.clear() }

    /// Runs `body` with the front and back buffers (for in-place kernels that write `back` from
    /// `front`), then swaps them.
    public func withBuffers(_ body: (_ source: Bitmap, _ destination: Bitmap) throws -> Void) rethrows {
        try body(front, back)
        swap(&front, &back)
    }
}
