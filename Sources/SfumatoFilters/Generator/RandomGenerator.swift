import SfumatoCore

/// CIRandomGenerator: noise, each channel of each pixel (alpha too, as in Core Image) uniform in
/// 0...1 and independent: the four 16-bit quarters of SplitMix64 of the pixel's position
/// ((x + 2^31) 2^32 + (y + 2^31)), divided by 65535 (**choice**: Apple's generator is
/// unspecified; this one is the same at every position in every render and every tile). Values are
/// sRGB-encoded. Infinite extent; it ignores the image it is applied to.
public struct RandomGenerator: DeclaredFilter, Equatable {
    public static let fields: [FilterField<RandomGenerator>] = []
    public static let descriptor = FilterDescriptor(
        displayName: "Random", coreImageName: "CIRandomGenerator", shortName: "random", category: .generator,
        summary: "uniform noise in every channel", parameters: fields.map(\.spec))

    public init() {}

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image { Image(generator: _RandomNoise()) }

    /// The four values at (x, y), each 0...65535.
    public static func values(x: Int, y: Int) -> SIMD4<UInt16> {
        var z = (UInt64(UInt32(truncatingIfNeeded: x &+ (1 << 31))) << 32 | UInt64(UInt32(truncatingIfNeeded: y &+ (1 << 31)))) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return SIMD4(
            UInt16(truncatingIfNeeded: z), UInt16(truncatingIfNeeded: z >> 16), UInt16(truncatingIfNeeded: z >> 32), UInt16(truncatingIfNeeded: z >> 48))
    }
}

struct _RandomNoise: PixelGenerator {
    var name: String { "CIRandomGenerator" }
    var encoding: ColorEncoding { .srgb }

    func generate(into row: UnsafeMutablePointer<SIMD4<Float>>, x: Int, y: Int, count: Int) {
        for i in 0..<count { row[i] = SIMD4<Float>(RandomGenerator.values(x: x + i, y: y)) / 65535 }
    }

    /// round(v / 65535 × 255) = (v + 128) / 257 in integers (v / 257 is never half-way), the
    /// float route's bytes; alpha 0 stores a transparent pixel.
    func generateStraightBytes(into row: UnsafeMutablePointer<UInt8>, x: Int, y: Int, count: Int) -> Bool {
        let raw = UnsafeMutableRawPointer(row)
        for i in 0..<count {
            let v = RandomGenerator.values(x: x + i, y: y)
            let levels = SIMD4<UInt8>(truncatingIfNeeded: (SIMD4<UInt32>(truncatingIfNeeded: v) &+ 128) / 257)
            raw.storeBytes(of: v.w == 0 ? SIMD4<UInt8>() : levels, toByteOffset: 4 * i, as: SIMD4<UInt8>.self)
        }
        return true
    }
}
