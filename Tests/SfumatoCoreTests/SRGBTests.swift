import Foundation
import Testing
import SfumatoCore

@Suite("sRGB transfer function")
struct SRGBTests {
    @Test("every 8-bit level survives decode then encode exactly")
    func roundTrip8() {
        for k in 0..<256 {
            #expect(Int(SRGB.encodeToByte(SRGB.decodedByte[k])) == k, "level \(k)")
        }
    }

    @Test("8-bit encoding rounds correctly against the Double formula")
    func correctRounding() {
        // Dense sweep, including values right at the thresholds.
        var x: Double = -0.01
        while x < 1.01 {
            let expected = Int((max(0, min(1, SRGB.encode(x))) * 255).rounded())
            let got = Int(SRGB.encodeToByte(Float(x)))
            // Within a float ulp of a threshold the two may differ; elsewhere exactly equal.
            if got != expected {
                let t = SRGB.decode((Double(max(got, expected)) - 0.5) / 255)
                #expect(abs(x - t) < 1e-6, "x \(x): got \(got), expected \(expected)")
            }
            x += 0.000_37
        }
    }

    @Test("vector encode and decode agree with Double within 4e-6 relative")
    func vectorAccuracy() {
        var worst = 0.0
        for i in 0...20_000 {
            let v = Double(i) / 10_000 - 0.5  // -0.5 ... 1.5 (extended range)
            let e = SRGB.encode(SIMD4<Float>(repeating: Float(v))).x
            let d = SRGB.decode(SIMD4<Float>(repeating: Float(v))).x
            worst = max(worst, abs(Double(e) - SRGB.encode(v)) / max(1e-3, abs(SRGB.encode(v))))
            worst = max(worst, abs(Double(d) - SRGB.decode(v)) / max(1e-3, abs(SRGB.decode(v))))
        }
        #expect(worst < 4e-6, "worst relative error \(worst)")
    }
}

@Suite("Vector math")
struct VectorMathTests {
    @Test("pow matches Double over the float range, sign rule for negatives")
    func power() {
        var worst = 0.0
        for p in [0.1, 0.4545, 1, 1.5, 2.2, 4] {
            var x = 1e-6
            while x < 1e4 {
                let got = Double(vectorPow(SIMD4(repeating: Float(x)), Float(p)).x)
                let want = pow(Double(Float(x)), p)
                worst = max(worst, abs(got - want) / want)
                x *= 1.013
            }
        }
        #expect(worst < 4e-6, "worst relative error \(worst)")
        let v = vectorPow(SIMD4<Float>(-8, 0, 4, -0.25), 0.5)
        #expect(abs(v.x + 2.828_427) < 1e-5)
        #expect(v.y == 0)
        #expect(abs(v.z - 2) < 1e-5)
        #expect(abs(v.w + 0.5) < 1e-5)
    }

    @Test("exp2 and log2 at exact powers of two")
    func exactPowers() {
        for e in -20...20 {
            let x = Float(pow(2.0, Double(e)))
            #expect(abs(vectorLog2(SIMD4(repeating: x)).x - Float(e)) < 1e-5)
            #expect(abs(vectorExp2(SIMD4(repeating: Float(e))).x - x) <= x * 2e-6)
        }
    }

    @Test("minps, maxps, bounded, the saturating byte pack, pavgw and bytes x 256: values, NaN lanes, edges")
    func lanes() {
        let a = SIMD4<Float>(1, 5, .nan, -0), b = SIMD4<Float>(3, 3, 3, 0)
        let lo = _minps(a, b), hi = _maxps(a, b)
        #expect(lo.x == 1 && lo.y == 3 && lo.z == 3 && hi.x == 3 && hi.y == 5 && hi.z == 3)
        let clamped = SIMD4<Float>(-1, 0.25, .nan, 7).bounded(0, 1)
        #expect(clamped == SIMD4(0, 0.25, 0, 1))
        var values: [Int16] = [Int16.min, -256, -1, 0, 1, 127, 128, 254, 255, 256, 1000, Int16.max]
        values += [-7, 9, 300, 42]
        let packed = _packedBytes(SIMD8(values[0..<8]), SIMD8(values[8..<16]))
        for (i, v) in values.enumerated() { #expect(Int(packed[i]) == min(max(Int(v), 0), 255), "lane \(i): \(v)") }
        let x = SIMD8<UInt16>(0, 1, 2, 65535, 65535, 100, 7, 40000), y = SIMD8<UInt16>(0, 0, 3, 65535, 65534, 300, 8, 1)
        let average = _average(x, y)
        for i in 0..<8 { #expect(Int(average[i]) == (Int(x[i]) + Int(y[i]) + 1) / 2, "average lane \(i)") }
        let bytes = SIMD16<UInt8>((0..<16).map { UInt8(truncatingIfNeeded: $0 * 17) })
        let (low, high) = _bytesTimes256(bytes)
        for i in 0..<8 { #expect(Int(low[i]) == Int(bytes[i]) * 256 && Int(high[i]) == Int(bytes[8 + i]) * 256) }
    }
}
