// Lane-wise minimum and maximum that inline to one instruction (pminub / pmaxub, or a compare
// and select for floats). The standard library's pointwiseMin / pointwiseMax stay out-of-line
// calls in hot loops, and the float versions handle NaN lane by lane.

@inline(__always) func _umin(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .< a) }
@inline(__always) func _umax(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> { a.replacing(with: b, where: b .> a) }
