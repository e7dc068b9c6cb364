import Foundation
import SfumatoCore

/// CILanczosScaleTransform: the image scaled by `scale` down and `scale * aspectRatio` across
/// with the Lanczos-3 kernel, k(t) = sinc(t) sinc(t / 3) for |t| < 3, widened by the shrink
/// factor when shrinking (libvips' reduce, Pillow's LANCZOS); one axis at a time, edges
/// extended. The output size is the input's times the factors, rounded, at least 1.
public struct LanczosScaleTransform: DeclaredFilter, Equatable {
    public static let scale = ParameterSpec.number(
        "inputScale", default: 1, range: 0.0001...64, slider: 0.05...4, unit: .scalar, help: "the factor on both axes")
    public static let aspectRatio = ParameterSpec.number(
        "inputAspectRatio", short: "aspect", default: 1, range: 0.01...100, slider: 0.25...4, unit: .scalar,
        help: "an extra factor across (1 keeps the proportions)")
    public static let fields: [FilterField<LanczosScaleTransform>] = [.number(scale, \.scale), .number(aspectRatio, \.aspectRatio)]
    public static let descriptor = FilterDescriptor(
        displayName: "Lanczos Scale Transform", coreImageName: "CILanczosScaleTransform", shortName: "lanczos-scale",
        category: .geometry, summary: "resize with a Lanczos kernel", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(scale: 1) }

    public var scale: Double
    public var aspectRatio: Double

    public init(scale: Double, aspectRatio: Double = 1) {
        self.scale = scale
        self.aspectRatio = aspectRatio
    }

    /// The output size for an input of `width` x `height`, each side within 1...2^28.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        // NaN (from the Swift API) gives 1.
        func side(_ n: Int, _ k: Double) -> Int { Int((Double(n) * k).rounded().bounded(1, Double(1 << 28))) }
        let scale = Self.scale.clamped(scale), aspectRatio = Self.aspectRatio.clamped(aspectRatio)
        return (side(width, scale * aspectRatio), side(height, scale))
    }

    public func apply(to image: Image) -> Image {
        let e = image.extent
        guard !e.isEmpty, !e.isInfinite else { return image }
        let (w, h) = outputSize(width: e.width, height: e.height)
        return image.resized(width: w, height: h, sampling: .lanczos3)
    }
}
