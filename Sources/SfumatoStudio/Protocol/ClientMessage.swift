import SfumatoFilters
import SfumatoInk

/// The studio's modes (the page's mode bar).
public enum StudioMode: String, Sendable, CaseIterable, Codable {
    /// PencilController: the pen's tilt and direction steer colour filters.
    case adjust
    /// ForceSketch: pressure-coloured strokes that fade.
    case sketch
    /// Shading with Pencil: tilt to shade.
    case shade
    /// Tone Curve: five sliders.
    case curve
    /// MetalImageFilters: a gallery of presets over the photo or the camera.
    case gallery

    /// Whether the pen draws strokes in this mode.
    public var draws: Bool { self == .sketch || self == .shade }
}

/// A pen message's place in its stroke.
public enum PenPhase: String, Sendable, CaseIterable {
    case down, move, up, cancel

    /// Whether the stroke ends with this message.
    public var ends: Bool { self == .up || self == .cancel }
}

/// What a page sends the studio over its WebSocket: each JSON text message decoded, checked
/// and range-limited by ``ClientMessage/decode(_:)`` before the studio acts on it.
/// docs/STUDIO-PROTOCOL.md gives the JSON forms.
public enum ClientMessage: Sendable, Equatable {
    /// The page's first message: its viewport, and what it can take.
    case hello(Hello)
    /// The page's viewport changed.
    case viewport(Viewport)
    case mode(StudioMode)
    /// Adjust's spring-loaded buttons: the pair while held, `.off` on release.
    case hold(AdjustMode)
    case pen(PenBatch)
    /// Tone-curve levels (five, 0...1); `final` on release (committed).
    case curve(levels: [Double], final: Bool)
    /// Gallery preset 0...11.
    case preset(Int)
    case brush(BrushChange)
    case undo
    case redo
    /// Show the unedited photo while on.
    case beforeAfter(Bool)
    case camera(on: Bool)
    /// The page drew (or skipped) a preview frame.
    case drawn(sequence: Int?)
    /// The page's latency figures, for the log.
    case stats(LatencyFigures)

    /// The message names, as the `type` field carries them.
    public enum Kind: String, Sendable, CaseIterable {
        case hello, viewport, mode, hold, pen, curve, preset, brush, undo, redo, beforeAfter, camera, drawn, stats
    }

    /// The page's drawing area.
    public struct Viewport: Sendable, Equatable {
        /// CSS pixels, 1...``Limits/viewportSide``.
        public var width: Int
        public var height: Int
        /// Device pixels per CSS pixel, ``Limits/devicePixelRatio``.
        public var dpr: Double

        public init(width: Int, height: Int, dpr: Double = 1) {
            self.width = width
            self.height = height
            self.dpr = dpr
        }
    }

    public struct Hello: Sendable, Equatable {
        public var viewport: Viewport
        /// The page acknowledges each preview frame (`drawn`), so the server never outruns it.
        public var acks: Bool
        /// The page takes small regions and drafts as raw RGBA (a page on this machine).
        public var rawRegions: Bool

        public init(viewport: Viewport, acks: Bool = false, rawRegions: Bool = false) {
            self.viewport = viewport
            self.acks = acks
            self.rawRegions = rawRegions
        }
    }

    /// One batch of pen samples.
    public struct PenBatch: Sendable, Equatable {
        public var phase: PenPhase
        /// The page's stroke number (per page, increasing), 0...``Limits/counter``.
        public var stroke: Int
        /// The page's batch number (page-wide, increasing), 0...``Limits/counter``.
        public var batch: Int
        /// Every sample since the last batch, in order (at most ``Limits/samplesPerBatch``).
        public var samples: [PenSample]
        /// Predicted samples (drawn provisionally, never stored).
        public var predicted: [PenSample]

        public init(phase: PenPhase, stroke: Int, batch: Int, samples: [PenSample], predicted: [PenSample] = []) {
            self.phase = phase
            self.stroke = stroke
            self.batch = batch
            self.samples = samples
            self.predicted = predicted
        }
    }

    /// Brush settings to change (nil: keep).
    public struct BrushChange: Sendable, Equatable {
        public var kind: BrushKind?
        /// `#rrggbb` or `#rgb`.
        public var color: String?
        public var keepStrokes: Bool?
        /// 2...``Limits/pressureCurvePoints`` points (x, y), each 0...1.
        public var pressureCurve: [[Double]]?

        public init(kind: BrushKind? = nil, color: String? = nil, keepStrokes: Bool? = nil, pressureCurve: [[Double]]? = nil) {
            self.kind = kind
            self.color = color
            self.keepStrokes = keepStrokes
            self.pressureCurve = pressureCurve
        }
    }

    /// A page's pen-to-pixels figures (milliseconds).
    public struct LatencyFigures: Sendable, Equatable {
        public var count: Int
        public var p50: Double
        public var p95: Double
        public var p99: Double
    }

    /// The protocol's ranges, in one place (the page reads the same numbers from `/static/protocol.js`).
    public enum Limits {
        /// Largest viewport side in CSS pixels.
        public static let viewportSide = 16384
        /// Device pixel ratios accepted.
        public static let devicePixelRatio: ClosedRange<Double> = 0.25...8
        /// Stroke and batch numbers: whole numbers JavaScript counts exactly.
        public static let counter = 9_007_199_254_740_991
        /// Samples in one pen batch (and predicted samples).
        public static let samplesPerBatch = 4096
        public static let predictedPerBatch = 64
        /// Sample positions, in document pixels (the studio also checks them against the document).
        public static let coordinate: ClosedRange<Double> = -1_000_000...1_000_000
        /// Event times in milliseconds.
        public static let timestamp: ClosedRange<Double> = -1e13...1e13
        /// Points of a pressure curve.
        public static let pressureCurvePoints = 32
        /// Gallery presets.
        public static var presets: ClosedRange<Int> { 0...(GalleryPreset.all.count - 1) }
        /// Camera frames' sides.
        public static let cameraSide = 1...4096
        /// Frame sequence numbers echoed in `drawn`.
        public static let sequence = 0...counter
    }
}
