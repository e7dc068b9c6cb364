import SfumatoCore

/// CISourceInCompositing: Porter-Duff source-in: out = S D.a; the extent is the intersection of both.
public struct SourceInCompositing: DeclaredFilter {
    public static let backgroundImage = ParameterSpec.image("inputBackgroundImage", short: "background", help: "the image underneath")
    public static let fields: [FilterField<SourceInCompositing>] = [.image(backgroundImage, \.background, name: \.backgroundName)]
    public static let descriptor = FilterDescriptor(
        displayName: "Source In Compositing", coreImageName: "CISourceInCompositing", shortName: "source-in", category: .composite,
        summary: "the image, only where the background is", parameters: fields.map(\.spec))

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

    public func apply(to image: Image) -> Image { image.blended(with: background, by: _SourceInCompositingKernel()) }
}

struct _SourceInCompositingKernel: BlendKernel {
    var name: String { "CISourceInCompositing" }
    /// Opaque pairs: the source, opaque.
    var opaqueBytes: OpaqueByteBlend? { .perChannel(rows: { f, b, o, n in _opaqueByteRows(f, b, o, n) { _, s in s } }) }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground.intersection(background) }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let s = foreground[i], d = background[i]
            output[i] = s * d.w
        }
    }
}
