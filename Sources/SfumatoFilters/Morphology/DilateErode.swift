import Foundation
import SfumatoCore

/// Dilation and erosion share their probe parameters and table form.
public protocol ProbeFilter: Filter {
    var width: Int { get }
    var height: Int { get }
    var probe: [Double] { get }
    init(width: Int, height: Int, probe: [Double]) throws
}

enum _Probe {
    static let width = ParameterSpec.integer("width", default: 3, range: 1...63, unit: .pixels, help: "probe width, odd")
    static let height = ParameterSpec.integer("height", default: 3, range: 1...63, unit: .pixels, help: "probe height, odd")
    static func probe(_ help: String) -> ParameterSpec {
        .vector("probe", default: Array(repeating: 0, count: 9), count: nil, help: help)
    }

    static func check(_ w: Int, _ h: Int, _ probe: [Double], _ name: String) throws {
        guard w % 2 == 1, h % 2 == 1 else { throw SfumatoError.invalidArgument("\(name): probe size must be odd, not \(w)x\(h)") }
        guard probe.count == w * h else {
            throw SfumatoError.invalidArgument("\(name): a \(w)x\(h) probe needs \(w * h) values, not \(probe.count)")
        }
        guard probe.allSatisfy(\.isFinite) else { throw SfumatoError.invalidArgument("\(name): probe values must be finite") }
    }
}

extension ProbeFilter {
    public init(arguments a: FilterArguments) throws {
        let spec = Self.descriptor.parameters[2]
        try self.init(width: Int(a.number(_Probe.width)), height: Int(a.number(_Probe.height)), probe: a.vector(spec))
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(_Probe.width, .number(Double(width)))
        a.set(_Probe.height, .number(Double(height)))
        a.set(Self.descriptor.parameters[2], .vector(probe))
        return a
    }
}

/// Dilation with a probe (MPS): out = max over taps of (pixel - probe[tap]), edges clamped.
/// The probe is `width` x `height` values, row-major, the centre tap usually 0; a flat probe
/// of 0s and 1s acts as a shape (1 = not part of it).
///
/// ```swift
/// Dilate.disc(diameter: 15).apply(to: photo)   // the gallery's "bokeh"
/// ```
public struct Dilate: ProbeFilter, Equatable {
    public static let descriptor = FilterDescriptor(
        displayName: "Dilate", coreImageName: nil, shortName: "dilate", category: "Morphology",
        summary: "maximum of pixel minus probe over the probe's taps",
        parameters: [_Probe.width, _Probe.height, _Probe.probe("width x height values subtracted before the max, row-major")])

    public let width: Int
    public let height: Int
    public let probe: [Double]

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
        _withEdges(image, .clamp) { $0.applying(_ProbeKernel(width: width, height: height, probe: probe.map(Float.init), extreme: .max)) }
    }
}

/// Erosion with a probe (MPS): out = min over taps of (pixel + probe[tap]), edges clamped.
public struct Erode: ProbeFilter, Equatable {
    public static let descriptor = FilterDescriptor(
        displayName: "Erode", coreImageName: nil, shortName: "erode", category: "Morphology",
        summary: "minimum of pixel plus probe over the probe's taps",
        parameters: [_Probe.width, _Probe.height, _Probe.probe("width x height values added before the min, row-major")])

    public let width: Int
    public let height: Int
    public let probe: [Double]

    public init(width: Int, height: Int, probe: [Double]) throws {
        try _Probe.check(width, height, probe, "erode")
        self.width = width
        self.height = height
        self.probe = probe
    }

    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_ProbeKernel(width: width, height: height, probe: probe.map(Float.init), extreme: .min)) }
    }
}
