import Foundation

/// Two images combined pixel by pixel.
final class _BlendExec: _Exec, @unchecked Sendable {
    let foreground: _Exec, background: _Exec
    let kernel: any BlendKernel

    init(_ fg: _Exec, _ bg: _Exec, _ kernel: any BlendKernel, extent: Rect) {
        foreground = fg
        background = bg
        self.kernel = kernel
        super.init(extent: extent, natural: .float, children: [fg, bg])
    }

    override var explanation: String { "\(kernel.name) (per pixel, float)" }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let f = try foreground.produce(rect, .float, w)
        let b = try background.produce(rect, .float, w)
        let out = b.isWritable ? b : (f.isWritable ? f : w.buffer(.float, rect))
        let ft = f.floatTile, bt = b.floatTile, ot = out.floatTile
        for y in rect.y..<rect.maxY {
            kernel.apply(foreground: ft.row(y), background: bt.row(y), output: ot.row(y), count: rect.width)
        }
        return _convert(out, to: kind, w)
    }
}
