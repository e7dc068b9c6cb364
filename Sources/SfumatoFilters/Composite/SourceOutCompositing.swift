import SfumatoCore

/// CISourceOutCompositing: Porter-Duff source-out: out = S (1 - D.a); the extent is the image's.
public struct SourceOutCompositing: DeclaredFilter {
    public static let backgroundImage = ParameterSpec.image("inputBackgroundImage", short: "background", help: "the image underneath")
    public static let fields: [FilterField<SourceOutCompositing>] = [.image(backgroundImage, \.background, name: \.backgroundName)]
    public static let descriptor = FilterDescriptor(
        displayName: "Source Out Compositing", coreImageName: "CISourceOutCompositing", shortName: "source-out", category: .composite,
        summary: "the image, only where the background is not", parameters: fields.map(\.spec))

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

    public func apply(to image: Image) -> Image { image.blended(with: background, by: _SourceOutCompositingKernel()) }
}

struct _SourceOutCompositingKernel: BlendKernel {
    var name: String { "CISourceOutCompositing" }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let s = foreground[i], d = background[i]
            output[i] = s * (1 - d.w)
        }
    }
}
