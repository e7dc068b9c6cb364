import SfumatoCore

/// Morphological closing: area max then area min over the same rectangle (fills small dark gaps).
public struct Closing: RectangleFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Morphology Closing", "closing", "area max then area min (removes small dark specks)")
    public var width = 3
    public var height = 3
    public init() {}
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        AreaMin(width: width, height: height).apply(to: AreaMax(width: width, height: height).apply(to: image))
    }
}
