import SfumatoCore

/// CIBlendWithMask: the image where the mask is white, the background where it is black:
/// out = S m + D (1 - m), m the mask's luminance 0.2125 R + 0.7154 G + 0.0721 B of its
/// premultiplied working values, clamped to 0...1 (a transparent mask is black: the background).
/// Composed of three two-image passes (S m, D (1 - m), their sum); the extent is the union of the
/// image's and the background's.
public struct BlendWithMask: DeclaredFilter {
    public static let backgroundImage = ParameterSpec.image("inputBackgroundImage", short: "background", help: "what shows where the mask is black")
    public static let maskImage = ParameterSpec.image("inputMaskImage", short: "mask", help: "white keeps the image, black shows the background")
    public static let fields: [FilterField<BlendWithMask>] = [
        .image(backgroundImage, \.background, name: \.backgroundName), .image(maskImage, \.mask, name: \.maskName)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Blend With Mask", coreImageName: "CIBlendWithMask", shortName: "blend-with-mask", category: .composite,
        summary: "the image where the mask is white, the background where it is black", parameters: fields.map(\.spec))

    /// Every parameter at its default (no images yet).
    public init() { self.init(background: .empty, mask: .empty) }

    public var background: Image, mask: Image
    /// Where the images came from (paths), for recipes.
    public var backgroundName: String, maskName: String

    public init(background: Image, mask: Image, backgroundName: String = "background", maskName: String = "mask") {
        self.background = background
        self.mask = mask
        self.backgroundName = backgroundName
        self.maskName = maskName
    }

    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        let kept = image.blended(with: mask, by: _MaskWeight(inverted: false))
        let shown = background.blended(with: mask, by: _MaskWeight(inverted: true))
        return kept.blended(with: shown, by: _Sum(extentOf: image.extent.union(background.extent)))
    }
}

/// out = S m (or S (1 - m)), m the mask's luminance: the foreground is the image, the background the mask.
struct _MaskWeight: BlendKernel {
    let inverted: Bool
    var name: String { inverted ? "CIBlendWithMask: background x (1 - mask)" : "CIBlendWithMask: image x mask" }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { foreground }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count {
            let m = background[i]
            let l = min(max(0.2125 * m.x + 0.7154 * m.y + 0.0721 * m.z, 0), 1)
            output[i] = foreground[i] * (inverted ? 1 - l : l)
        }
    }
}

/// out = S + D over a given extent.
struct _Sum: BlendKernel {
    let extentOf: Rect
    var name: String { "CIBlendWithMask: sum" }
    func outputExtent(foreground: Rect, background: Rect) -> Rect { extentOf }
    func apply(
        foreground: UnsafePointer<SIMD4<Float>>, background: UnsafePointer<SIMD4<Float>>,
        output: UnsafeMutablePointer<SIMD4<Float>>, count: Int
    ) {
        for i in 0..<count { output[i] = foreground[i] + background[i] }
    }
}
