import Foundation

/// Two images combined pixel by pixel: on float tiles, or on 8-bit tiles where both inputs are
/// 8-bit and the kernel has an 8-bit form (``OpaqueByteBlend``).
final class _BlendExec: _Exec, @unchecked Sendable {
    let foreground: _Exec, background: _Exec
    let kernel: any BlendKernel
    /// The 8-bit route, when taken.
    private let bytes: _ByteBlender?

    init(_ fg: _Exec, _ bg: _Exec, _ kernel: any BlendKernel, extent: Rect) {
        foreground = fg
        background = bg
        self.kernel = kernel
        let form = fg.natural == .byte && bg.natural == .byte ? kernel.opaqueBytes : nil
        bytes = form.map { _ByteBlender(kernel, $0) }
        super.init(extent: extent, natural: bytes == nil ? .float : .byte, children: [fg, bg])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String {
        "\(kernel.name) (per pixel, \(bytes == nil ? "float" : bytes!.form.rows == nil ? "8-bit by table" : "8-bit vectors"))"
    }

    /// Opaque over opaque, both covering the whole extent, through a kernel that keeps opacity.
    override var opaqueWithin: Bool {
        bytes != nil && foreground.opaqueWithin && background.opaqueWithin && foreground.extent == extent
            && background.extent == extent
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        if let bytes {
            let f = try foreground.produce(rect, .byte, w)
            let b = try background.produce(rect, .byte, w)
            let out = b.isWritable ? b : (f.isWritable ? f : w.buffer(.byte, rect))
            for y in rect.y..<rect.maxY {
                bytes.blend(
                    f.byteTile.pointer(x: rect.x, y: y), b.byteTile.pointer(x: rect.x, y: y),
                    out.byteTile.pointer(x: rect.x, y: y), rect.width)
            }
            return _convert(out, to: kind, w)
        }
        let f = try foreground.produce(rect, .float, w)
        let b = try background.produce(rect, .float, w)
        let out = b.isWritable ? b : (f.isWritable ? f : w.buffer(.float, rect))
        let ft = f.floatTile, bt = b.floatTile, ot = out.floatTile
        for y in rect.y..<rect.maxY {
            kernel.apply(foreground: ft.row(y), background: bt.row(y), output: ot.row(y), count: rect.width)
        }
        return _convert(out, to: kind, w)
    }

    /// 8-bit results go straight into an 8-bit destination's rows (no tile to fill and copy
    /// out), made straight in place where the destination wants it and pixels may be transparent.
    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if let bytes, d.format == .rgb8, d.encoding == .srgb, let f = Self.packed(foreground, rect), let b = Self.packed(background, rect) {
            return Self.blendPacked(bytes, f, b, rect, into: d)
        }
        guard let bytes, d.format == .rgba8, d.encoding == .srgb else { return try super.store(rect, into: d, w) }
        let f = try foreground.produce(rect, .byte, w)
        let b = try background.produce(rect, .byte, w)
        let straighten = d.alpha == .straight && !(opaqueWithin && extent.contains(rect))
        for y in rect.y..<rect.maxY {
            let out = (d.row(y) + (rect.x - d.rect.x) * 4).assumingMemoryBound(to: UInt8.self)
            bytes.blend(f.byteTile.pointer(x: rect.x, y: y), b.byteTile.pointer(x: rect.x, y: y), out, rect.width)
            if straighten { _Convert.storeBytes(out, rect.width, premultiplied: false, out) }
        }
    }

    /// A packed RGB bitmap's pixels for `rect`, when `e` reads one that covers it.
    private static func packed(_ e: _Exec, _ rect: Rect) -> Bitmap? {
        guard let b = (e as? _BitmapExec)?.bitmap, b.format == .rgb8, b.encoding == .srgb, e.extent.contains(rect) else { return nil }
        return b
    }

    /// Packed RGB over packed RGB into packed RGB, a block of each row at a time through RGBA8
    /// in cache (both opaque: no straightening).
    private static func blendPacked(_ bytes: _ByteBlender, _ f: Bitmap, _ b: Bitmap, _ rect: Rect, into d: _Destination) {
        let block = _Convert.packedBlock
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8 * block) { buffer in
            let ft = buffer.baseAddress!, bt = ft + 4 * block
            for y in rect.y..<rect.maxY {
                let fr = f.row(y).assumingMemoryBound(to: UInt8.self), br = b.row(y).assumingMemoryBound(to: UInt8.self)
                let out = (d.row(y) + 3 * (rect.x - d.rect.x)).assumingMemoryBound(to: UInt8.self)
                var x = rect.x
                while x < rect.maxX {
                    let n = min(block, rect.maxX - x)
                    _Convert.expandRGB(fr + 3 * x, n, ft)
                    _Convert.expandRGB(br + 3 * x, n, bt)
                    bytes.blend(ft, bt, ft, n)
                    _Convert.packRGB(ft, n, out + 3 * (x - rect.x))
                    x += n
                }
            }
        }
    }
}
