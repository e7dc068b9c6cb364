import SfumatoCore

/// Morphological opening: area min then area max over the same rectangle (removes small bright specks).
public struct Opening: RectangleFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Morphology Opening", "opening", "area min then area max (removes small bright specks)")
    public var width = 3
    public var height = 3
    public init() {}
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        AreaMax(width: width, height: height).apply(to: AreaMin(width: width, height: height).apply(to: image))
    }
}
