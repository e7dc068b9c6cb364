import Foundation
import SfumatoCore
import Testing

/// The library-call-free rounding helpers give the standard library's results, halves and the
/// edges of each type's spacing included.
@Suite("Rounding without library calls")
struct RoundingTests {
    /// Halves, values one step either side of them, large and negative values, and random ones.
    static let doubles: [Double] = {
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e15 + 0.5, -(1e15 + 0.5), 4_503_599_627_370_495]
        for base in [0.5, 1.5, 2.5, 1000.5, -0.5, -3.5] { values += [base.nextUp, base.nextDown] }
        var seed: UInt64 = 7
        for _ in 0..<20000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append((Double(seed >> 11) / Double(1 << 53) - 0.5) * 2e6)
        }
        return values
    }()

    @Test("floor, ceiling and half-away rounding of doubles, as integers and as doubles")
    func doubles() {
        for v in Self.doubles {
            #expect(_floorInt(v) == Int(v.rounded(.down)), "\(v)")
            #expect(_ceilInt(v) == Int(v.rounded(.up)), "\(v)")
            #expect(_roundedInt(v) == Int(v.rounded()), "\(v)")
            #expect(_floor(v) == v.rounded(.down), "\(v)")
        }
        // Past 2^52 and for NaN, infinities and 1e300 the double floor gives the value back.
        #expect(_floor(.nan).isNaN && _floor(.infinity) == .infinity && _floor(-1e300) == -1e300 && _floor(9e15 + 2) == 9e15 + 2)
    }

    @Test("half-away rounding of float lanes, and the floor of floats")
    func floats() {
        var values: [Float] = [0, 0.5, -0.5, 1.5, 2.5, -2.5, Float(0.5).nextDown, Float(0.5).nextUp, 65534.5, 8_388_607, -8_388_607, 4_194_303.5]
        for v in Self.doubles.prefix(4000) { values.append(Float(v / 1000)) }
        // Within the documented range, |v| < 2^23.
        for v in values where abs(v) < 8_388_608 {
            let lanes = _roundedAwayFromZero(SIMD4(repeating: v))
            #expect(lanes == SIMD4(repeating: v.rounded(.toNearestOrAwayFromZero)), "\(v)")
            if abs(v) < 2_147_483_648 { #expect(_floorInt(v) == Int(v.rounded(.down)), "\(v)") }
        }
    }

    @Test("byte minimum and maximum lanes")
    func bytes() {
        let a = SIMD16<UInt8>((0..<16).map { UInt8($0 * 17) }), b = SIMD16<UInt8>((0..<16).map { UInt8(255 - $0 * 13) })
        #expect(_minBytes(a, b) == pointwiseMin(a, b) && _maxBytes(a, b) == pointwiseMax(a, b))
    }
}
