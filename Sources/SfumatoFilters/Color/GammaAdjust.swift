import SfumatoCore

#if arch(x86_64)
    import SfumatoAVX512
#endif

/// CIGammaAdjust: each colour channel raised to `power` (sign(x) |x|^power for values below 0,
/// docs/spec/FILTERS.md, a choice). A per-channel curve: fused with its neighbours, and a lookup table when
/// the whole chain is per-channel on 8-bit data.
///
/// ```swift
/// GammaAdjust(power: 1.5).apply(to: photo)   // darker mid-tones
/// ```
public struct GammaAdjust: DeclaredFilter, Equatable {
    /// The exponent; 0...4 accepted (PencilController reaches 0), slider 0.1...4.
    public static let power = ParameterSpec.number(
        "inputPower", default: 1, range: 0...4, slider: 0.1...4, unit: .scalar,
        help: "exponent applied to each channel")
    public static let fields: [FilterField<GammaAdjust>] = [.number(power, \.power)]
    public static let descriptor = FilterDescriptor(
        displayName: "Gamma Adjust", coreImageName: "CIGammaAdjust", shortName: "gamma-adjust", category: .color,
        summary: "raise each channel to a power", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(power: 1) }

    public var power: Double

    public init(power: Double = 1) { self.power = power }

    public func apply(to image: Image) -> Image {
        if power == 1 { return image.applying([.linear(.identity)], name: Self.descriptor.name) }
        return image.applying([.curve(PowerCurve(power: Float(power)))], name: Self.descriptor.name)
    }
}

/// `sign(x) |x|^power` on R, G and B.
public struct PowerCurve: ChannelCurve {
    public let power: Float
    public init(power: Float) { self.power = power }
    public var name: String { "power \(power)" }

    public func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        let p = power
        var start = 0
        #if arch(x86_64)
            // Four pixels a step with AVX-512, the same floats (WideVectorTests).
            if CPUFeatures.wideVectors {
                start =
                    UnsafeMutableRawPointer(pixels).withMemoryRebound(to: Float.self, capacity: 4 * count) {
                        _powAVX512($0, count: 4 * count, power: p)
                    } / 4
            }
        #endif
        for i in start..<count { pixels[i] = vectorPow(pixels[i], p) }
    }
}
