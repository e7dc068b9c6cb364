import Foundation
import SfumatoCore

/// CIExposureAdjust: multiplies colour by 2^EV, like changing the exposure by EV stops.
///
/// ```swift
/// ExposureAdjust(ev: 0.5).apply(to: photo)   // ×1.414
/// ```
public struct ExposureAdjust: Filter, Equatable {
    /// Stops, -10...10.
    public static let ev = ParameterSpec.number(
        "inputEV", default: 0, range: -10...10, slider: -3...3, unit: .stops,
        help: "exposure change in stops: colour x 2^EV")
    public static let descriptor = FilterDescriptor(
        displayName: "Exposure Adjust", coreImageName: "CIExposureAdjust", shortName: "exposure-adjust", category: "Color",
        summary: "brighten or darken by camera stops", parameters: [ev])

    public var ev: Double

    public init(ev: Double = 0) { self.ev = ev }

    public init(arguments a: FilterArguments) throws { ev = a.number(Self.ev) }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.ev, .number(ev))
        return a
    }

    public var matrix: Matrix4 {
        let k = pow(2, ev)
        return Matrix4(rows: [[k, 0, 0, 0], [0, k, 0, 0], [0, 0, k, 0], [0, 0, 0, 1]])
    }

    public func apply(to image: Image) -> Image {
        image.applying([.linear(matrix)], name: Self.descriptor.name)
    }
}
