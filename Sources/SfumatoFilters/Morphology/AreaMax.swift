import SfumatoCore

/// Area maximum: the largest value of each channel over a `width` x `height` rectangle
/// (dilation with a flat rectangular probe), edges clamped.
public struct AreaMax: RectangleFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Area Max", "area-max", "largest value over a rectangle (running max, any size)")
    public var width = 3
    public var height = 3
    public init() {}
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_RectangleKernel(width: width, height: height, extreme: .max)) }
    }
}
