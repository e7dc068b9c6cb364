import Foundation
import SfumatoAVX512

/// Conversions to and from packed RGB (``PixelFormat/rgb8`` bitmaps, 3 bytes a pixel).
///
/// Packed RGB is always opaque: it reads as RGBA (r, g, b, 1). Renders work on it as on opaque
/// RGBA8, expanding rows into 4-byte pixels a chunk at a time (in cache) and packing results back;
/// what shrinks is the memory the stored pixels take and the traffic to it. Colour with partial
/// alpha is stored as its premultiplied values: colour over black, as grey stores it.
extension _Convert {
    /// Pixels a conversion through a stack buffer handles at a time (4 KiB of RGBA).
    static let packedBlock = 1024

    /// Packed RGB to opaque RGBA bytes. `dst` must not overlap `src`.
    static func expandRGB(_ src: UnsafePointer<UInt8>, _ count: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        var x = 0
        #if arch(x86_64)
            if CPUFeatures.wideVectors { x = _expandRGBAVX512(src, dst, count: count) }
        #endif
        // Four pixels from three 32-bit loads (their 12 bytes exactly), spread over four stores.
        let opaque: UInt32 = 0xFF00_0000
        let source = UnsafeRawPointer(src), destination = UnsafeMutableRawPointer(dst)
        while x + 4 <= count {
            let s = source + 3 * x, d = destination + 4 * x
            let w0 = s.loadUnaligned(as: UInt32.self), w1 = s.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
            let w2 = s.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
            d.storeBytes(of: (w0 & 0x00FF_FFFF) | opaque, as: UInt32.self)
            d.storeBytes(of: (w0 >> 24) | (w1 << 8) | opaque, toByteOffset: 4, as: UInt32.self)
            d.storeBytes(of: (w1 >> 16) | (w2 << 16) | opaque, toByteOffset: 8, as: UInt32.self)
            d.storeBytes(of: (w2 >> 8) | opaque, toByteOffset: 12, as: UInt32.self)
            x += 4
        }
        while x < count {
            let s = src + 3 * x, d = dst + 4 * x
            d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = 255
            x += 1
        }
    }

    /// RGBA bytes to packed RGB, alpha dropped (premultiplied bytes: colour over black).
    /// `dst` must not overlap `src`.
    static func packRGB(_ src: UnsafePointer<UInt8>, _ count: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        var i = 0
        #if arch(x86_64)
            if CPUFeatures.wideVectors { i = _packRGBAVX512(src, dst, count: count) }
        #endif
        let s = UnsafeRawPointer(src), d = UnsafeMutableRawPointer(dst)
        // Each pixel stored as four bytes, the fourth landing on the next pixel's red, which that
        // pixel's own store then writes: every pixel but the last has a next one.
        while i + 1 < count {
            d.storeBytes(of: s.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self), toByteOffset: 3 * i, as: UInt32.self)
            i += 1
        }
        if i < count {
            let p = src + 4 * i, q = dst + 3 * i
            q[0] = p[0]; q[1] = p[1]; q[2] = p[2]
        }
    }

    /// Straight RGBA bytes to packed RGB: opaque pixels as they are, translucent ones
    /// premultiplied first (colour over black). `dst` must not overlap `src`.
    static func packStraightRGB(_ src: UnsafePointer<UInt8>, _ count: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        var i = 0
        while i < count {
            #if arch(x86_64)
                if CPUFeatures.wideVectors { i += _packRGBAVX512(src + 4 * i, dst + 3 * i, count: count - i, opaqueOnly: true) }
            #endif
            // One pixel at a time to the end (baseline) or through the step that stopped the twin.
            let end = CPUFeatures.wideVectors ? min(count, i + 16) : count
            while i < end {
                let p = src + 4 * i, q = dst + 3 * i
                let a = UInt32(p[3])
                if a == 255 {
                    q[0] = p[0]; q[1] = p[1]; q[2] = p[2]
                } else {
                    q[0] = _mul255(UInt32(p[0]), a); q[1] = _mul255(UInt32(p[1]), a); q[2] = _mul255(UInt32(p[2]), a)
                }
                i += 1
            }
        }
    }

    /// Packed RGB (sRGB-encoded) to working floats.
    static func loadRGB8(
        _ src: UnsafePointer<UInt8>, _ count: Int, linear: Bool, _ dst: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * packedBlock) { buffer in
            let rgba = buffer.baseAddress!
            var i = 0
            while i < count {
                let n = min(packedBlock, count - i)
                expandRGB(src + 3 * i, n, rgba)
                // As an opaque straight RGBA8 bitmap loads, so both give the same floats.
                loadRGBA8(rgba, n, premultiplied: false, linear: linear, dst + i)
                i += n
            }
        }
    }

    /// Working floats to packed RGB: the premultiplied working colour stored as opaque, which is
    /// the colour over black in the working space (linear light, or the encoded values).
    static func storeRGB8(
        _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, linear: Bool, _ dst: UnsafeMutablePointer<UInt8>
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4 * packedBlock) { buffer in
            let rgba = buffer.baseAddress!
            var i = 0
            while i < count {
                let n = min(packedBlock, count - i)
                storeRGBA8(src + i, n, linear: linear, premultiplied: true, rgba)
                // Pixels with partial alpha again, as opaque colours (rare: most renders are opaque),
                // each channel first clamped to 0...alpha as an RGBA8 store clamps it (so a colour
                // with alpha 0 is black, as RGBA8 shows it over black).
                for k in 0..<n where rgba[4 * k + 3] != 255 {
                    let a = src[i + k].w
                    var v = src[i + k].bounded(0, a > 0 ? a : 0)
                    v.w = 1
                    storeRGBA8(&v, 1, linear: linear, premultiplied: true, rgba + 4 * k)
                }
                packRGB(rgba, n, dst + 3 * i)
                i += n
            }
        }
    }
}

/// Packed RGB rows to opaque RGBA8 (`count` pixels; `destination` must not overlap `source`):
/// for decoders that read RGB rows and store RGBA8 bitmaps, with the renderer's own kernels.
public func _expandPackedRGB(_ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer, count: Int) {
    _Convert.expandRGB(source.assumingMemoryBound(to: UInt8.self), count, destination.assumingMemoryBound(to: UInt8.self))
}
