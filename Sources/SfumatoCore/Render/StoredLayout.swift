import Foundation

/// Executors that read rows straight from stored pixels, so a fused point pass can convert
/// source rows into its chunk buffer without an intermediate tile.
protocol _RowReadable: _Exec {
    /// Whether rows come as 8-bit straight (or opaque) sRGB, for lookup-table passes.
    var hasStraightBytes: Bool { get }
    /// Calls `body` with pointers to the stored pixels of `rect` (inside the extent), row by row.
    func withStoredRows(_ rect: Rect, _ w: _Worker, _ body: (Int, UnsafeRawPointer) throws -> Void) throws
    /// Converts `count` stored pixels into working floats.
    func load(_ stored: UnsafeRawPointer, _ count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker)
}

/// Reading stored pixels of a given layout into tiles (shared by bitmaps and streams).
struct _StoredLayout {
    let format: PixelFormat
    let encoding: ColorEncoding
    let alpha: AlphaMode
    let opaque: Bool

    func loadFloats(_ p: UnsafeRawPointer, _ count: Int, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker) {
        switch format {
        case .rgba8:
            _Convert.loadRGBA8(
                p.assumingMemoryBound(to: UInt8.self), count, premultiplied: alpha == .premultiplied,
                linear: w.linear, dst)
        case .rgba16:
            _Convert.loadRGBA16(
                p.assumingMemoryBound(to: UInt16.self), count, premultiplied: alpha == .premultiplied,
                linear: w.linear, dst)
        case .rgbaFloat32:
            _Convert.loadFloat(
                p.assumingMemoryBound(to: SIMD4<Float>.self), count, encoding: encoding,
                premultiplied: alpha == .premultiplied, workingEncoding: w.workingSpace.encoding, dst)
        case .gray8:
            _Convert.loadGray8(
                p.assumingMemoryBound(to: UInt8.self), count, encoding: encoding,
                workingEncoding: w.workingSpace.encoding, dst)
        case .rgb8:
            _Convert.loadRGB8(p.assumingMemoryBound(to: UInt8.self), count, linear: w.linear, dst)
        }
    }

    /// Fills tile `out` (covering `rect`) from stored rows, transparent outside `extent`. A grey
    /// tile comes only from grey rows; 8-bit RGBA tiles from RGBA8, packed RGB or grey rows.
    func fill(
        _ out: _PixelBuffer, extent: Rect, _ w: _Worker,
        rows: (Rect, (Int, UnsafeRawPointer) throws -> Void) throws -> Void
    ) throws {
        let rect = out.rect
        let inside = rect.intersection(extent)
        if inside != rect { out.zero() }
        if inside.isEmpty { return }
        let offset = (inside.x - extent.x) * format.bytesPerPixel
        precondition(out.kind != .gray || format == .gray8, "grey tiles come from grey rows")
        try rows(inside) { y, p in
            if out.kind == .gray {
                memcpy(out.byteTile.pointer(x: inside.x, y: y), p + offset, inside.width)
            } else if out.kind == .byte && format == .gray8 {
                _Convert.grayToBytes(
                    (p + offset).assumingMemoryBound(to: UInt8.self), inside.width,
                    out.byteTile.pointer(x: inside.x, y: y))
            } else if out.kind == .byte && format == .rgb8 {
                _Convert.expandRGB(
                    (p + offset).assumingMemoryBound(to: UInt8.self), inside.width,
                    out.byteTile.pointer(x: inside.x, y: y))
            } else if out.kind == .byte {
                _Convert.loadBytes(
                    (p + offset).assumingMemoryBound(to: UInt8.self), inside.width,
                    premultiplied: alpha == .premultiplied, opaque: opaque,
                    out.byteTile.pointer(x: inside.x, y: y))
            } else {
                loadFloats(p + offset, inside.width, out.floatTile.pointer(x: inside.x, y: y), w)
            }
        }
    }
}
