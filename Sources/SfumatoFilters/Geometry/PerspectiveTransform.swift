import SfumatoCore

/// CIPerspectiveTransform: the image's corners moved to four points (top left, top right, bottom
/// right, bottom left, in pixels, y down) by the one projective map that does it; each output
/// pixel centre is mapped back through the inverse and sampled (kernels widened by the local
/// shrink factor). Outside the moved quadrilateral is transparent. Defaults leave a 640 x 480
/// image as it is.
public struct PerspectiveTransform: DeclaredFilter, Equatable {
    public static let topLeft = ParameterSpec.vector(
        "inputTopLeft", short: "top-left", default: [0, 0], count: 2, range: -1e6...1e6, help: "where the top-left corner goes")
    public static let topRight = ParameterSpec.vector(
        "inputTopRight", short: "top-right", default: [640, 0], count: 2, range: -1e6...1e6, help: "where the top-right corner goes")
    public static let bottomRight = ParameterSpec.vector(
        "inputBottomRight", short: "bottom-right", default: [640, 480], count: 2, range: -1e6...1e6, help: "where the bottom-right corner goes")
    public static let bottomLeft = ParameterSpec.vector(
        "inputBottomLeft", short: "bottom-left", default: [0, 480], count: 2, range: -1e6...1e6, help: "where the bottom-left corner goes")
    public static let sampling = ParameterSpec.sampling()
    public static let fields: [FilterField<PerspectiveTransform>] = [
        .vector(topLeft, \.topLeft), .vector(topRight, \.topRight), .vector(bottomRight, \.bottomRight), .vector(bottomLeft, \.bottomLeft),
        .choice(sampling, \.sampling)
    ]
    public static let descriptor = FilterDescriptor(
        displayName: "Perspective Transform", coreImageName: "CIPerspectiveTransform", shortName: "perspective", category: .geometry,
        summary: "move the corners: keystone, tilt", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(topLeft: [0, 0], topRight: [640, 0], bottomRight: [640, 480], bottomLeft: [0, 480]) }

    public var topLeft: [Double], topRight: [Double], bottomRight: [Double], bottomLeft: [Double]
    public var sampling: Sampling

    public init(topLeft: [Double], topRight: [Double], bottomRight: [Double], bottomLeft: [Double], sampling: Sampling = .bicubic) {
        (self.topLeft, self.topRight, self.bottomRight, self.bottomLeft) = (topLeft, topRight, bottomRight, bottomLeft)
        self.sampling = sampling
    }

    /// The map for an image of `extent`; nil when the corners allow none (three on a line).
    public func transform(for extent: Rect) -> ProjectiveMap? {
        guard _lists(topLeft, topRight, bottomRight, bottomLeft, count: 2) else { return nil }
        return ProjectiveMap(mapping: extent, to: [topLeft, topRight, bottomRight, bottomLeft].map { ($0[0], $0[1]) })
    }

    /// The corners must make a convex quadrilateral: a folded one (a bow tie) would send part
    /// of the image behind the viewer.
    public func validate() throws {
        let p = [topLeft, topRight, bottomRight, bottomLeft]
        guard _lists(topLeft, topRight, bottomRight, bottomLeft, count: 2) else { throw SfumatoError.invalidArgument("each corner is two numbers") }
        let turns = (0..<4).map { i -> Double in
            let a = p[i], b = p[(i + 1) % 4], c = p[(i + 2) % 4]
            return (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        }
        guard turns.allSatisfy({ $0 > 0 }) || turns.allSatisfy({ $0 < 0 }),
            let t = transform(for: Rect(width: 640, height: 480)), t.inverted != nil
        else {
            throw SfumatoError.invalidArgument("the four corners must make a convex quadrilateral, in order around it")
        }
    }

    /// Pixels brought from outside the extent are transparent.
    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image {
        let e = image.extent
        guard !e.isEmpty, !e.isInfinite, let t = transform(for: e) else { return .empty }
        return image.transformed(by: t, sampling: sampling)
    }
}
