import SfumatoCore

/// CIColorClamp: each channel of the straight (unpremultiplied) colour, alpha included, held
/// within [min, max]:  c' = min(max(c, lo), hi).
public struct ColorClamp: DeclaredFilter, Equatable {
    public static let minimum = ParameterSpec.vector(
        "inputMinComponents", default: [0, 0, 0, 0], count: 4, range: 0...1, help: "lowest R G B A")
    public static let maximum = ParameterSpec.vector(
        "inputMaxComponents", default: [1, 1, 1, 1], count: 4, range: 0...1, help: "highest R G B A")
    public static let fields: [FilterField<ColorClamp>] = [.vector(minimum, \.minimum), .vector(maximum, \.maximum)]
    public static let descriptor = FilterDescriptor(
        displayName: "Color Clamp", coreImageName: "CIColorClamp", shortName: "color-clamp", category: .color,
        summary: "keep each channel within a range", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(minimum: [0, 0, 0, 0]) }

    public var minimum: [Double]
    public var maximum: [Double]

    public init(minimum: [Double] = [0, 0, 0, 0], maximum: [Double] = [1, 1, 1, 1]) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public func apply(to image: Image) -> Image {
        guard _lists(minimum, maximum, count: 4) else { return image }
        func v(_ a: [Double]) -> SIMD4<Float> { SIMD4(a.map(Float.init)) }
        return image.applying([.pixel(ClampPixels(low: v(minimum), high: v(maximum)))], name: Self.descriptor.name)
    }
}

struct ClampPixels: PixelFunction {
    let low: SIMD4<Float>, high: SIMD4<Float>
    var name: String { "clamp" }
    /// Alpha bounds of 0...1 or wider leave alpha as it is.
    var isPerChannel: Bool { low.w <= 0 && high.w >= 1 }

    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count { pixels[i] = pointwiseMin(pointwiseMax(pixels[i], low), high) }
    }
}
