import Foundation

/// Conversions to and from one-channel grey (``PixelFormat/gray8`` bitmaps and `.gray` tiles).
///
/// Grey reads as opaque RGBA (g, g, g, 1). Colour becomes grey by its luminance
/// (``SRGB/luminanceWeights``) of the premultiplied working values: in the linear working space
/// that is the true relative luminance, encoded with the sRGB curve when stored; in `.none` it is
/// the same weights on the encoded values. Premultiplied colour is colour over black, so partial
/// alpha lands over black.
extension _Convert {
    /// Stored grey to working floats.
    static func loadGray8(
        _ src: UnsafePointer<UInt8>, _ count: Int, encoding: ColorEncoding,
        workingEncoding: ColorEncoding, _ dst: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        if encoding == .srgb && workingEncoding == .linear {
            let table = SRGB.decodedByte
            for i in 0..<count {
                let v = table[Int(src[i])]
                dst[i] = SIMD4(v, v, v, 1)
            }
            return
        }
        for i in 0..<count {
            var v = Float(src[i]) * (1 / 255)
            if encoding != workingEncoding { v = Float(SRGB.encode(Double(v))) }
            dst[i] = SIMD4(v, v, v, 1)
        }
    }

    /// Working floats to stored grey: the luminance, rounded to nearest (exactly, through the
    /// encoding table, when encoding linear light). Each channel is first clamped to 0...alpha,
    /// as an RGBA8 store clamps it, so grey is the luminance of what RGBA8 would show over black.
    static func storeGray8(
        _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, workingEncoding: ColorEncoding,
        encoding: ColorEncoding, _ dst: UnsafeMutablePointer<UInt8>
    ) {
        let w = SRGB.luminanceWeights
        @inline(__always) func visible(_ v: SIMD4<Float>) -> SIMD4<Float> { v.bounded(0, v.w.bounded(0, 1)) }
        if workingEncoding == .linear && encoding == .srgb {
            let tables = _SRGBTables.shared
            for i in 0..<count { dst[i] = tables.encodeToByte((visible(src[i]) * w).sum()) }
            return
        }
        for i in 0..<count {
            var y = (visible(src[i]) * w).sum()
            if encoding != workingEncoding { y = Float(SRGB.decode(Double(y))) }
            dst[i] = UInt8(y.bounded(0, 1) * 255 + 0.5)
        }
    }

    /// Grey bytes to working RGBA bytes (opaque).
    static func grayToBytes(_ src: UnsafePointer<UInt8>, _ count: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        let d = UnsafeMutableRawPointer(dst)
        for i in 0..<count {
            // g * 0x010101 spreads the level over R, G and B.
            d.storeBytes(of: UInt32(src[i]) &* 0x0001_0101 | 0xFF00_0000, toByteOffset: 4 * i, as: UInt32.self)
        }
    }

    /// Working RGBA bytes (premultiplied: over black) to grey bytes, rounded to nearest: four
    /// pixels a step, each channel a float lane.
    static func bytesToGray(_ src: UnsafePointer<UInt8>, _ count: Int, _ dst: UnsafeMutablePointer<UInt8>) {
        let w = SRGB.luminanceWeights
        let wr = SIMD4<Float>(repeating: w.x), wg = SIMD4<Float>(repeating: w.y), wb = SIMD4<Float>(repeating: w.z)
        let s = UnsafeRawPointer(src)
        var i = 0
        while i + 4 <= count {
            let p = s.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<Int32>.self)
            let r = _float(fromSmallInts: p & 0xFF), g = _float(fromSmallInts: (p &>> 8) & 0xFF)
            let b = _float(fromSmallInts: (p &>> 16) & 0xFF)
            // Below 255.5, so the rounded levels fit a byte.
            let y = _roundedInts(r * wr + g * wg + b * wb)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: y), as: SIMD4<UInt8>.self)
            i += 4
        }
        for i in i..<count {
            let v = _floats(UnsafeRawPointer(src + 4 * i).loadUnaligned(as: SIMD4<UInt8>.self))
            dst[i] = UInt8(min((v * w).sum(), 255) + 0.5)
        }
    }
}
