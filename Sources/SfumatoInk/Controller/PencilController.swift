import Foundation
import SfumatoCore
import SfumatoFilters

/// The PencilController's spring-loaded modes.
public enum AdjustMode: String, Sendable, Codable, CaseIterable {
    case off
    case hueSaturation = "hue-saturation"
    case brightnessContrast = "brightness-contrast"
    case gammaExposure = "gamma-exposure"
}

/// The six parameters of the PencilController chain: hue adjust -> colour controls -> exposure
/// -> gamma, on sRGB-encoded values (the app ran with colour management off). Neutral values are
/// the defaults.
public struct PencilControllerParameters: Sendable, Codable, Equatable {
    public var hue: Double = 0
    public var saturation: Double = 1
    public var brightness: Double = 0
    public var contrast: Double = 1
    public var exposure: Double = 0
    public var gamma: Double = 1

    public init(
        hue: Double = 0, saturation: Double = 1, brightness: Double = 0, contrast: Double = 1,
        exposure: Double = 0, gamma: Double = 1
    ) {
        self.hue = hue
        self.saturation = saturation
        self.brightness = brightness
        self.contrast = contrast
        self.exposure = exposure
        self.gamma = gamma
    }

    /// Whether every parameter is at its neutral value.
    public var isNeutral: Bool { self == PencilControllerParameters() }

    /// The chain's filters, in the app's order.
    public var filters: [any Filter] {
        [
            HueAdjust(angle: hue), ColorControls(saturation: saturation, brightness: brightness, contrast: contrast),
            ExposureAdjust(ev: exposure), GammaAdjust(power: gamma)
        ]
    }

    /// The chain applied to an image (to be rendered in the `.none` working space).
    public func apply(to image: Image) -> Image {
        isNeutral ? image : filters.reduce(image) { $1.apply(to: $0) }
    }
}

/// The PencilController's mapping from pen pose to parameters (docs/spec/SEEDS.md section 1), as plain
/// functions.
///
/// ```swift
/// var p = PencilControllerParameters()
/// PencilController.update(&p, mode: .hueSaturation, sample: s)   // hue = π + azimuth, saturation = 8 tilt
/// PencilController.label(p, mode: .hueSaturation)                // "↻Hue: 183.40°  ∢Saturation: 2.75"
/// ```
public enum PencilController {
    /// Sets the active pair from the pen's pose; the other pairs keep their values.
    public static func update(_ p: inout PencilControllerParameters, mode: AdjustMode, sample: PenSample) {
        let s = sample.sanitized
        let tilt = s.tilt
        let (dx, dy) = s.azimuthVector
        switch mode {
        case .off:
            break
        case .hueSaturation:
            p.hue = .pi + s.azimuth
            p.saturation = 8 * tilt
        case .brightnessContrast:
            p.brightness = dx * tilt
            p.contrast = 1 - dy * tilt
        case .gammaExposure:
            p.gamma = 1 + dx * tilt
            p.exposure = -dy * tilt
        }
    }

    /// The label for the active pair, two decimals, hue in degrees; nil when no mode is active.
    public static func label(_ p: PencilControllerParameters, mode: AdjustMode) -> String? {
        // Round first so a value like -0.000001 reads 0.00, not -0.00.
        func f(_ v: Double) -> String {
            let r = (v * 100).rounded() / 100
            return String(format: "%.2f", r == 0 ? 0 : r)
        }
        switch mode {
        case .off: return nil
        case .hueSaturation: return "↻Hue: \(f(p.hue * 180 / .pi))°  ∢Saturation: \(f(p.saturation))"
        case .brightnessContrast: return "⇔Brightness: \(f(p.brightness))  ⇕Contrast: \(f(p.contrast))"
        case .gammaExposure: return "⇔Gamma: \(f(p.gamma))  ⇕Exposure: \(f(p.exposure))"
        }
    }

    /// The virtual pencil's pose: a capsule (cap radius 0.05, height 1, pivot at its tip) placed
    /// under the touch and rotated by (x: altitude, y: 0, z: -azimuth - π/2).
    public struct Pose: Sendable, Equatable, Codable {
        public var x: Double
        public var y: Double
        public var rotationX: Double
        public var rotationY: Double
        public var rotationZ: Double
        public static let capRadius = 0.05
        public static let height = 1.0
        /// Seconds the pencil takes to fade in or out.
        public static let fadeDuration = 0.25
    }

    /// The pose for a sample.
    public static func pose(_ sample: PenSample) -> Pose {
        let s = sample.sanitized
        return Pose(x: s.x, y: s.y, rotationX: s.altitude, rotationY: 0, rotationZ: -s.azimuth - .pi / 2)
    }
}
