/// An axis-aligned rectangle of whole pixels: `x ..< x + width` by `y ..< y + height`.
///
/// Pixel coordinates grow right and down, as in the browser and in image files. An extent may be
/// infinite (``Rect/infinite``), as after ``Image/clampedToExtent()`` or for a constant colour.
///
/// ```swift
/// let r = Rect(x: 0, y: 0, width: 640, height: 480)
/// r.insetBy(dx: -3, dy: -3)   // Rect(x: -3, y: -3, width: 646, height: 486)
/// ```
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    /// Left edge (inclusive).
    public var x: Int
    /// Top edge (inclusive).
    public var y: Int
    /// Width in pixels, 0 or more.
    public var width: Int
    /// Height in pixels, 0 or more.
    public var height: Int

    /// Creates a rectangle; a negative width or height is stored as 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// A rectangle at the origin.
    public init(width: Int, height: Int) {
        self.init(x: 0, y: 0, width: width, height: height)
    }

    /// Half the span of the infinite rectangle: large enough for any image, small enough that
    /// sums of a few of them never overflow `Int`.
    static let _infiniteHalfSpan = 1 << 40

    /// The infinite extent of an image that covers the whole plane.
    public static let infinite = Rect(
        x: -_infiniteHalfSpan, y: -_infiniteHalfSpan,
        width: 2 * _infiniteHalfSpan, height: 2 * _infiniteHalfSpan)

    /// The empty rectangle.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// Right edge (exclusive).
    public var maxX: Int { x + width }
    /// Bottom edge (exclusive).
    public var maxY: Int { y + height }
    /// Whether the rectangle holds no pixel.
    public var isEmpty: Bool { width == 0 || height == 0 }
    /// Whether the rectangle is (at least as large as) the infinite plane in some direction.
    public var isInfinite: Bool {
        x <= -Rect._infiniteHalfSpan || y <= -Rect._infiniteHalfSpan
            || maxX >= Rect._infiniteHalfSpan || maxY >= Rect._infiniteHalfSpan
    }
    /// Number of pixels (`width * height`).
    public var area: Int { width * height }

    /// The overlap of two rectangles (empty when they do not meet).
    public func intersection(_ other: Rect) -> Rect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(maxX, other.maxX), y1 = min(maxY, other.maxY)
        if x1 <= x0 || y1 <= y0 { return Rect(x: x0, y: y0, width: 0, height: 0) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The smallest rectangle holding both (an empty rectangle counts as nothing).
    public func union(_ other: Rect) -> Rect {
        if isEmpty { return other }
        if other.isEmpty { return self }
        let x0 = min(x, other.x), y0 = min(y, other.y)
        let x1 = max(maxX, other.maxX), y1 = max(maxY, other.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The rectangle grown (negative values) or shrunk (positive values) on every side.
    ///
    /// Infinite rectangles stay infinite.
    public func insetBy(dx: Int, dy: Int) -> Rect {
        if isInfinite { return self }
        return Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The rectangle moved by an offset.
    public func offsetBy(dx: Int, dy: Int) -> Rect {
        if isInfinite { return self }
        return Rect(x: x + dx, y: y + dy, width: width, height: height)
    }

    /// Whether `other` lies entirely inside this rectangle.
    public func contains(_ other: Rect) -> Bool {
        other.isEmpty || (other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY)
    }

    /// Whether pixel (`px`, `py`) lies inside.
    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && py >= y && px < maxX && py < maxY
    }

    public var description: String {
        isInfinite ? "infinite" : "\(width)x\(height)+\(x)+\(y)"
    }
}
