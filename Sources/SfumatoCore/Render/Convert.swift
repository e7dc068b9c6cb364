import Foundation

// Row conversions between stored bitmaps and working tiles. Working float pixels are
// premultiplied RGBA in the working space's encoding; working bytes are premultiplied sRGB.

/// Float lanes (already scaled to 0...255 and clamped) to bytes, rounding to nearest.
@inline(__always)
func _bytes(_ v: SIMD4<Float>) -> SIMD4<UInt8> {
    SIMD4<UInt8>(truncatingIfNeeded: _roundedInts(v))
}

@inline(__always)
func _floats(_ b: SIMD4<UInt8>) -> SIMD4<Float> {
    SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: b))
}

/// 16-bit level to linear light, built on first use (256 KB).
nonisolated(unsafe) let _decoded16: UnsafeMutablePointer<Float> = {
    let t = UnsafeMutablePointer<Float>.allocate(capacity: 65536)
    for k in 0..<65536 { t[k] = Float(SRGB.decode(Double(k) / 65535)) }
    return t
}()

enum _Convert {
    // MARK: stored -> working float

    /// RGBA8 (sRGB-encoded) to working floats.
    static func loadRGBA8(
        _ src: UnsafePointer<UInt8>, _ count: Int, premultiplied: Bool, linear: Bool,
        _ dst: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        if linear {
            let t = SRGB.decodedByte
            if !premultiplied {
                for i in 0..<count {
                    let p = src + 4 * i
                    let a = Float(p[3]) * (1 / 255)
                    dst[i] = SIMD4(t[Int(p[0])] * a, t[Int(p[1])] * a, t[Int(p[2])] * a, a)
                }
            } else {
                for i in 0..<count {
                    let b = _floats(UnsafeRawPointer(src + 4 * i).loadUnaligned(as: SIMD4<UInt8>.self))
                    let a = b.w * (1 / 255)
                    if b.w == 255 {
                        let t = SRGB.decodedByte
                        let p = src + 4 * i
                        dst[i] = SIMD4(t[Int(p[0])], t[Int(p[1])], t[Int(p[2])], 1)
                    } else if b.w == 0 {
                        dst[i] = .zero
                    } else {
                        var c = SRGB.decode(b / b.w) * a
                        c.w = a
                        dst[i] = c
                    }
                }
            }
        } else {
            for i in 0..<count {
                var v = _floats(UnsafeRawPointer(src + 4 * i).loadUnaligned(as: SIMD4<UInt8>.self)) * (1 / 255)
                if !premultiplied { v = SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w) }
                dst[i] = v
            }
        }
    }

    /// RGBA16 (sRGB-encoded) to working floats.
    static func loadRGBA16(
        _ src: UnsafePointer<UInt16>, _ count: Int, premultiplied: Bool, linear: Bool,
        _ dst: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        for i in 0..<count {
            let p = src + 4 * i
            let a = Float(p[3]) * (1 / 65535)
            var v: SIMD4<Float>
            if linear && !premultiplied {
                let t = _decoded16
                v = SIMD4(t[Int(p[0])] * a, t[Int(p[1])] * a, t[Int(p[2])] * a, a)
            } else {
                v = SIMD4(Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3])) * (1 / 65535)
                if premultiplied {
                    if linear && a > 0 { v = SRGB.decode(v / a) * a; v.w = a }
                } else {
                    v = SIMD4(v.x * a, v.y * a, v.z * a, a)
                }
            }
            dst[i] = v
        }
    }

    /// Stored floats to working floats.
    static func loadFloat(
        _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, encoding: ColorEncoding,
        premultiplied: Bool, workingEncoding: ColorEncoding,
        _ dst: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        if encoding == workingEncoding {
            if premultiplied {
                if UnsafePointer(dst) != src { dst.update(from: src, count: count) }
            } else {
                for i in 0..<count { let v = src[i]; dst[i] = SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w) }
            }
            return
        }
        for i in 0..<count {
            var v = src[i]
            let a = v.w
            if premultiplied { if a != 0 && a != 1 { v = v / a } }
            var c = encoding == .srgb ? SRGB.decode(v) : SRGB.encode(v)
            c = c * a
            c.w = a
            dst[i] = c
        }
    }

    // MARK: working float -> stored

    /// Working floats to RGBA8, clamping to 0...1 and rounding to nearest (exactly, through
    /// thresholds, when encoding linear light).
    static func storeRGBA8(
        _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, linear: Bool, premultiplied: Bool,
        _ dst: UnsafeMutablePointer<UInt8>
    ) {
        let tables = _SRGBTables.shared
        var i = 0
        while i < count {
            let v = src[i]
            let p = dst + 4 * i
            i += 1
            if v.w >= 1 {
                // Opaque: no alpha arithmetic (the common case for photos).
                if linear {
                    p[0] = tables.encodeToByte(v.x)
                    p[1] = tables.encodeToByte(v.y)
                    p[2] = tables.encodeToByte(v.z)
                    p[3] = 255
                } else {
                    var e = v.bounded(0, 1) * 255
                    e.w = 255
                    UnsafeMutableRawPointer(p).storeBytes(of: _bytes(e), as: SIMD4<UInt8>.self)
                }
                continue
            }
            let a = max(v.w, 0)
            if !(a > 0) {
                UnsafeMutableRawPointer(p).storeBytes(of: 0, as: UInt32.self)
                continue
            }
            let c = v * (1 / a)
            if linear {
                if !premultiplied {
                    p[0] = tables.encodeToByte(c.x)
                    p[1] = tables.encodeToByte(c.y)
                    p[2] = tables.encodeToByte(c.z)
                    p[3] = UInt8(truncatingIfNeeded: _roundedInts(SIMD4(repeating: a * 255)).x)
                } else {
                    var e = SRGB.encode(c).bounded(0, 1) * a
                    e.w = a
                    UnsafeMutableRawPointer(p).storeBytes(of: _bytes(e * 255), as: SIMD4<UInt8>.self)
                }
            } else {
                var e = premultiplied ? v.bounded(0, a) : c.bounded(0, 1)
                e.w = a
                UnsafeMutableRawPointer(p).storeBytes(of: _bytes(e * 255), as: SIMD4<UInt8>.self)
            }
        }
    }

    /// Working floats to RGBA16 (sRGB-encoded).
    static func storeRGBA16(
        _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, linear: Bool, premultiplied: Bool,
        _ dst: UnsafeMutablePointer<UInt16>
    ) {
        for i in 0..<count {
            let v = src[i]
            let a = v.w.bounded(0, 1)
            var c: SIMD4<Float> = a > 0 ? v * (1 / a) : .zero
            if linear { c = SRGB.encode(c) }
            c = c.bounded(0, 1)
            if premultiplied { c = c * a }
            c.w = a
            let q = _roundedInts(c * 65535)
            let p = dst + 4 * i
            p[0] = UInt16(truncatingIfNeeded: q.x)
            p[1] = UInt16(truncatingIfNeeded: q.y)
            p[2] = UInt16(truncatingIfNeeded: q.z)
            p[3] = UInt16(truncatingIfNeeded: q.w)
        }
    }

    /// Working floats to stored floats (no clamping: float bitmaps keep extended range).
    static func storeFloat(
        _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, workingEncoding: ColorEncoding,
        encoding: ColorEncoding, premultiplied: Bool, _ dst: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        if encoding == workingEncoding && premultiplied {
            if UnsafePointer(dst) != src { dst.update(from: src, count: count) }
            return
        }
        for i in 0..<count {
            let v = src[i]
            let a = v.w
            var c = a != 0 && a != 1 ? v / a : (a == 0 ? .zero : v)
            if encoding != workingEncoding { c = encoding == .srgb ? SRGB.encode(c) : SRGB.decode(c) }
            if premultiplied { c = c * a }
            c.w = a
            dst[i] = c
        }
    }

    // MARK: working bytes (premultiplied sRGB, the .none working space)

    /// Straight or premultiplied RGBA8 to working bytes.
    static func loadBytes(
        _ src: UnsafePointer<UInt8>, _ count: Int, premultiplied: Bool, opaque: Bool,
        _ dst: UnsafeMutablePointer<UInt8>
    ) {
        if premultiplied || opaque {
            if UnsafePointer(dst) != src { dst.update(from: src, count: 4 * count) }
            return
        }
        for i in _copyOpaqueRun(src, dst, count)..<count {
            let s = src + 4 * i, d = dst + 4 * i
            let a = UInt32(s[3])
            for c in 0..<3 { d[c] = _mul255(UInt32(s[c]), a) }
            d[3] = s[3]
        }
    }

    /// Working bytes to RGBA8 straight or premultiplied.
    static func storeBytes(
        _ src: UnsafePointer<UInt8>, _ count: Int, premultiplied: Bool,
        _ dst: UnsafeMutablePointer<UInt8>
    ) {
        if premultiplied {
            if UnsafePointer(dst) != UnsafePointer(src) { dst.update(from: src, count: 4 * count) }
            return
        }
        for i in _copyOpaqueRun(src, dst, count)..<count {
            let s = src + 4 * i, d = dst + 4 * i
            let a = UInt32(s[3])
            if a == 255 {
                d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = 255
            } else if a == 0 {
                UnsafeMutableRawPointer(d).storeBytes(of: 0, as: UInt32.self)
            } else {
                for c in 0..<3 { d[c] = _unpremultiplied(UInt32(s[c]), a) }
                d[3] = s[3]
            }
        }
    }

    static func bytesToFloats(_ src: UnsafePointer<UInt8>, _ count: Int, _ dst: UnsafeMutablePointer<SIMD4<Float>>) {
        for i in 0..<count {
            dst[i] = _floats(UnsafeRawPointer(src + 4 * i).loadUnaligned(as: SIMD4<UInt8>.self)) * (1 / 255)
        }
    }

    static func floatsToBytes(_ src: UnsafePointer<SIMD4<Float>>, _ count: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        for i in 0..<count {
            UnsafeMutableRawPointer(dst + 4 * i).storeBytes(of: floatToBytes(src[i]), as: SIMD4<UInt8>.self)
        }
    }

    /// One premultiplied working pixel as premultiplied bytes (alpha clamped to 0...1, colour to 0...alpha).
    @inline(__always)
    static func floatToBytes(_ v: SIMD4<Float>) -> SIMD4<UInt8> {
        let a = v.w.bounded(0, 1)
        var e = v.bounded(0, a)
        e.w = a
        return _bytes(e * 255)
    }
}

/// Copies the opaque pixels at the start of a row of `count` RGBA8 pixels four at a time
/// (straight and premultiplied are the same there) and returns where the first group with any
/// transparency begins (the caller converts from there on, pixel by pixel).
@inline(__always)
func _copyOpaqueRun(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    var i = 0
    let opaque = SIMD4<UInt32>(repeating: 0xFF00_0000)
    let inPlace = UnsafePointer(dst) == src  // converting a row in place: opaque pixels stay as they are
    while i + 4 <= count {
        let v = UnsafeRawPointer(src + 4 * i).loadUnaligned(as: SIMD4<UInt32>.self)
        if (v & opaque) != opaque { break }
        if !inPlace { UnsafeMutableRawPointer(dst + 4 * i).storeBytes(of: v, as: SIMD4<UInt32>.self) }
        i += 4
    }
    return i
}

/// A premultiplied 8-bit colour value made straight: round(u x 255 / a), at most 255 (`a` > 0).
@inline(__always)
func _unpremultiplied(_ u: UInt32, _ a: UInt32) -> UInt8 {
    UInt8(min(255, (u * 255 + a / 2) / a))
}

/// `round(x * a / 255)` for bytes, exactly.
@inline(__always)
func _mul255(_ x: UInt32, _ a: UInt32) -> UInt8 {
    let t = x * a + 128
    return UInt8(truncatingIfNeeded: (t + (t >> 8)) >> 8)
}
