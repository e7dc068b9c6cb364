import SfumatoCore

/// Area minimum: the smallest value of each channel over a `width` x `height` rectangle
/// (erosion with a flat rectangular probe), edges clamped.
public struct AreaMin: RectangleFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Area Min", "area-min", "smallest value over a rectangle (running min, any size)")
    public var width = 3
    public var height = 3
    public init() {}
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_RectangleKernel(width: width, height: height, extreme: .min)) }
    }
}
