import SfumatoCore

/// Erosion with a probe (MPS): out = min over taps of (pixel + probe[tap]), edges clamped.
public struct Erode: ProbeFilter, Equatable {
    public static let probeValues = _Probe.probe("width x height values added before the min, row-major")
    public static let descriptor = FilterDescriptor(
        displayName: "Erode", coreImageName: nil, shortName: "erode", category: .morphology,
        summary: "minimum of pixel plus probe over the probe's taps", parameters: fields.map(\.spec))

    public var width = 3
    public var height = 3
    public var probe = [Double](repeating: 0, count: 9)

    /// A flat 3x3 probe.
    public init() {}

    public init(width: Int, height: Int, probe: [Double]) throws {
        try _Probe.check(width, height, probe, "erode")
        self.width = width
        self.height = height
        self.probe = probe
    }

    public func apply(to image: Image) -> Image {
        // Sizes and taps that do not validate (the Swift API's) leave the image as it is.
        guard (try? validate()) != nil else { return image }
        return _withEdges(image, .clamp) { $0.applying(_ProbeKernel(width: width, height: height, probe: probe.map(Float.init), extreme: .min)) }
    }
}
