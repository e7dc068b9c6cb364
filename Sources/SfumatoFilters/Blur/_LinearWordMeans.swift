import SfumatoCore

/// What the means on linear words (box, disc, motion) share: an opaque RGBA8 pixel to its three
/// linear words, and a sum of such words over `1 / scale` pixels back to an opaque pixel.

/// The linear words of the pixel at `p` (R, G, B; alpha 0, since the tiles are opaque).
@inline(__always)
func _linearWords(_ p: UnsafePointer<UInt8>, _ decode: UnsafePointer<UInt16>) -> SIMD4<Int32> {
    SIMD4(Int32(decode[Int(p[0])]), Int32(decode[Int(p[1])]), Int32(decode[Int(p[2])]), 0)
}

/// The opaque RGBA8 pixel (as stored, R in the low byte) of the mean `sum x scale`: the sum read
/// as unsigned (wide windows pass 2^31), the mean rounded to a word, each word encoded.
@inline(__always)
func _encodedMean(_ sum: SIMD4<Int32>, _ scale: SIMD4<Float>, _ encode: UnsafePointer<UInt8>) -> UInt32 {
    let mean = _roundedInts(SIMD4<Float>(SIMD4<UInt32>(truncatingIfNeeded: sum)) * scale)
    return UInt32(encode[Int(mean.x)]) | UInt32(encode[Int(mean.y)]) << 8 | UInt32(encode[Int(mean.z)]) << 16 | 0xFF00_0000
}
