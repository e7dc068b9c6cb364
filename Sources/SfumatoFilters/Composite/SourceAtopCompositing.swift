import SfumatoCore

/// CISourceAtopCompositing: Porter-Duff source-atop on premultiplied values: out = S D.a + D (1 - S.a); the extent is the background's.
public struct SourceAtopCompositing: DeclaredFilter {
    public static let backgroundImage = ParameterSpec.image("inputBackgroundImage", short: "background", help: "the image underneath")
    public static let fields: [FilterField<SourceAtopCompositing>] = [.image(backgroundImage, \.background, name: \.backgroundName)]
    public static let descriptor = FilterDescriptor(
        displayName: "Source Atop Compositing", coreImageName: "CISourceAtopCompositing", shortName: "source-atop", category: .composite,
        summary: "the image over the background, only where the background is", parameters: fields.map(\.spec))

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

    public func apply(to image: Image) -> Image { image.blended(with: background, by: _SourceAtopCompositingKernel()) }
}

struct _SourceAtopCompositingKernel: BlendKernel {
    var name: String { "CISourceAtopCompositing" }
    /// Opaque pairs: the source, opaque.
    var opaqueBytes: OpaqueByteBlend? { .perChannel(rows: { f, b, o, n in _opaqueByteRows(f, b, o, n) { _, s in s } }) }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { background }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let s = foreground[i], d = background[i]
            output[i] = s * d.w + d * (1 - s.w)
        }
    }
}
