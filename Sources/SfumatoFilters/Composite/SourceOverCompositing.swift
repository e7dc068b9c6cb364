import SfumatoCore

/// CISourceOverCompositing: the image over a background, Porter-Duff source-over on
/// premultiplied values: out = S + D (1 - S.a). The extent is the union of both.
///
/// ```swift
/// SourceOverCompositing(background: photo).apply(to: inkLayer)
/// ```
public struct SourceOverCompositing: DeclaredFilter {
    public static let backgroundImage = ParameterSpec.image(
        "inputBackgroundImage", short: "background",
        help: "the image underneath")
    public static let fields: [FilterField<SourceOverCompositing>] = [.image(backgroundImage, \.background, name: \.backgroundName)]
    public static let descriptor = FilterDescriptor(
        displayName: "Source Over Compositing", coreImageName: "CISourceOverCompositing", shortName: "source-over",
        category: .composite, summary: "place the image over a background image", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(background: .empty) }

    public var background: Image
    /// Where the background came from (a path), for recipes.
    public var backgroundName: String

    public init(background: Image, name: String = "background") {
        self.background = background
        backgroundName = name
    }

    public func apply(to image: Image) -> Image {
        image.blended(with: background, by: SourceOverBlend())
    }
}

/// out = S + D (1 - S.a), premultiplied.
public struct SourceOverBlend: BlendKernel {
    public init() {}
    public var name: String { "CISourceOverCompositing" }

    public func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground.union(background) }

    public func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let s = foreground[i]
            output[i] = s + background[i] * (1 - s.w)
        }
    }
}
