/// A computation over every pixel of an area that gives a few pixels (an average, extremes, a
/// histogram): Core Image's reduction filters. See ``Image/reduced(over:by:)``.
///
/// The renderer reads the area once, in strips from the top, as premultiplied working RGBA, and
/// calls ``accumulate(_:into:)`` for each; ``finish(_:pixels:)`` then gives the output row.
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
    /// The output row from the state after `pixels` pixels: premultiplied working RGBA.
    func finish(_ state: [Double], pixels: Int) -> [SIMD4<Float>]
    /// For a reduction whose result depends only on how many pixels have each level: the state
    /// from how many pixels of the area have each 8-bit level in each channel
    /// (`counts[4 * level + channel]`), where `values[level]` is that level's working value, as
    /// the renderer converts it. The renderer takes this route for an opaque 8-bit area, counting
    /// in one byte pass. nil (the default): the renderer reads the pixels.
    var stateFromLevelCounts: LevelCountState? { get }
}

/// See ``AreaReduction/stateFromLevelCounts``: (counts, values) -> state.
public typealias LevelCountState = @Sendable (_ counts: UnsafePointer<Int>, _ values: UnsafePointer<Float>) -> [Double]

extension AreaReduction {
    public func initialState() -> [Double] { Array(repeating: 0, count: stateCount) }
    public var stateFromLevelCounts: LevelCountState? { nil }
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
