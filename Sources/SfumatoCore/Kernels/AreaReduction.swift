/// A computation over every pixel of an area that gives a few pixels (an average, extremes, a
/// histogram): Core Image's reduction filters. See ``Image/reduced(over:by:)``.
///
/// The renderer reads the area once, in strips, as premultiplied working RGBA, and calls
/// ``accumulate(_:into:)`` for each; ``finish(_:pixels:)`` then gives the output row. Where
/// ``combined(_:_:)`` merges two states, bands of the area are read on several threads at once.
public protocol AreaReduction: Sendable {
    /// Name shown in render plans.
    var name: String { get }
    /// How many pixels the result has (one row), 1 or more.
    var outputWidth: Int { get }
    /// The size of the running state, in Doubles.
    var stateCount: Int { get }
    /// The state before any pixel (by default zeros).
    func initialState() -> [Double]
    /// Adds `count` premultiplied working pixels to the state.
    func accumulate(_ pixels: UnsafePointer<SIMD4<Float>>, count: Int, into state: inout [Double])
    /// The state of two parts of the area together (sums added, extremes of both), or nil (the
    /// default) when states cannot be merged: the area is then read in one pass from the top.
    func combined(_ a: [Double], _ b: [Double]) -> [Double]?
    /// The output row from the state after `pixels` pixels: premultiplied working RGBA.
    func finish(_ state: [Double], pixels: Int) -> [SIMD4<Float>]
    /// For a reduction whose result depends only on a summary of the area's 8-bit levels: which
    /// summary, and the state from it. The renderer takes this route for an opaque 8-bit area,
    /// in one pass over its bytes. nil (the default): the renderer reads the pixels.
    var fromLevels: LevelRoute? { get }
}

extension AreaReduction {
    public func initialState() -> [Double] { Array(repeating: 0, count: stateCount) }
    public func combined(_ a: [Double], _ b: [Double]) -> [Double]? { nil }
    public var fromLevels: LevelRoute? { nil }
}

/// See ``AreaReduction/fromLevels``: the summary a reduction needs and its state from it.
public struct LevelRoute: Sendable {
    /// What the renderer gathers, cheapest first.
    public enum Summary: Sendable, Comparable {
        /// The sum of each channel's working values (``LevelSummary/valueSums``).
        case sums
        /// Each channel's lowest and highest level (``LevelSummary/lowest``, ``LevelSummary/highest``).
        case extremes
        /// How many pixels have each level in each channel (``LevelSummary/counts``).
        case counts
    }

    /// The summary gathered.
    public let summary: Summary
    /// The state from it.
    public let state: @Sendable (LevelSummary) -> [Double]

    public init(_ summary: Summary, state: @escaping @Sendable (LevelSummary) -> [Double]) {
        self.summary = summary
        self.state = state
    }
}

/// What the renderer knows of an opaque 8-bit area (``LevelRoute``). Levels are bytes; a
/// level's working value is `values[level]`, the float tiles' own conversion of it, so the
/// level route and the pixel route see the same numbers.
public struct LevelSummary: @unchecked Sendable {
    /// The working value of each of the 256 levels (the colour channels'; alpha's level 255 is 1).
    public let values: UnsafePointer<Float>
    /// For ``LevelRoute/Summary/counts``: pixels of each level in each channel, `counts[4 * level + channel]`; else nil.
    public let counts: UnsafePointer<Int>?
    /// Per channel, the lowest and highest level (from ``LevelRoute/Summary/extremes`` or counts).
    public let lowest: SIMD4<UInt8>, highest: SIMD4<UInt8>
    /// Per channel, the sum of the working values (always given).
    public let valueSums: SIMD4<Double>
}

extension Image {
    /// The result of `reduction` over `area` of this image (clipped to the extent; transparent
    /// pixels beyond it count when the image is infinite): one row of
    /// ``AreaReduction/outputWidth`` pixels at the area's top-left corner.
    ///
    /// ```swift
    /// let mean = photo.reduced(over: photo.extent, by: myAverage)   // a 1x1 image
    /// ```
    public func reduced(over area: Rect, by reduction: any AreaReduction) -> Image {
        let a = extent.isInfinite ? area : area.intersection(extent)
        guard !a.isEmpty, !a.isInfinite, reduction.outputWidth > 0 else { return .empty }
        return Image(node: _Node(.reduction(reduction, a), inputs: [node], extent: Rect(x: a.x, y: a.y, width: reduction.outputWidth, height: 1)))
    }
}
