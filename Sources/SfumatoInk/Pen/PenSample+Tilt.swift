import Foundation

extension PenSample {
    /// Altitude and azimuth from W3C tiltX / tiltY (degrees, -90...90), by the Pointer Events
    /// Level 3 conversion (docs/spec/INPUT.md).
    ///
    /// ```swift
    /// PenSample.angles(tiltX: 40, tiltY: 0)   // (altitude: 50° in radians, azimuth: 0)
    /// ```
    public static func angles(tiltX: Double, tiltY: Double) -> (altitude: Double, azimuth: Double) {
        let rad = Double.pi / 180
        var azimuth = 0.0
        if tiltX == 0 {
            if tiltY > 0 { azimuth = .pi / 2 } else if tiltY < 0 { azimuth = 3 * .pi / 2 }
        } else if tiltY == 0 {
            if tiltX < 0 { azimuth = .pi }
        } else if abs(tiltX) == 90 || abs(tiltY) == 90 {
            azimuth = 0
        } else {
            azimuth = atan2(tan(tiltY * rad), tan(tiltX * rad))
            if azimuth < 0 { azimuth += 2 * .pi }
        }
        var altitude: Double
        if abs(tiltX) == 90 || abs(tiltY) == 90 {
            altitude = 0
        } else if tiltX == 0 {
            altitude = .pi / 2 - abs(tiltY) * rad
        } else if tiltY == 0 {
            altitude = .pi / 2 - abs(tiltX) * rad
        } else {
            altitude = atan(1 / (tan(tiltX * rad) * tan(tiltX * rad) + tan(tiltY * rad) * tan(tiltY * rad)).squareRoot())
        }
        return (altitude, azimuth)
    }

    /// tiltX / tiltY in degrees from altitude and azimuth (the reverse conversion).
    public static func tilt(altitude: Double, azimuth: Double) -> (tiltX: Double, tiltY: Double) {
        let deg = 180 / Double.pi
        if altitude == 0 {
            // Flat: ±90 toward the azimuth's dominant axis.
            let dx = cos(azimuth), dy = sin(azimuth)
            if abs(dx) >= abs(dy) { return (dx >= 0 ? 90 : -90, 0) }
            return (0, dy >= 0 ? 90 : -90)
        }
        let t = tan(altitude)
        return (atan(cos(azimuth) / t) * deg, atan(sin(azimuth) / t) * deg)
    }
}
