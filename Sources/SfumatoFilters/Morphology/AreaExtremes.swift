import SfumatoCore

/// Filters defined by a rectangle's width and height (area max and min, closing, opening):
/// they share their parameter declarations and their table form.
public protocol RectangleFilter: Filter {
    var width: Int { get }
    var height: Int { get }
    init(width: Int, height: Int)
}

/// The parameters every rectangle filter declares.
enum _Rectangle {
    static let width = ParameterSpec.integer("width", default: 3, range: 1...255, unit: .pixels, help: "window width")
    static let height = ParameterSpec.integer("height", default: 3, range: 1...255, unit: .pixels, help: "window height")

    static func descriptor(_ display: String, _ short: String, _ summary: String) -> FilterDescriptor {
        FilterDescriptor(
            displayName: display, coreImageName: nil, shortName: short, category: "Morphology", summary: summary,
            parameters: [width, height])
    }
}

extension RectangleFilter {
    public init(arguments a: FilterArguments) throws {
        self.init(width: Int(a.number(_Rectangle.width)), height: Int(a.number(_Rectangle.height)))
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(_Rectangle.width, .number(Double(width)))
        a.set(_Rectangle.height, .number(Double(height)))
        return a
    }

    /// The same filter for an image `factor` times the size.
    public func scaled(by factor: Double) -> Self { Self(width: _scaledOdd(width, factor), height: _scaledOdd(height, factor)) }
}

/// Area maximum: the largest value of each channel over a `width` x `height` rectangle
/// (dilation with a flat rectangular probe), edges clamped.
public struct AreaMax: RectangleFilter, ScalableFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Area Max", "area-max", "largest value over a rectangle (running max, any size)")
    public let width: Int
    public let height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_RectangleKernel(width: width, height: height, extreme: .max)) }
    }
}

/// Area minimum: the smallest value of each channel over a `width` x `height` rectangle
/// (erosion with a flat rectangular probe), edges clamped.
public struct AreaMin: RectangleFilter, ScalableFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Area Min", "area-min", "smallest value over a rectangle (running min, any size)")
    public let width: Int
    public let height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_RectangleKernel(width: width, height: height, extreme: .min)) }
    }
}

/// Morphological closing: area max then area min over the same rectangle (fills small dark gaps).
public struct Closing: RectangleFilter, ScalableFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Morphology Closing", "closing", "area max then area min (removes small dark specks)")
    public let width: Int
    public let height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        AreaMin(width: width, height: height).apply(to: AreaMax(width: width, height: height).apply(to: image))
    }
}

/// Morphological opening: area min then area max over the same rectangle (removes small bright specks).
public struct Opening: RectangleFilter, ScalableFilter, Equatable {
    public static let descriptor = _Rectangle.descriptor("Morphology Opening", "opening", "area min then area max (removes small bright specks)")
    public let width: Int
    public let height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public func apply(to image: Image) -> Image {
        AreaMax(width: width, height: height).apply(to: AreaMin(width: width, height: height).apply(to: image))
    }
}
