import Foundation

/// The sRGB transfer function (IEC 61966-2-1), exact in Double and fast in tables.
///
/// 8-bit values decode through a 256-entry table; linear values encode back to 8 bits with
/// correct rounding (the level whose decoded midpoints bracket the value), so every 8-bit level
/// survives a round trip unchanged.
///
/// ```swift
/// SRGB.decode(0.5)          // 0.21404…
/// SRGB.encode(0.21404114)   // 0.5
/// SRGB.encodeToByte(SRGB.decodedByte[128]) // 128
/// ```
public enum SRGB {
    /// Encoded value (0...1, extended sign-symmetrically) to linear light.
    @inlinable
    public static func decode(_ v: Double) -> Double {
        let a = abs(v)
        let l = a <= 0.04045 ? a / 12.92 : pow((a + 0.055) / 1.055, 2.4)
        return v < 0 ? -l : l
    }

    /// Linear light to the encoded value (extended sign-symmetrically).
    @inlinable
    public static func encode(_ l: Double) -> Double {
        let a = abs(l)
        let v = a <= 0.003_130_8 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
        return l < 0 ? -v : v
    }

    /// Rec. 709 luminance weights for R, G and B (alpha 0): what a ``PixelFormat/gray8`` bitmap
    /// keeps of colour. `(SRGB.luminanceWeights * SIMD4(1, 0, 0, 1)).sum()` is 0.2126 for pure red.
    public static let luminanceWeights = SIMD4<Float>(0.2126, 0.7152, 0.0722, 0)

    /// Linear value of each 8-bit level: `decodedByte[k] = decode(k / 255)`.
    public static var decodedByte: UnsafePointer<Float> { UnsafePointer(_SRGBTables.shared.decode8) }

    /// The 8-bit level nearest to `encode(linear)`, clamped to 0...255.
    @inlinable @inline(__always)
    public static func encodeToByte(_ linear: Float) -> UInt8 {
        _SRGBTables.shared.encodeToByte(linear)
    }

    /// Encodes four lanes at once (extended range, sign-symmetric); relative error below 4e-6.
    @inlinable @inline(__always)
    public static func encode(_ l: SIMD4<Float>) -> SIMD4<Float> {
        let signBits = unsafeBitCast(l, to: SIMD4<UInt32>.self) & 0x8000_0000
        let a = unsafeBitCast(unsafeBitCast(l, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
        var v = 1.055 * vectorPow(a, 1 / 2.4) - 0.055
        v.replace(with: a * 12.92, where: a .<= 0.003_130_8)
        return unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) | signBits, to: SIMD4<Float>.self)
    }

    /// Decodes four lanes at once (extended range, sign-symmetric).
    @inlinable @inline(__always)
    public static func decode(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let signBits = unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0x8000_0000
        let a = unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
        var l = vectorPow((a + 0.055) * (1 / 1.055), 2.4)
        l.replace(with: a * (1 / 12.92), where: a .<= 0.040_45)
        return unsafeBitCast(unsafeBitCast(l, to: SIMD4<UInt32>.self) | signBits, to: SIMD4<Float>.self)
    }
}

/// Tables built once per process and never freed.
public final class _SRGBTables: @unchecked Sendable {
    public static let shared = _SRGBTables()

    /// decode(k / 255) for k in 0...255.
    public let decode8: UnsafeMutablePointer<Float>
    /// thresholds[k] = decode((k - 0.5) / 255) for k in 1...255; [0] = -inf, [256] = +inf.
    public let thresholds: UnsafeMutablePointer<Float>
    /// The level at the start of each of `binCount` equal bins over linear 0...1.
    public let binLevels: UnsafeMutablePointer<UInt8>
    /// The one level boundary inside each bin (+inf when none): values at or past it round up.
    public let binThresholds: UnsafeMutablePointer<Float>
    /// Bins over linear 0...1; fine enough that no bin holds more than one level boundary
    /// (the curve's steepest part, 12.92 x 255 levels per unit, crosses 0.2 levels per bin).
    public static let binCount = 16384

    init() {
        decode8 = .allocate(capacity: 256)
        for k in 0..<256 { decode8[k] = Float(SRGB.decode(Double(k) / 255)) }
        thresholds = .allocate(capacity: 257)
        thresholds[0] = -.infinity
        for k in 1..<256 { thresholds[k] = Float(SRGB.decode((Double(k) - 0.5) / 255)) }
        thresholds[256] = .infinity
        binLevels = .allocate(capacity: _SRGBTables.binCount + 1)
        binThresholds = .allocate(capacity: _SRGBTables.binCount + 1)
        var level = 0
        for b in 0...(_SRGBTables.binCount) {
            let start = Float(Double(b) / Double(_SRGBTables.binCount))
            while level < 255 && start >= thresholds[level + 1] { level += 1 }
            binLevels[b] = UInt8(level)
            binThresholds[b] = thresholds[level + 1]
        }
    }

    /// Correctly rounded 8-bit encoding of a linear value: a table lookup, then at most a step or
    /// two up (the sRGB curve climbs less than one level per bin).
    @inlinable @inline(__always)
    public func encodeToByte(_ linear: Float) -> UInt8 {
        // Branch-free: clamp (NaN becomes 0), look up the bin's level, step up once if the value
        // lies past the next level's threshold.
        let c = linear > 0 ? min(linear, 0.999_999_94) : 0
        let bin = Int(c * Float(_SRGBTables.binCount))
        return binLevels[bin] &+ (c >= binThresholds[bin] ? 1 : 0)
    }
}
