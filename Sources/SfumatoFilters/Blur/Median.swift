import SfumatoCore

/// The gallery's median: per-channel median over a `diameter` x `diameter` window (odd, 3...63),
/// edges clamped. 8-bit data uses sorted columns for 3x3, generated merge networks for 5x5 and 7x7
/// (four outputs at a time, `scripts/median-networks.py`) and sliding histograms above.
///
/// ```swift
/// Median(diameter: 5).apply(to: photo)
/// ```
public struct Median: DeclaredFilter, Equatable {
    public static let diameter = ParameterSpec.integer(
        "diameter", default: 3, range: 3...63, unit: .pixels, odd: true,
        help: "window side, odd")
    public static let fields: [FilterField<Median>] = [.integer(diameter, \.diameter)]
    public static let descriptor = FilterDescriptor(
        displayName: "Median", coreImageName: nil, shortName: "median", category: .blur,
        summary: "per-channel median over a square window (odd diameter), edges clamped", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(diameter: 3) }

    public var diameter: Int

    /// A median over a `diameter` x `diameter` window: odd, 3...63. Another value is kept as
    /// given (``validate()`` reports it) and renders as the nearest odd diameter within 3...63.
    public init(diameter: Int = 3) {
        self.diameter = diameter
    }

    /// An odd window of at least 3 (arguments set by hand skip the declaration's checks).
    public func validate() throws {
        guard diameter % 2 == 1, diameter >= 3, diameter <= 63 else {
            throw SfumatoError.invalidArgument("median: diameter must be odd, 3...63, not \(diameter)")
        }
    }

    public func apply(to image: Image) -> Image {
        // Within the declared 3...63, odd (the Swift API's memberwise form is unchecked).
        let d = Self.diameter.scaledInteger(diameter, by: 1)
        return _withEdges(image, .clamp) { $0.applying(_MedianKernel(diameter: d)) }
    }
}
