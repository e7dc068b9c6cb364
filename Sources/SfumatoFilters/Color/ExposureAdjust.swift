import Foundation
import SfumatoCore

/// CIExposureAdjust: multiplies colour by 2^EV, like changing the exposure by EV stops.
///
/// ```swift
/// ExposureAdjust(ev: 0.5).apply(to: photo)   // ×1.414
/// ```
public struct ExposureAdjust: DeclaredFilter, Equatable {
    /// Stops, -10...10.
    public static let ev = ParameterSpec.number(
        "inputEV", default: 0, range: -10...10, slider: -3...3, unit: .stops,
        help: "exposure change in stops: colour x 2^EV")
    public static let fields: [FilterField<ExposureAdjust>] = [.number(ev, \.ev)]
    public static let descriptor = FilterDescriptor(
        displayName: "Exposure Adjust", coreImageName: "CIExposureAdjust", shortName: "exposure-adjust", category: .color,
        summary: "brighten or darken by camera stops", parameters: fields.map(\.spec))

    /// Every parameter at its default.
    public init() { self.init(ev: 0) }

    public var ev: Double

    public init(ev: Double = 0) { self.ev = ev }

    public var matrix: Matrix4 {
        let k = pow(2, ev)
        return Matrix4(rows: [[k, 0, 0, 0], [0, k, 0, 0], [0, 0, k, 0], [0, 0, 0, 1]])
    }

    public func apply(to image: Image) -> Image {
        image.applying([.linear(matrix)], name: Self.descriptor.name)
    }
}
