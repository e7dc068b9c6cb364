import Foundation

/// A whole-pixel move: free, the tile is relabelled.
final class _TranslateExec: _Exec, @unchecked Sendable {
    let input: _Exec
    let dx: Int, dy: Int
    init(_ input: _Exec, dx: Int, dy: Int, extent: Rect) {
        self.input = input
        self.dx = dx
        self.dy = dy
        super.init(extent: extent, natural: input.natural, children: [input])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "translate by (\(dx), \(dy))" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override var sRGBBytes: Bool { input.sRGBBytes }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let b = try input.produce(Rect(x: rect.x - dx, y: rect.y - dy, width: rect.width, height: rect.height), kind, w)
        if b.isWritable {
            b.relabel(rect)
            return b
        }
        let view = _PixelBuffer(kind: b.kind, rect: rect, view: b.raw, stride: b.stride, keepAlive: b)
        return view
    }
}
