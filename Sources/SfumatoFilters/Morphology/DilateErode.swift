import Foundation
import SfumatoCore

/// Dilation with a probe (MPS): out = max over taps of (pixel - probe[tap]), edges clamped.
/// The probe is `width` x `height` values, row-major, the centre tap usually 0; a flat probe
/// of 0s and 1s acts as a shape (1 = not part of it).
///
/// ```swift
/// Dilate.disc(diameter: 15).apply(to: photo)   // the gallery's "bokeh"
/// ```
public struct Dilate: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...63, unit: .pixels, help: "probe width, odd")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...63, unit: .pixels, help: "probe height, odd")
    public static let probe = ParameterSpec.vector("probe", default: Array(repeating: 0, count: 9), count: nil,
                                                   help: "width x height values subtracted before the max, row-major")
    public static let descriptor = FilterDescriptor(
        displayName: "Dilate", coreImageName: nil, shortName: "dilate", category: "Morphology",
        summary: "maximum of pixel minus probe over the probe's taps", parameters: [width, height, probe])

    public var width: Int
    public var height: Int
    public var probe: [Double]

    public init(width: Int, height: Int, probe: [Double]) throws {
        try _checkProbe(width, height, probe, "dilate")
        self.width = width
        self.height = height
        self.probe = probe
    }

    public init(arguments a: FilterArguments) throws {
        try self.init(width: Int(a.number(Self.width)), height: Int(a.number(Self.height)), probe: a.vector(Self.probe))
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        a.set(Self.probe, .vector(probe))
        return a
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
public struct Erode: Filter, Equatable {
    public static let width = ParameterSpec.integer("width", default: 3, range: 1...63, unit: .pixels, help: "probe width, odd")
    public static let height = ParameterSpec.integer("height", default: 3, range: 1...63, unit: .pixels, help: "probe height, odd")
    public static let probe = ParameterSpec.vector("probe", default: Array(repeating: 0, count: 9), count: nil,
                                                   help: "width x height values added before the min, row-major")
    public static let descriptor = FilterDescriptor(
        displayName: "Erode", coreImageName: nil, shortName: "erode", category: "Morphology",
        summary: "minimum of pixel plus probe over the probe's taps", parameters: [width, height, probe])

    public var width: Int
    public var height: Int
    public var probe: [Double]

    public init(width: Int, height: Int, probe: [Double]) throws {
        try _checkProbe(width, height, probe, "erode")
        self.width = width
        self.height = height
        self.probe = probe
    }

    public init(arguments a: FilterArguments) throws {
        try self.init(width: Int(a.number(Self.width)), height: Int(a.number(Self.height)), probe: a.vector(Self.probe))
    }

    public var arguments: FilterArguments {
        var a = FilterArguments()
        a.set(Self.width, .number(Double(width)))
        a.set(Self.height, .number(Double(height)))
        a.set(Self.probe, .vector(probe))
        return a
    }

    public func apply(to image: Image) -> Image {
        _withEdges(image, .clamp) { $0.applying(_ProbeKernel(width: width, height: height, probe: probe.map(Float.init), extreme: .min)) }
    }
}

func _checkProbe(_ w: Int, _ h: Int, _ probe: [Double], _ name: String) throws {
    guard w % 2 == 1, h % 2 == 1 else { throw SfumatoError.invalidArgument("\(name): probe size must be odd, not \(w)x\(h)") }
    guard probe.count == w * h else {
        throw SfumatoError.invalidArgument("\(name): a \(w)x\(h) probe needs \(w * h) values, not \(probe.count)")
    }
    guard probe.allSatisfy(\.isFinite) else { throw SfumatoError.invalidArgument("\(name): probe values must be finite") }
}
