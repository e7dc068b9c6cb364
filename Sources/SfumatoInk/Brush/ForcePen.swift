import SfumatoFilters

/// ForceSketch's pen: width = pressure x 20 document pixels, colour = hue(pressure) at full
/// saturation and brightness (the lightest touch red, a third green, two thirds blue, full red
/// again); without pressure hardware, width 10 and grey.
public struct ForcePen: Brush {
    public static let descriptor = BrushDescriptor(
        name: "force-pen", summary: "ForceSketch: width and hue from pressure",
        parameters: [.number("maxWidth", default: 20, range: 20...20, unit: .pixels, help: "width at full pressure")])
    public init() {}
    public var blend: BrushBlend { .over }

    public func ink(for s: PenSample, pressure p: Double, hasPressure: Bool) -> InkPoint {
        if !hasPressure { return InkPoint(x: s.x, y: s.y, radius: 5, opacity: 1, color: SIMD3(0.5, 0.5, 0.5)) }
        return InkPoint(x: s.x, y: s.y, radius: p * 20 / 2, opacity: 1, color: hsbColor(hue: p))
    }
}

/// A plain ink pen: width from `minWidth` to `maxWidth` by pressure, solid colour.
public struct InkPen: Brush {
    public static let descriptor = BrushDescriptor(
        name: "pen", summary: "pressure-sensitive ink pen",
        parameters: [.vector("width", default: [1, 8], count: 2, range: 0.1...200, help: "width at no and at full pressure, px")])
    public let color: SIMD3<Float>
    public let minWidth: Double
    public let maxWidth: Double
    public init(color: SIMD3<Float>, minWidth: Double = 1, maxWidth: Double = 8) {
        self.color = color
        self.minWidth = minWidth
        self.maxWidth = maxWidth
    }
    public var blend: BrushBlend { .over }
    public func ink(for s: PenSample, pressure p: Double, hasPressure: Bool) -> InkPoint {
        let w = hasPressure ? minWidth + (maxWidth - minWidth) * p : (minWidth + maxWidth) / 2
        return InkPoint(x: s.x, y: s.y, radius: w / 2, opacity: 1, color: color)
    }
}

/// Removes ink along its path; width grows with pressure up to `maxWidth`.
public struct Eraser: Brush {
    public static let descriptor = BrushDescriptor(
        name: "eraser", summary: "removes ink (also the pen's eraser end)",
        parameters: [.number("maxWidth", default: 40, range: 1...400, unit: .pixels, help: "width at full pressure")])
    public let maxWidth: Double
    public init(maxWidth: Double = 40) { self.maxWidth = maxWidth }
    public var blend: BrushBlend { .erase }
    public func ink(for s: PenSample, pressure p: Double, hasPressure: Bool) -> InkPoint {
        let w = hasPressure ? max(2, maxWidth * p) : maxWidth / 2
        return InkPoint(x: s.x, y: s.y, radius: w / 2, opacity: 1, color: SIMD3(0, 0, 0))
    }
}
