import SfumatoCore

/// CICrop: the image cut to a rectangle [x y width height] in pixels (y down); transparent
/// outside it, pixels inside untouched (exact).
public struct Crop: DeclaredFilter, Equatable {
    public static let rectangle = ParameterSpec.vector(
        "inputRectangle", short: "rectangle", default: [0, 0, 640, 480], count: 4, range: -1e9...1e9,
        help: "the part to keep: [x y width height] in pixels, from the top left")
    public static let fields: [FilterField<Crop>] = [.vector(rectangle, \.rectangle)]
    public static let descriptor = FilterDescriptor(
        displayName: "Crop", coreImageName: "CICrop", shortName: "crop", category: .geometry,
        summary: "keep a rectangle of the image", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(rect: Rect(width: 640, height: 480)) }

    /// [x y width height].
    public var rectangle: [Double]

    public init(rect: Rect) { rectangle = [rect.x, rect.y, rect.width, rect.height].map(Double.init) }

    /// The rectangle in whole pixels (fractions rounded out, as Core Image's integral extents).
    /// A list that is not four numbers gives an empty rectangle; NaN and huge values (from the
    /// Swift API) are taken within ±2^30.
    public var rect: Rect {
        guard rectangle.count == 4 else { return Rect(width: 0, height: 0) }
        let limit = Double(1 << 30), r = rectangle.map { $0.bounded(-limit, limit) }
        let x0 = r[0].rounded(.down), y0 = r[1].rounded(.down)
        let x1 = (r[0] + max(0, r[2])).rounded(.up), y1 = (r[1] + max(0, r[3])).rounded(.up)
        return Rect(x: Int(x0), y: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0))
    }

    public func validate() throws {
        guard rectangle.count == 4, rectangle[2] > 0, rectangle[3] > 0 else {
            throw SfumatoError.invalidArgument("rectangle \(rectangle): width and height must be positive")
        }
    }

    public func apply(to image: Image) -> Image { image.cropped(to: rect) }
}
