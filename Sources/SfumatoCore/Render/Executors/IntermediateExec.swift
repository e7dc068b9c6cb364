import Foundation

/// ``Image/insertingIntermediate()``: the input stored into premultiplied sRGB RGBA8 rows
/// through its own `store`, so through the very 8-bit routes (tables, fixed-point matrices)
/// that a render to an 8-bit bitmap takes; then read on as 8-bit tiles (in the `.none` working
/// space) or as floats decoded from those bytes (in linear light).
final class _IntermediateExec: _Exec, @unchecked Sendable {
    let input: _Exec
    private let layout = _StoredLayout(format: .rgba8, encoding: .srgb, alpha: .premultiplied, opaque: false)

    init(_ input: _Exec, ws: WorkingSpace) {
        self.input = input
        super.init(extent: input.extent, natural: ws == .none ? .byte : .float, children: [input])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "8-bit intermediate (premultiplied RGBA8, sRGB)" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let inside = rect.intersection(extent)
        // Stored from a column on the image's grid of 4 to one on it (or the image's end): the
        // 8-bit routes take pixels four at a time from where they start, so the bytes do not
        // depend on where tiles begin (and are a whole render's, whose tiles start on that grid).
        let x0 = inside.isEmpty ? rect.x : extent.x + (inside.x - extent.x) / 4 * 4
        let x1 = inside.isEmpty ? rect.x : min(extent.maxX, extent.x + (inside.maxX - extent.x + 3) / 4 * 4)
        let stored = Rect(x: x0, y: inside.y, width: x1 - x0, height: inside.height)
        let cover = rect.union(stored)
        let bytes = w.buffer(.byte, cover)
        if inside != rect { bytes.zero() }
        if !stored.isEmpty {
            let t = bytes.byteTile
            let d = _Destination(
                base: UnsafeMutableRawPointer(t.pointer(x: stored.x, y: stored.y)), rowBytes: 4 * t.stride, rect: stored,
                format: .rgba8, encoding: .srgb, alpha: .premultiplied)
            try input.store(stored, into: d, w)
        }
        let view =
            cover == rect
            ? bytes
            : _PixelBuffer(
                kind: .byte, rect: rect, view: UnsafeMutableRawPointer(bytes.byteTile.pointer(x: rect.x, y: rect.y)), stride: bytes.stride,
                keepAlive: bytes)
        if natural == .byte || kind == .byte { return _convert(view, to: kind, w) }
        let out = w.buffer(.float, rect)
        for y in rect.y..<rect.maxY { layout.loadFloats(view.byteTile.row(y), rect.width, out.floatTile.row(y), w) }
        return _convert(out, to: kind, w)
    }
}
