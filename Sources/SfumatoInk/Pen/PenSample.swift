import Foundation

/// What kind of pointer produced a sample (W3C `pointerType`).
public enum PointerKind: String, Sendable, Codable, Equatable {
    case pen, touch, mouse
}

/// One pen sample: where the pen was, how hard it pressed and how it was held.
///
/// Positions are in document pixels (fractional). Angles are radians: `altitude` 0 (flat) ...
/// π/2 (upright), `azimuth` 0 ... 2π (0 = +x, clockwise because y points down). A mouse, or a pen
/// without pressure hardware, reports pressure 0.5 while pressed (docs/spec/INPUT.md).
///
/// ```swift
/// let s = PenSample(x: 10.5, y: 20, pressure: 0.4, altitude: 1.1, azimuth: 0.3)
/// ```
public struct PenSample: Sendable, Equatable {
    /// Position in document pixels.
    public var x: Double
    public var y: Double
    /// Normalised force 0...1.
    public var pressure: Double
    /// Angle to the surface, 0...π/2 (π/2 when not reported).
    public var altitude: Double
    /// Direction the pen points to in the view, 0...2π (0 when not reported).
    public var azimuth: Double
    /// Barrel rotation, 0...359 degrees.
    public var twist: Double
    /// Barrel-wheel pressure, -1...1.
    public var tangentialPressure: Double
    /// Pen, touch or mouse.
    public var pointerKind: PointerKind
    /// W3C buttons bitmask: 1 tip, 2 barrel, 32 eraser end.
    public var buttons: Int
    /// Event time in milliseconds.
    public var timestamp: Double
    /// Whether this sample came from `getCoalescedEvents()` (a high-rate sample between frames).
    public var coalesced: Bool
    /// Whether this is a predicted sample (drawn provisionally, never stored).
    public var predicted: Bool

    public init(
        x: Double, y: Double, pressure: Double = 0.5, altitude: Double = .pi / 2, azimuth: Double = 0,
        twist: Double = 0, tangentialPressure: Double = 0, pointerKind: PointerKind = .pen, buttons: Int = 1,
        timestamp: Double = 0, coalesced: Bool = false, predicted: Bool = false
    ) {
        self.x = x
        self.y = y
        self.pressure = pressure
        self.altitude = altitude
        self.azimuth = azimuth
        self.twist = twist
        self.tangentialPressure = tangentialPressure
        self.pointerKind = pointerKind
        self.buttons = buttons
        self.timestamp = timestamp
        self.coalesced = coalesced
        self.predicted = predicted
    }

    /// `tilt = (π/2 - altitude) / (π/2)`: 0 upright, 1 flat (docs/spec/SEEDS.md).
    public var tilt: Double { (Double.pi / 2 - altitude) / (Double.pi / 2) }

    /// The azimuth as a unit vector (dx, dy).
    public var azimuthVector: (dx: Double, dy: Double) { (cos(azimuth), sin(azimuth)) }

    /// Whether the eraser end touches (buttons bit 32).
    public var isEraser: Bool { buttons & 32 != 0 }

    /// The farthest a sanitized position lies from the origin, in document pixels (far beyond any
    /// document: pixel arithmetic on it never overflows).
    public static let coordinateLimit = 16_777_216.0

    /// The sample with every number finite and in range (NaN and infinities from a bad client
    /// become defaults, positions are kept within ``coordinateLimit``), so nothing downstream has to check.
    public var sanitized: PenSample {
        func f(_ v: Double, _ d: Double) -> Double { v.isFinite ? v : d }
        var s = self
        s.x = min(max(f(x, 0), -Self.coordinateLimit), Self.coordinateLimit)
        s.y = min(max(f(y, 0), -Self.coordinateLimit), Self.coordinateLimit)
        s.pressure = min(max(f(pressure, 0.5), 0), 1)
        s.altitude = min(max(f(altitude, .pi / 2), 0), .pi / 2)
        var az = f(azimuth, 0).truncatingRemainder(dividingBy: 2 * .pi)
        if az < 0 { az += 2 * .pi }
        s.azimuth = az
        s.twist = min(max(f(twist, 0), 0), 359)
        s.tangentialPressure = min(max(f(tangentialPressure, 0), -1), 1)
        s.timestamp = f(timestamp, 0)
        return s
    }
}
