import Foundation

/// ``Image/blended(over:mask:)``: S m + D (1 − m), three inputs in one pass. On 8-bit tiles
/// where the image and the background are 8-bit and the mask is 8-bit or grey: each pixel is
/// computed as a float tile would compute it (the same conversions and operations, without the
/// float tiles), so the two routes give the same bytes.
final class _MaskBlendExec: _Exec, @unchecked Sendable {
    let image: _Exec, background: _Exec, mask: _Exec
    /// Whether the 8-bit route is taken.
    let useBytes: Bool

    init(_ image: _Exec, _ background: _Exec, _ mask: _Exec, extent: Rect) {
        self.image = image
        self.background = background
        self.mask = mask
        useBytes = image.natural == .byte && background.natural == .byte && (mask.natural == .byte || mask.natural == .gray)
        super.init(extent: extent, natural: useBytes ? .byte : .float, children: [image, background, mask])
    }

    override var explanation: String { "blend with mask (per pixel, \(useBytes ? "8-bit" : "float"))" }

    /// Opaque image and background covering the extent: m + (1 − m) of alpha is opaque.
    override var opaqueWithin: Bool {
        useBytes && image.opaqueWithin && background.opaqueWithin && image.extent == extent && background.extent == extent
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        if useBytes {
            let (s, d, m) = try byteInputs(rect, w)
            let out = d.isWritable ? d : (s.isWritable ? s : w.buffer(.byte, rect))
            for y in rect.y..<rect.maxY {
                blendRow(s, d, m, y, rect, into: out.byteTile.pointer(x: rect.x, y: y))
            }
            return _convert(out, to: kind, w)
        }
        let s = try image.produce(rect, .float, w)
        let d = try background.produce(rect, .float, w)
        let m = try mask.produce(rect, .float, w)
        let out = d.isWritable ? d : (s.isWritable ? s : w.buffer(.float, rect))
        let st = s.floatTile, dt = d.floatTile, mt = m.floatTile, ot = out.floatTile
        for y in rect.y..<rect.maxY {
            let sr = st.row(y), dr = dt.row(y), mr = mt.row(y), or = ot.row(y)
            for i in 0..<rect.width { or[i] = Self.blend(sr[i], dr[i], mr[i]) }
        }
        return _convert(out, to: kind, w)
    }

    /// 8-bit results straight into an 8-bit destination's rows.
    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        guard useBytes, d.format == .rgba8, d.encoding == .srgb else { return try super.store(rect, into: d, w) }
        let (s, b, m) = try byteInputs(rect, w)
        let straighten = d.alpha == .straight && !(opaqueWithin && extent.contains(rect))
        for y in rect.y..<rect.maxY {
            let out = (d.row(y) + (rect.x - d.rect.x) * 4).assumingMemoryBound(to: UInt8.self)
            blendRow(s, b, m, y, rect, into: out)
            if straighten { _Convert.storeBytes(out, rect.width, premultiplied: false, out) }
        }
    }

    private func byteInputs(_ rect: Rect, _ w: _Worker) throws -> (_PixelBuffer, _PixelBuffer, _PixelBuffer) {
        (try image.produce(rect, .byte, w), try background.produce(rect, .byte, w), try mask.produce(rect, mask.natural, w))
    }

    private func blendRow(_ s: _PixelBuffer, _ d: _PixelBuffer, _ m: _PixelBuffer, _ y: Int, _ rect: Rect, into out: UnsafeMutablePointer<UInt8>) {
        let sp = UnsafePointer(s.byteTile.pointer(x: rect.x, y: y)), dp = UnsafePointer(d.byteTile.pointer(x: rect.x, y: y))
        let mp = UnsafePointer(m.byteTile.pointer(x: rect.x, y: y))
        if m.kind == .gray {
            Self.blendBytes(sp, dp, grayMask: mp, out, rect.width)
        } else {
            Self.blendBytes(sp, dp, mask: mp, out, rect.width)
        }
    }

    /// One pixel: the definition, on premultiplied working values.
    @inline(__always)
    static func blend(_ s: SIMD4<Float>, _ d: SIMD4<Float>, _ m: SIMD4<Float>) -> SIMD4<Float> {
        let l = min(max(0.2125 * m.x + 0.7154 * m.y + 0.0721 * m.z, 0), 1)
        return s * l + d * (1 - l)
    }

    /// Premultiplied RGBA8 image and background, an RGBA8 mask (`out` may alias an input).
    static func blendBytes(
        _ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, mask m: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int
    ) {
        for i in 0..<n {
            let mv = _floats(UnsafeRawPointer(m + 4 * i).loadUnaligned(as: SIMD4<UInt8>.self)) * (1 / 255)
            blendPixel(s + 4 * i, d + 4 * i, mv, out + 4 * i)
        }
    }

    /// Premultiplied RGBA8 image and background, a grey mask, one byte a pixel (read as a float
    /// tile reads grey: g / 255 in every colour channel).
    static func blendBytes(
        _ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, grayMask m: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int
    ) {
        for i in 0..<n {
            let g = Float(m[i]) * (1 / 255)
            blendPixel(s + 4 * i, d + 4 * i, SIMD4(g, g, g, 1), out + 4 * i)
        }
    }

    @inline(__always)
    static func blendPixel(_ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, _ m: SIMD4<Float>, _ out: UnsafeMutablePointer<UInt8>) {
        let sv = _floats(UnsafeRawPointer(s).loadUnaligned(as: SIMD4<UInt8>.self)) * (1 / 255)
        let dv = _floats(UnsafeRawPointer(d).loadUnaligned(as: SIMD4<UInt8>.self)) * (1 / 255)
        UnsafeMutableRawPointer(out).storeBytes(of: _Convert.floatToBytes(blend(sv, dv, m)), as: SIMD4<UInt8>.self)
    }
}
