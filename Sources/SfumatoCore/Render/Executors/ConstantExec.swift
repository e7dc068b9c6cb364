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

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "constant colour \(summary)" }

    /// Straight into the destination: the colour stored once, as the float route would store
    /// it, then repeated along each row (transparent outside the extent).
    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let bpp = d.format.bytesPerPixel
        var pixel = [UInt8](repeating: 0, count: bpp)
        var c = color
        pixel.withUnsafeMutableBytes { _storeFloatRow(&c, 1, into: d, $0.baseAddress!, w) }
        let inside = rect.intersection(extent)
        for y in rect.y..<rect.maxY {
            let row = d.row(y) + (rect.x - d.rect.x) * bpp
            if y < inside.y || y >= inside.maxY || inside.isEmpty {
                memset(row, 0, rect.width * bpp)
                continue
            }
            memset(row, 0, (inside.x - rect.x) * bpp)
            let start = row + (inside.x - rect.x) * bpp
            pixel.withUnsafeBytes { _ = memcpy(start, $0.baseAddress!, bpp) }
            // Doubling copies: the pattern fills the run in log2(width) memcpy calls.
            var filled = 1
            while filled < inside.width {
                let n = min(filled, inside.width - filled)
                memcpy(start + filled * bpp, start, n * bpp)
                filled += n
            }
            memset(start + inside.width * bpp, 0, (rect.maxX - inside.maxX) * bpp)
        }
    }

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
