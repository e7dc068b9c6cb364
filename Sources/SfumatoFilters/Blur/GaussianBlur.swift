import SfumatoCore

/// How a neighbourhood filter treats pixels beyond the image's edge.
public enum EdgeMode: String, Sendable, CaseIterable {
    /// Core Image's rule: transparent outside, and the extent grows by the kernel's reach.
    case grow
    /// Transparent outside, result cropped to the input's extent (MPS edge mode zero).
    case zero
    /// Edge pixels repeated outward, result cropped to the input's extent (the clamp-and-crop idiom).
    case clamp
}

/// CIGaussianBlur, and the gallery's `gaussian-blur`: a Gaussian of standard deviation
/// `radius` (docs/spec/FILTERS.md, a choice: sigma = radius).
///
/// Named `CIGaussianBlur` it keeps Core Image's rule (transparent outside, extent grows by 3σ);
/// named `gaussian-blur` it clamps its edges and keeps the input's extent, like the studio.
/// A radius below 0.16 returns the input unchanged.
///
/// ```swift
/// GaussianBlur(radius: 8, edges: .clamp).apply(to: photo)
/// ```
public struct GaussianBlur: DeclaredFilter, Equatable {
    /// Standard deviation in pixels, 0...100 (Core Image's range); up to 500 accepted.
    public static let radius = ParameterSpec.number(
        "inputRadius", default: 10, range: 0...500, slider: 0...100,
        unit: .pixels, help: "standard deviation of the Gaussian, in pixels")
    public static let edges = ParameterSpec.choice(
        "edges", default: EdgeMode.grow.rawValue, EdgeMode.allCases.map(\.rawValue),
        help: "grow (Core Image), zero or clamp")
    public static let fields: [FilterField<GaussianBlur>] = [.number(radius, \.radius), .choice(edges, \.edges)]
    public static let descriptor = FilterDescriptor(
        displayName: "Gaussian Blur", coreImageName: "CIGaussianBlur", shortName: "gaussian-blur", category: .blur,
        summary: "blur with a Gaussian (sigma = radius)", parameters: fields.map(\.spec),
        shortNameDefaults: [edges.key: .text(EdgeMode.clamp.rawValue)])

    /// Every parameter at its default.
    public init() { self.init(radius: 10, edges: .grow) }

    public var radius: Double
    public var edges: EdgeMode

    public init(radius: Double = 10, edges: EdgeMode = .grow) {
        self.radius = radius
        self.edges = edges
    }

    public var preservesOpacity: Bool { edges == .clamp || radius < 0.16 }

    public func apply(to image: Image) -> Image {
        guard let sigma = _gaussianSigma(radius) else { return image }
        return _withEdges(image, edges) { $0.applying(_GaussianKernel(sigma: sigma)) }
    }
}

/// The sigma a Gaussian filter computes with: nil (no blur) below 0.16 and for NaN, at most the
/// declared 500 (a value set through the Swift API skips the declared range).
func _gaussianSigma(_ radius: Double) -> Double? {
    guard radius >= 0.16 else { return nil }
    return min(radius, GaussianBlur.radius.maximum ?? 500)
}

/// Applies `body` under an edge rule: as is (grow), cropped (zero), or clamp-and-crop.
func _withEdges(_ image: Image, _ mode: EdgeMode, _ body: (Image) -> Image) -> Image {
    switch mode {
    case .grow: body(image)
    case .zero: body(image).cropped(to: image.extent)
    case .clamp: image.extent.isInfinite ? body(image) : body(image.clampedToExtent()).cropped(to: image.extent)
    }
}
