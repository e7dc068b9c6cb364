import SfumatoCore

/// CIHighlightShadowAdjust: shadows lifted and highlights pulled down by a gain on the colour,
/// C' = C g, alpha kept, with
///
///     g = (1 + shadow (1 - B)^2) (1 - (1 - highlight) B^2)
///
/// where B is the luminance 0.2125 R + 0.7154 G + 0.0721 B of the straight working colour (radius
/// 0) or of the image blurred by a Gaussian of sigma = radius (edges clamped: the local
/// brightness, so detail keeps its contrast). shadow 0 and highlight 1 leave the image as it is
/// (**choice**: Apple gives no formula).
public struct HighlightShadowAdjust: DeclaredFilter, Equatable {
    public static let radius = ParameterSpec.number(
        "inputRadius", default: 0, range: 0...100, slider: 0...30, unit: .pixels, help: "the neighbourhood that judges light and dark (0: each pixel)")
    public static let shadowAmount = ParameterSpec.number(
        "inputShadowAmount", short: "shadow", default: 0, range: -1...1, help: "lift (positive) or deepen (negative) the shadows")
    public static let highlightAmount = ParameterSpec.number(
        "inputHighlightAmount", short: "highlight", default: 1, range: 0...1, help: "1 keeps the highlights; less pulls them down")
    public static let fields: [FilterField<HighlightShadowAdjust>] = [
        .number(radius, \.radius), .number(shadowAmount, \.shadow), .number(highlightAmount, \.highlight)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Highlight and Shadow Adjust", coreImageName: "CIHighlightShadowAdjust", shortName: "highlight-shadow",
        category: .color, summary: "lift the shadows, recover the highlights", parameters: fields.map(\.spec))

    /// Every parameter at its default (no change).
    public init() { self.init(radius: 0, shadow: 0, highlight: 1) }

    public var radius: Double, shadow: Double, highlight: Double

    public init(radius: Double = 0, shadow: Double = 0, highlight: Double = 1) {
        (self.radius, self.shadow, self.highlight) = (radius, shadow, highlight)
    }

    /// g for a local luminance b.
    static func gain(_ b: Float, shadow: Float, highlight: Float) -> Float {
        let c = b.bounded(0, 1)
        return (1 + shadow * (1 - c) * (1 - c)) * (1 - (1 - highlight) * c * c)
    }

    public func apply(to image: Image) -> Image {
        if shadow == 0 && highlight == 1 { return image }
        let (s, h) = (Float(shadow), Float(highlight))
        if radius < 0.16 {
            return image.applying([.pixel(_ShadowGain(shadow: s, highlight: h))], name: Self.descriptor.name)
        }
        let blurred = GaussianBlur(radius: radius, edges: .clamp).apply(to: image)
        return image.blended(with: blurred, by: _LocalShadowGain(shadow: s, highlight: h))
    }
}

struct _ShadowGain: PixelFunction {
    let shadow: Float, highlight: Float
    var name: String { "shadow/highlight gain" }
    func apply(_ pixels: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            let p = pixels[i]
            let g = HighlightShadowAdjust.gain(0.2125 * p.x + 0.7154 * p.y + 0.0721 * p.z, shadow: shadow, highlight: highlight)
            pixels[i] = SIMD4(p.x * g, p.y * g, p.z * g, p.w)
        }
    }
}

/// The gain from the blurred image's luminance (the background), applied to the image.
struct _LocalShadowGain: BlendKernel {
    let shadow: Float, highlight: Float
    var name: String { "CIHighlightShadowAdjust" }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let p = foreground[i], b = background[i]
            let l = b.w > 0 ? (0.2125 * b.x + 0.7154 * b.y + 0.0721 * b.z) / b.w : 0
            let g = HighlightShadowAdjust.gain(l, shadow: shadow, highlight: highlight)
            output[i] = SIMD4(p.x * g, p.y * g, p.z * g, p.w)
        }
    }
}
