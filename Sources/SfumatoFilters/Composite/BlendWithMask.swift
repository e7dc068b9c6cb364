import SfumatoCore

/// CIBlendWithMask: the image where the mask is white, the background where it is black:
/// out = S m + D (1 - m), m the mask's luminance 0.2125 R + 0.7154 G + 0.0721 B of its
/// premultiplied working values, clamped to 0...1 (a transparent mask is black: the background).
/// One pass over the three images (``Image/blended(over:mask:)``, 8-bit where all three are);
/// the extent is the union of the image's and the background's.
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

    public func apply(to image: Image) -> Image { image.blended(over: background, mask: mask) }
}
