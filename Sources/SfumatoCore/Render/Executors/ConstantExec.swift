import Foundation

/// An infinite plane of one colour.
final class _ConstantExec: _Exec, @unchecked Sendable {
    let color: SIMD4<Float>  // premultiplied, working encoding
    let summary: String

    init(_ straight: SIMD4<Float>, _ encoding: ColorEncoding, extent: Rect, _ ws: WorkingSpace) {
        var c = straight
        if encoding != ws.encoding {
            c = encoding == .srgb ? SRGB.decode(c) : SRGB.encode(c)
            c.w = straight.w
        }
        color = SIMD4(c.x * c.w, c.y * c.w, c.z * c.w, c.w)
        summary = "\(straight)"
        super.init(extent: extent, natural: .float, children: [])
    }

    override var explanation: String { "constant colour \(summary)" }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let out = w.buffer(.float, rect)
        let inside = rect.intersection(extent)
        if inside != rect { out.zero() }
        if !inside.isEmpty {
            let t = out.floatTile
            for y in inside.y..<inside.maxY {
                t.pointer(x: inside.x, y: y).update(repeating: color, count: inside.width)
            }
        }
        return _convert(out, to: kind, w)
    }
}
