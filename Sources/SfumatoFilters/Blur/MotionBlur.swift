import SfumatoCore

/// CIMotionBlur: the mean of 2n + 1 bilinear samples along a segment through each pixel centre p,
/// p + (k radius / n)(cos angle, sin angle) for k = -n...n, n = max(1, ceil(radius)); angle 0 is
/// across, positive turns clockwise as seen (y down); edges clamped (**choice**: Apple gives no
/// formula).
public struct MotionBlur: DeclaredFilter, Equatable {
    public static let radius = ParameterSpec.number(
        "inputRadius", default: 20, range: 0...250, slider: 0...100, unit: .pixels, help: "half the streak's length, in pixels")
    public static let angle = ParameterSpec.number(
        "inputAngle", default: 0, range: -Double.pi...Double.pi, unit: .radians, help: "the streak's direction (0 across)")
    public static let fields: [FilterField<MotionBlur>] = [.number(radius, \.radius), .number(angle, \.angle)]
    public static let descriptor = FilterDescriptor(
        displayName: "Motion Blur", coreImageName: "CIMotionBlur", shortName: "motion-blur", category: .blur,
        summary: "a streak, as a camera moved during the exposure", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(radius: 20, angle: 0) }

    public var radius: Double, angle: Double

    public init(radius: Double = 20, angle: Double = 0) {
        self.radius = radius
        self.angle = angle
    }

    public func apply(to image: Image) -> Image {
        // Within the declared ranges (NaN as none): the Swift API passes any number.
        let radius = Self.radius.clamped(radius), angle = angle.isFinite ? angle : 0
        if radius < 0.5 { return image }
        return _withEdges(image, .clamp) { $0.applying(_MotionKernel(radius: radius, angle: angle)) }
    }
}
