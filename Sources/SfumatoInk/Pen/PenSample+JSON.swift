import Foundation

/// JSON form of a pen sample, as scene files and the studio write it:
/// `{"x": 10.5, "y": 20, "pressure": 0.4, "altitude": 1.1, "azimuth": 0.3, "t": 0}`; `tiltX` and
/// `tiltY` (degrees) may replace the angles; missing fields take their defaults.
extension PenSample: Codable {
    enum CodingKeys: String, CodingKey {
        case x, y, pressure, altitude, azimuth, tiltX, tiltY, twist, tangentialPressure, pointerType, buttons, t, coalesced, predicted
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let x = try c.decode(Double.self, forKey: .x)
        let y = try c.decode(Double.self, forKey: .y)
        var altitude = try c.decodeIfPresent(Double.self, forKey: .altitude)
        var azimuth = try c.decodeIfPresent(Double.self, forKey: .azimuth)
        if altitude == nil && azimuth == nil,
            let tx = try c.decodeIfPresent(Double.self, forKey: .tiltX), let ty = try c.decodeIfPresent(Double.self, forKey: .tiltY)
        {
            (altitude, azimuth) = PenSample.angles(tiltX: tx, tiltY: ty)
        }
        self.init(
            x: x, y: y,
            pressure: try c.decodeIfPresent(Double.self, forKey: .pressure) ?? 0.5,
            altitude: altitude ?? .pi / 2, azimuth: azimuth ?? 0,
            twist: try c.decodeIfPresent(Double.self, forKey: .twist) ?? 0,
            tangentialPressure: try c.decodeIfPresent(Double.self, forKey: .tangentialPressure) ?? 0,
            pointerKind: try c.decodeIfPresent(PointerKind.self, forKey: .pointerType) ?? .pen,
            buttons: try c.decodeIfPresent(Int.self, forKey: .buttons) ?? 1,
            timestamp: try c.decodeIfPresent(Double.self, forKey: .t) ?? 0,
            coalesced: try c.decodeIfPresent(Bool.self, forKey: .coalesced) ?? false,
            predicted: try c.decodeIfPresent(Bool.self, forKey: .predicted) ?? false)
        guard x.isFinite, y.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .x, in: c, debugDescription: "pen sample position must be finite")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(x, forKey: .x)
        try c.encode(y, forKey: .y)
        try c.encode(pressure, forKey: .pressure)
        try c.encode(altitude, forKey: .altitude)
        try c.encode(azimuth, forKey: .azimuth)
        if twist != 0 { try c.encode(twist, forKey: .twist) }
        if tangentialPressure != 0 { try c.encode(tangentialPressure, forKey: .tangentialPressure) }
        if pointerKind != .pen { try c.encode(pointerKind, forKey: .pointerType) }
        if buttons != 1 { try c.encode(buttons, forKey: .buttons) }
        try c.encode(timestamp, forKey: .t)
        if coalesced { try c.encode(true, forKey: .coalesced) }
        if predicted { try c.encode(true, forKey: .predicted) }
    }
}
