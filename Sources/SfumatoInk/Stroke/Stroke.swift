import Foundation

/// A stroke: the brush settings and every sample it was drawn with (coalesced samples included,
/// predicted samples never), so it replays exactly.
public struct Stroke: Sendable, Codable, Equatable {
    public var brush: BrushSettings
    public var samples: [PenSample]
    /// ForceSketch's fade-out: the stroke fades away after it ends and is not part of the final image.
    public var fades: Bool

    public init(brush: BrushSettings, samples: [PenSample] = [], fades: Bool = false) {
        self.brush = brush
        self.samples = samples.filter { !$0.predicted }
        self.fades = fades
    }

    /// Whether the device reported no pressure for this stroke (every sample from a mouse, or the flag).
    public var hasPressure: Bool {
        if brush.noPressure == true { return false }
        return !(samples.allSatisfy { $0.pointerKind == .mouse } && !samples.isEmpty)
    }
}
