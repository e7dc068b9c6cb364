import Foundation
import SfumatoCore

/// Dilation with a probe (MPS): out = max over taps of (pixel - probe[tap]), edges clamped.
/// The probe is `width` x `height` values, row-major, the centre tap usually 0; a flat probe
/// of 0s and 1s acts as a shape (1 = not part of it).
///
/// ```swift
/// Dilate.disc(diameter: 15).apply(to: photo)   // the gallery's "bokeh"
/// ```
public struct Dilate: ProbeFilter, Equatable {
    public static let probeValues = _Probe.probe("width x height values subtracted before the max, row-major")
    public static let descriptor = FilterDescriptor(
        displayName: "Dilate", coreImageName: nil, shortName: "dilate", category: .morphology,
        summary: "maximum of pixel minus probe over the probe's taps", parameters: fields.map(\.spec))

    public var width = 3
    public var height = 3
    public var probe = [Double](repeating: 0, count: 9)

    /// A flat 3x3 probe.
    public init() {}

    public init(width: Int, height: Int, probe: [Double]) throws {
        try _Probe.check(width, height, probe, "dilate")
        self.width = width
        self.height = height
        self.probe = probe
    }

    /// The MetalImageFilters "bokeh" disc: tap (row i, column j) of a `diameter` x `diameter`
    /// probe is 0 when hypot(i - d/2, j - d/2) < `radius` (d/2 = 7.5 for 15), else 1.
    public static func disc(diameter: Int = 15, radius: Double = 7) -> Dilate {
        let c = Double(diameter) / 2
        let p = (0..<(diameter * diameter)).map { k -> Double in
            hypot(Double(k / diameter) - c, Double(k % diameter) - c) < radius ? 0 : 1
        }
        return try! Dilate(width: diameter, height: diameter, probe: p)
    }

    public func apply(to image: Image) -> Image {
        // Sizes and taps that do not validate (the Swift API's) leave the image as it is.
        guard (try? validate()) != nil else { return image }
        return _withEdges(image, .clamp) { $0.applying(_ProbeKernel(width: width, height: height, probe: probe.map(Float.init), extreme: .max)) }
    }
}
