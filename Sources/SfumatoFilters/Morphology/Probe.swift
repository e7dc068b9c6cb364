import SfumatoCore

/// Dilation and erosion share their probe parameters, so their fields come from here.
public protocol ProbeFilter: DeclaredFilter {
    var width: Int { get set }
    var height: Int { get set }
    var probe: [Double] { get set }
    /// The probe values' declaration (its help differs between the two).
    static var probeValues: ParameterSpec { get }
}

enum _Probe {
    static let width = ParameterSpec.integer("width", default: 3, range: 1...63, unit: .taps, odd: true, help: "probe width, odd")
    static let height = ParameterSpec.integer("height", default: 3, range: 1...63, unit: .taps, odd: true, help: "probe height, odd")
    static func probe(_ help: String) -> ParameterSpec {
        .vector("probe", default: Array(repeating: 0, count: 9), count: nil, help: help)
    }

    static func check(_ w: Int, _ h: Int, _ probe: [Double], _ name: String) throws {
        guard w % 2 == 1, h % 2 == 1, w >= 1, h >= 1 else {
            throw SfumatoError.invalidArgument("\(name): probe size must be odd, not \(w)x\(h)")
        }
        guard probe.count == w * h else {
            throw SfumatoError.invalidArgument("\(name): a \(w)x\(h) probe needs \(w * h) values, not \(probe.count)")
        }
        guard probe.allSatisfy(\.isFinite) else { throw SfumatoError.invalidArgument("\(name): probe values must be finite") }
    }
}

extension ProbeFilter {
    public static var fields: [FilterField<Self>] {
        [.integer(_Probe.width, \.width), .integer(_Probe.height, \.height), .vector(probeValues, \.probe)]
    }

    public func validate() throws { try _Probe.check(width, height, probe, Self.descriptor.shortName) }
}
