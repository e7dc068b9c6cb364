import SfumatoCore

/// CIAffineTransform: the image mapped through `x' = a x + c y + tx, y' = b x + d y + ty` in
/// pixel coordinates (x right, y down: unlike Core Image's y-up plane, a positive rotation turns
/// clockwise as seen). Each output pixel centre is mapped back and sampled with the chosen
/// kernel, widened by the shrink factor on an axis that shrinks; outside the extent is
/// transparent. See ``Sampling`` for the kernels' definitions.
public struct AffineTransformFilter: DeclaredFilter, Equatable {
    /// [a b c d tx ty].
    public static let transform = ParameterSpec.vector(
        "inputTransform", short: "transform", default: [1, 0, 0, 1, 0, 0], count: 6, range: -1e6...1e6,
        help: "the map [a b c d tx ty]: x' = a x + c y + tx, y' = b x + d y + ty (pixels, y down)")
    public static let sampling = ParameterSpec.sampling()
    public static let fields: [FilterField<AffineTransformFilter>] = [.vector(transform, \.matrix), .choice(sampling, \.sampling)]
    public static let descriptor = FilterDescriptor(
        displayName: "Affine Transform", coreImageName: "CIAffineTransform", shortName: "affine", category: .geometry,
        summary: "move, turn, scale or shear the image", parameters: fields.map(\.spec))

    /// Every parameter at its default (the identity).
    public init() { self.init(transform: .identity) }

    /// The six numbers [a b c d tx ty].
    public var matrix: [Double]
    public var sampling: Sampling

    public init(transform: AffineMap, sampling: Sampling = .bicubic) {
        matrix = [transform.a, transform.b, transform.c, transform.d, transform.tx, transform.ty]
        self.sampling = sampling
    }

    /// The map the six numbers describe.
    public var transform: AffineMap {
        // Six numbers, or (from the Swift API) the identity.
        guard matrix.count == 6 else { return .identity }
        return AffineMap(a: matrix[0], b: matrix[1], c: matrix[2], d: matrix[3], tx: matrix[4], ty: matrix[5])
    }

    public func validate() throws {
        guard transform.inverted != nil else {
            throw SfumatoError.invalidArgument("transform \(transform) squashes the image onto a line (its determinant is 0)")
        }
    }

    /// Pixels brought from outside the extent are transparent.
    public var preservesOpacity: Bool { false }

    public func apply(to image: Image) -> Image { image.transformed(by: transform, sampling: sampling) }
}
