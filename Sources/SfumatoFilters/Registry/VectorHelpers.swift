import SfumatoCore

// Lane-wise minimum and maximum that inline to one instruction (pminub / pmaxub, or a compare
// and select for floats). The standard library's pointwiseMin / pointwiseMax stay out-of-line
// calls in hot loops, and the float versions handle NaN lane by lane.

@inline(__always) func _umin(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .< a) }
@inline(__always) func _umax(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .> a) }

/// The red, green and blue levels (0...255, as floats) of four RGBA8 pixels loaded as 32-bit
/// lanes, one vector per channel.
@inline(__always) func _channelLevels(_ p: SIMD4<Int32>) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    (_float(fromSmallInts: p & 0xFF), _float(fromSmallInts: (p &>> 8) & 0xFF), _float(fromSmallInts: (p &>> 16) & 0xFF))
}

/// One pixel in the first four lanes of a 16-byte vector (for the ends of rows).
@inline(__always) func _widen(_ p: SIMD4<UInt8>) -> SIMD16<UInt8> {
    SIMD16(lowHalf: SIMD8(lowHalf: p, highHalf: .zero), highHalf: .zero)
}
