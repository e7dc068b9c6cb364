import Foundation

/// Edge pixels repeated outward.
final class _ClampExec: _Exec, @unchecked Sendable {
    let input: _Exec
    init(_ input: _Exec) {
        self.input = input
        super.init(extent: .infinite, natural: input.natural, children: [input])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "clamp to extent \(input.extent) (edge pixels repeat)" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override var sRGBBytes: Bool { input.sRGBBytes }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let e = input.extent
        if e.contains(rect) { return try input.produce(rect, kind, w) }
        func cx(_ x: Int) -> Int { min(max(x, e.x), e.maxX - 1) }
        func cy(_ y: Int) -> Int { min(max(y, e.y), e.maxY - 1) }
        let x0 = cx(rect.x), x1 = cx(rect.maxX - 1), y0 = cy(rect.y), y1 = cy(rect.maxY - 1)
        let src = try input.produce(Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1), kind, w)
        let out = w.buffer(kind, rect)
        let bpp = kind.bytesPerPixel
        // Columns of the output that fall inside the input's x range copy directly.
        let midX0 = max(rect.x, e.x), midX1 = min(rect.maxX, e.maxX)
        for y in rect.y..<rect.maxY {
            let sy = cy(y)
            let srow: UnsafeMutableRawPointer =
                kind == .float
                ? UnsafeMutableRawPointer(src.floatTile.row(sy)) : UnsafeMutableRawPointer(src.byteTile.row(sy))
            let drow: UnsafeMutableRawPointer =
                kind == .float
                ? UnsafeMutableRawPointer(out.floatTile.row(y)) : UnsafeMutableRawPointer(out.byteTile.row(y))
            // srow starts at column x0; drow at rect.x.
            if midX1 > midX0 {
                memcpy(drow + (midX0 - rect.x) * bpp, srow + (midX0 - x0) * bpp, (midX1 - midX0) * bpp)
            }
            let leftEnd = min(rect.maxX, e.x)
            if rect.x < leftEnd {
                for x in rect.x..<leftEnd { memcpy(drow + (x - rect.x) * bpp, srow, bpp) }
            }
            let rightStart = max(rect.x, e.maxX)
            if rightStart < rect.maxX {
                let last = srow + (x1 - x0) * bpp
                for x in rightStart..<rect.maxX { memcpy(drow + (x - rect.x) * bpp, last, bpp) }
            }
        }
        return out
    }
}
