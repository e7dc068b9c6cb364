import Foundation
import SfumatoCore

/// CIStraightenFilter: the image turned by `angle` radians about its centre (counter-clockwise
/// as seen for a positive angle, as in Core Image) and enlarged just enough that no corner is
/// left empty: by s = |cos a| + max(w/h, h/w) |sin a|, which keeps the rotated, scaled picture
/// over every point of the original w x h rectangle. The extent stays the input's.
public struct StraightenFilter: DeclaredFilter, Equatable {
    public static let angle = ParameterSpec.number(
        "inputAngle", default: 0, range: -Double.pi...Double.pi, slider: -0.35...0.35, unit: .radians,
        help: "the turn, counter-clockwise (radians); the picture is enlarged to fill the frame")
    public static let sampling = ParameterSpec.sampling()
    public static let fields: [FilterField<StraightenFilter>] = [.number(angle, \.angle), .choice(sampling, \.sampling)]
    public static let descriptor = FilterDescriptor(
        displayName: "Straighten", coreImageName: "CIStraightenFilter", shortName: "straighten", category: .geometry,
        summary: "level a tilted horizon, filling the frame", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(angle: 0) }

    public var angle: Double
    public var sampling: Sampling

    public init(angle: Double, sampling: Sampling = .bicubic) {
        self.angle = angle
        self.sampling = sampling
    }

    /// The enlargement that fills a `width` x `height` frame.
    public func fillScale(width: Int, height: Int) -> Double {
        let w = Double(width), h = Double(height)
        return abs(cos(angle)) + max(w / h, h / w) * abs(sin(angle))
    }

    /// The map about the centre of `extent`: rotate (counter-clockwise as seen), then enlarge.
    public func transform(for extent: Rect) -> AffineMap {
        let cx = Double(extent.x) + Double(extent.width) / 2, cy = Double(extent.y) + Double(extent.height) / 2
        let s = fillScale(width: extent.width, height: extent.height)
        return AffineMap.translation(dx: -cx, dy: -cy)
            .concatenating(.rotation(-angle))  // y points down: a negative turn here is counter-clockwise as seen
            .concatenating(.scale(s, s))
            .concatenating(.translation(dx: cx, dy: cy))
    }

    public func apply(to image: Image) -> Image {
        let e = image.extent
        guard angle != 0, !e.isEmpty, !e.isInfinite else { return image }
        return image.clampedToExtent().transformed(by: transform(for: e), sampling: sampling).cropped(to: e)
    }
}
