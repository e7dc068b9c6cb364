import Foundation
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// A bitmap's pixels.
final class _BitmapExec: _Exec, _RowReadable, @unchecked Sendable {
    let bitmap: Bitmap
    let layout: _StoredLayout

    init(_ bitmap: Bitmap, _ ws: WorkingSpace, threads: Int) {
        self.bitmap = bitmap
        let opaque =
            bitmap.format.isAlwaysOpaque
            || (bitmap.format == .rgba8 && bitmap.alpha == .straight ? bitmap._isOpaque(threads: threads) : false)
        layout = _StoredLayout(format: bitmap.format, encoding: bitmap.encoding, alpha: bitmap.alpha, opaque: opaque)
        // 8-bit tiles only for opaque (or already premultiplied) data: premultiplying straight
        // 8-bit colour would round away precision that the float path keeps.
        let byte = ws == .none && (bitmap.format == .rgb8 || bitmap.format == .rgba8 && (opaque || bitmap.alpha == .premultiplied))
        let gray = ws == .none && bitmap.format == .gray8 && bitmap.encoding == .srgb
        super.init(extent: bitmap.bounds, natural: gray ? .gray : (byte ? .byte : .float), children: [])
    }

    var hasStraightBytes: Bool { bitmap.format == .rgb8 || bitmap.format == .rgba8 && (bitmap.alpha == .straight || layout.opaque) }

    override var opaqueWithin: Bool { layout.opaque }

    override var sRGBBytes: Bool { (bitmap.format == .rgba8 || bitmap.format == .rgb8) && bitmap.encoding == .srgb && layout.opaque }

    override var isPixelForPixel: Bool { true }

    override var explanation: String {
        "read bitmap \(bitmap.width)x\(bitmap.height) \(bitmap.format) \(bitmap.encoding)\(layout.opaque ? ", opaque" : "")"
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        if kind == .byte && bitmap.format == .rgba8 && (natural == .byte || sRGBBytes) && extent.contains(rect)
            && (bitmap.alpha == .premultiplied || layout.opaque)
        {
            let p = bitmap.row(rect.y) + rect.x * 4
            return _PixelBuffer(kind: .byte, rect: rect, view: p, stride: bitmap.width, keepAlive: bitmap)
        }
        if kind == .gray && natural == .gray && extent.contains(rect) {
            return _PixelBuffer(kind: .gray, rect: rect, view: bitmap.row(rect.y) + rect.x, stride: bitmap.width, keepAlive: bitmap)
        }
        if kind == .gray && bitmap.format != .gray8 {
            return _convert(try produce(rect, .float, w), to: .gray, w)
        }
        if kind == .float && bitmap.format == .rgbaFloat32 && bitmap.alpha == .premultiplied
            && bitmap.encoding == w.workingSpace.encoding && extent.contains(rect)
        {
            let p = bitmap.row(rect.y) + rect.x * 16
            return _PixelBuffer(kind: .float, rect: rect, view: p, stride: bitmap.width, keepAlive: bitmap)
        }
        let out = w.buffer(kind, rect)
        try layout.fill(out, extent: extent, w) { inside, body in
            try withStoredRows(inside, w, body)
        }
        return out
    }

    func withStoredRows(_ rect: Rect, _ w: _Worker, _ body: (Int, UnsafeRawPointer) throws -> Void) throws {
        for y in rect.y..<rect.maxY { try body(y, UnsafeRawPointer(bitmap.row(y))) }
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if !(try _storeStoredRows(self, layout, rect, into: d, w)) { try super.store(rect, into: d, w) }
    }

    func load(_ stored: UnsafeRawPointer, _ count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker) {
        layout.loadFloats(stored, count, dst, w)
    }
}

/// Destinations of at least this many bytes are written with streaming stores by plain copies.
let _streamingThreshold = 8 << 20

/// Copies stored 8-bit rows straight into an 8-bit destination when nothing needs converting
/// (no filter between source and output), or only packing: opaque RGBA8 and packed RGB turn into
/// each other. Returns false when another conversion is needed.
func _storeStoredRows(
    _ source: _RowReadable, _ layout: _StoredLayout, _ rect: Rect, into d: _Destination,
    _ w: _Worker
) throws -> Bool {
    let same =
        (layout.format == .rgba8 && d.format == .rgba8 && (layout.opaque || layout.alpha == d.alpha) && layout.encoding == d.encoding)
        || (layout.format == .gray8 && d.format == .gray8 && layout.encoding == d.encoding)
        || (layout.format == .rgb8 && d.format == .rgb8 && layout.encoding == d.encoding)
    let packs = layout.format == .rgba8 && layout.opaque && d.format == .rgb8 && layout.encoding == d.encoding
    let expands = layout.format == .rgb8 && d.format == .rgba8 && layout.encoding == d.encoding
    guard same || packs || expands, source.extent.contains(rect) else { return false }
    if packs || expands {
        let offset = (rect.x - source.extent.x) * layout.format.bytesPerPixel
        try source.withStoredRows(rect, w) { y, p in
            let s = (p + offset).assumingMemoryBound(to: UInt8.self)
            let out = (d.row(y) + (rect.x - d.rect.x) * d.format.bytesPerPixel).assumingMemoryBound(to: UInt8.self)
            if packs { _Convert.packRGB(s, rect.width, out) } else { _Convert.expandRGB(s, rect.width, out) }
        }
        return true
    }
    let bpp = d.format.bytesPerPixel
    let offset = (rect.x - source.extent.x) * bpp
    // A large copy stores past the cache (see _streamingCopyAVX512): its rows would not stay.
    let streaming = CPUFeatures.wideVectors && d.rect.area * bpp >= _streamingThreshold
    try source.withStoredRows(rect, w) { y, p in
        let out = d.row(y) + (rect.x - d.rect.x) * bpp
        #if arch(x86_64)
            if streaming { return _streamingCopyAVX512(p + offset, out, count: rect.width * bpp) }
        #endif
        memcpy(out, p + offset, rect.width * bpp)
    }
    #if arch(x86_64)
        if streaming { _storeFence() }
    #endif
    return true
}
