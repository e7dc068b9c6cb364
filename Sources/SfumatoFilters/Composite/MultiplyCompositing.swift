import SfumatoCore

/// CIMultiplyCompositing: the product of the premultiplied pixels, alpha included: out = S D (**choice**: Apple says only that it multiplies the colour components; the blend mode CIMultiplyBlendMode keeps what lies outside the other image, this does not); the extent is the intersection.
public struct MultiplyCompositing: DeclaredFilter {
    public static let backgroundImage = ParameterSpec.image("inputBackgroundImage", short: "background", help: "the image underneath")
    public static let fields: [FilterField<MultiplyCompositing>] = [.image(backgroundImage, \.background, name: \.backgroundName)]
    public static let descriptor = FilterDescriptor(
        displayName: "Multiply Compositing", coreImageName: "CIMultiplyCompositing", shortName: "multiply-compositing", category: .composite,
        summary: "multiply the two images, alpha too", parameters: fields.map(\.spec))

    /// Every parameter at its default (no background yet).
    public init() { self.init(background: .empty) }

    public var background: Image
    /// Where the background came from (a path), for recipes.
    public var backgroundName: String

    public init(background: Image, name: String = "background") {
        self.background = background
        backgroundName = name
    }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image { image.blended(with: background, by: _MultiplyCompositingKernel()) }
}

struct _MultiplyCompositingKernel: BlendKernel {
    var name: String { "CIMultiplyCompositing" }
    /// Opaque pairs: S D, alpha 1: the multiply blend mode's vector code.
    var opaqueBytes: OpaqueByteBlend? { MultiplyBlendMode.opaqueByteRows.map { .perChannel(rows: $0) } }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground.intersection(background) }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let s = foreground[i], d = background[i]
            output[i] = s * d
        }
    }
}
