import Foundation

/// ``Image/blended(over:mask:)``: S m + D (1 − m), three inputs in one pass. On 8-bit tiles
/// where the image and the background are 8-bit and the mask is 8-bit or grey: integer
/// arithmetic on 16-bit lanes, the definition's bytes for a grey mask, within a level for a
/// colour one (its luminance taken as a level).
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

    override var isPixelForPixel: Bool { true }

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
        let l = (0.2125 * m.x + 0.7154 * m.y + 0.0721 * m.z).bounded(0, 1)
        return s * l + d * (1 - l)
    }

    /// Premultiplied RGBA8 image and background, an RGBA8 mask (`out` may alias an input): the
    /// mask's luminance as a level, round((13926 R + 46885 G + 4725 B) / 65536) (Rec. 709's
    /// weights in 1/65536, summing to one), then as for a grey mask: within a level of the
    /// definition (the level moves the weight by at most 1/510).
    static func blendBytes(
        _ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, mask m: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int
    ) {
        var levels = SIMD4<UInt8>()
        var i = 0
        while i + 4 <= n {
            for k in 0..<4 { levels[k] = luma(m + 4 * (i + k)) }
            blendFour(s + 4 * i, d + 4 * i, levels, out + 4 * i)
            i += 4
        }
        while i < n {
            blendOne(s + 4 * i, d + 4 * i, luma(m + 4 * i), out + 4 * i)
            i += 1
        }
    }

    /// Premultiplied RGBA8 image and background, a grey mask, one byte a pixel (`out` may alias
    /// an input): round((S m + D (255 - m)) / 255) per channel, the definition's bytes exactly.
    static func blendBytes(
        _ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, grayMask m: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int
    ) {
        var i = 0
        while i + 4 <= n {
            blendFour(s + 4 * i, d + 4 * i, UnsafeRawPointer(m + i).loadUnaligned(as: SIMD4<UInt8>.self), out + 4 * i)
            i += 4
        }
        while i < n {
            blendOne(s + 4 * i, d + 4 * i, m[i], out + 4 * i)
            i += 1
        }
    }

    @inline(__always)
    static func luma(_ p: UnsafePointer<UInt8>) -> UInt8 {
        UInt8(truncatingIfNeeded: (13926 &* UInt32(p[0]) &+ 46885 &* UInt32(p[1]) &+ 4725 &* UInt32(p[2]) &+ 32768) &>> 16)
    }

    /// Four pixels on 16-bit lanes: S m + D (255 - m) is at most 65025, and x / 255 rounds as
    /// (x + 128 + ((x + 128) >> 8)) >> 8 for every such x.
    @inline(__always)
    static func blendFour(_ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, _ m: SIMD4<UInt8>, _ out: UnsafeMutablePointer<UInt8>) {
        let sv = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(s).loadUnaligned(as: SIMD16<UInt8>.self))
        let dv = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(d).loadUnaligned(as: SIMD16<UInt8>.self))
        let m0 = UInt16(m[0]), m1 = UInt16(m[1]), m2 = UInt16(m[2]), m3 = UInt16(m[3])
        let w = SIMD16<UInt16>(m0, m0, m0, m0, m1, m1, m1, m1, m2, m2, m2, m2, m3, m3, m3, m3)
        let x = sv &* w &+ dv &* (255 &- w) &+ 128
        let r = (x &+ (x &>> 8)) &>> 8
        UnsafeMutableRawPointer(out).storeBytes(of: _narrowedBytes(r.lowHalf, r.highHalf), as: SIMD16<UInt8>.self)
    }

    @inline(__always)
    static func blendOne(_ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, _ m: UInt8, _ out: UnsafeMutablePointer<UInt8>) {
        let w = UInt32(m)
        for c in 0..<4 {
            let x = UInt32(s[c]) &* w &+ UInt32(d[c]) &* (255 &- w) &+ 128
            out[c] = UInt8(truncatingIfNeeded: (x &+ (x &>> 8)) &>> 8)
        }
    }
}
