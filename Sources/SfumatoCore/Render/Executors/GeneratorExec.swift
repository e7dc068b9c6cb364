import Foundation

/// Pixels from a generator, converted to the working space and premultiplied.
final class _GeneratorExec: _Exec, @unchecked Sendable {
    let generator: any PixelGenerator
    let convert: Bool
    let decode: Bool

    init(_ generator: any PixelGenerator, extent: Rect, _ ws: WorkingSpace) {
        self.generator = generator
        convert = generator.isColor && generator.encoding != ws.encoding
        decode = generator.encoding == .srgb
        super.init(extent: extent, natural: .float, children: [])
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "generate \(generator.name)" }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let out = w.buffer(.float, rect)
        let inside = rect.intersection(extent)
        if inside != rect { out.zero() }
        if !inside.isEmpty {
            let t = out.floatTile
            for y in inside.y..<inside.maxY {
                let p = t.pointer(x: inside.x, y: y)
                generator.generate(into: p, x: inside.x, y: y, count: inside.width)
                for i in 0..<inside.width {
                    var c = p[i]
                    // Not-a-number or infinite colours from a generator are stored as transparent.
                    if !(c.x.isFinite && c.y.isFinite && c.z.isFinite && c.w.isFinite) { c = .zero }
                    let a = c.w.bounded(0, 1)
                    if convert { c = decode ? SRGB.decode(c) : SRGB.encode(c) }
                    p[i] = SIMD4(c.x * a, c.y * a, c.z * a, a)
                }
            }
        }
        return _convert(out, to: kind, w)
    }

    /// A generator with an 8-bit form writes a straight sRGB RGBA8 destination itself (in the
    /// `.none` working space, where its sRGB values need no conversion).
    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if !w.linear, generator.isColor, generator.encoding == .srgb, d.format == .rgba8, d.encoding == .srgb, d.alpha == .straight,
            extent.contains(rect)
        {
            var written = true
            for y in rect.y..<rect.maxY where written {
                let row = (d.row(y) + (rect.x - d.rect.x) * 4).assumingMemoryBound(to: UInt8.self)
                written = generator.generateStraightBytes(into: row, x: rect.x, y: y, count: rect.width)
            }
            if written { return }
        }
        try super.store(rect, into: d, w)
    }
}
