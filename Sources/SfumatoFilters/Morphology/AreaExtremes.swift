import SfumatoCore

/// Area maximum: the largest value of each channel over a `width` x `height` rectangle
/// (dilation with a flat rectangular probe), edges clamped.
public struct AreaMax: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...255, unit: .pixels, help: "window width")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...255, unit: .pixels, help: "window height")
    public static let descriptor = FilterDescriptor(
        displayName: "Area Max", coreImageName: nil, shortName: "area-max", category: "Morphology",
        summary: "largest value over a rectangle (running max, any size)", parameters: [width, height])

    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public init(arguments a: FilterArguments) throws { self.init(width: Int(a.number(Self.width)), height: Int(a.number(Self.height))) }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        return a
    }
    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_RectangleKernel(width: width, height: height, extreme: .max)) }
    }
}

/// Area minimum: the smallest value of each channel over a `width` x `height` rectangle
/// (erosion with a flat rectangular probe), edges clamped.
public struct AreaMin: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...255, unit: .pixels, help: "window width")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...255, unit: .pixels, help: "window height")
    public static let descriptor = FilterDescriptor(
        displayName: "Area Min", coreImageName: nil, shortName: "area-min", category: "Morphology",
        summary: "smallest value over a rectangle (running min, any size)", parameters: [width, height])

    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public init(arguments a: FilterArguments) throws { self.init(width: Int(a.number(Self.width)), height: Int(a.number(Self.height))) }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        return a
    }
    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_RectangleKernel(width: width, height: height, extreme: .min)) }
    }
}

/// Morphological closing: area max then area min over the same rectangle (fills small dark gaps).
public struct Closing: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...255, unit: .pixels, help: "window width")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...255, unit: .pixels, help: "window height")
    public static let descriptor = FilterDescriptor(
        displayName: "Morphology Closing", coreImageName: nil, shortName: "closing", category: "Morphology",
        summary: "area max then area min (removes small dark specks)", parameters: [width, height])

    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public init(arguments a: FilterArguments) throws { self.init(width: Int(a.number(Self.width)), height: Int(a.number(Self.height))) }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        return a
    }
    public func apply(to image: Image) -> Image {
        AreaMin(width: width, height: height).apply(to: AreaMax(width: width, height: height).apply(to: image))
    }
}

/// Morphological opening: area min then area max over the same rectangle (removes small bright specks).
public struct Opening: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...255, unit: .pixels, help: "window width")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...255, unit: .pixels, help: "window height")
    public static let descriptor = FilterDescriptor(
        displayName: "Morphology Opening", coreImageName: nil, shortName: "opening", category: "Morphology",
        summary: "area min then area max (removes small bright specks)", parameters: [width, height])

    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    public init(arguments a: FilterArguments) throws { self.init(width: Int(a.number(Self.width)), height: Int(a.number(Self.height))) }
    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        return a
    }
    public func apply(to image: Image) -> Image {
        AreaMax(width: width, height: height).apply(to: AreaMin(width: width, height: height).apply(to: image))
    }
}
