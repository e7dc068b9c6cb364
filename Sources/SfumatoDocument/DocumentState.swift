import Foundation
import SfumatoCore
import SfumatoFilters
import SfumatoInk

/// A filter step of a document's edit stack, as recipes write it.
public struct RecipeStep: Sendable, Codable, Equatable {
    /// Filter name (Core Image or short name).
    public var filter: String
    /// Parameter values by key.
    public var values: [String: ParameterValue]
    /// The space the step computes in (recipes from the command line: linear light).
    public var workingSpace: WorkingSpace

    public init(filter: String, values: [String: ParameterValue] = [:], workingSpace: WorkingSpace = .linear) {
        self.filter = filter
        self.values = values
        self.workingSpace = workingSpace
    }
}

extension WorkingSpace: Codable {}

/// The ink layers of a document: the studio's Shade layer below, Sketch above.
public enum LayerKind: String, Sendable, Codable, CaseIterable {
    case shade, sketch
}

/// One user action, the unit of history: undo takes back one action.
public enum DocumentAction: Sendable, Equatable {
    /// A filter step appended to the edit stack.
    case edit(RecipeStep)
    /// The PencilController parameters after a pen gesture.
    case adjust(PencilControllerParameters)
    /// The tone curve's five output levels (at inputs 0, 0.25, 0.5, 0.75, 1).
    case curve([Double])
    /// The gallery preset (0...11); `reference` is the content hash of histogram
    /// specification's reference image, stored in the document.
    case preset(Int, reference: String?)
    /// A stroke (its samples live in their own table).
    case stroke(id: Int, layer: LayerKind)

    var kind: String {
        switch self {
        case .edit: "edit"
        case .adjust: "adjust"
        case .curve: "curve"
        case .preset: "preset"
        case .stroke: "stroke"
        }
    }

    /// A one-line description for `sfumato doc log`.
    public var summary: String {
        switch self {
        case .edit(let s):
            "edit \(s.filter)" + (s.values.isEmpty ? "" : " " + s.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        case .adjust(let p):
            String(
                format: "adjust hue %.2f saturation %.2f brightness %.2f contrast %.2f exposure %.2f gamma %.2f",
                p.hue, p.saturation, p.brightness, p.contrast, p.exposure, p.gamma)
        case .curve(let l): "curve " + l.map { String(format: "%.3f", $0) }.joined(separator: " ")
        case .preset(let i, _): "gallery preset \(GalleryPreset.all[max(0, min(i, 11))].name)"
        case .stroke(let id, let layer): "stroke \(id) on \(layer.rawValue)"
        }
    }
}

/// A stroke as a document holds it.
public struct DocumentStroke: Sendable, Equatable {
    public var id: Int
    public var layer: LayerKind
    public var stroke: Stroke
    /// False while the pen is still down (or when a session ended mid-stroke; such a stroke
    /// counts as ended at its last committed sample).
    public var finished: Bool
}

/// What a document looks like after replaying its history up to the current position.
public struct DocumentState: Sendable, Equatable {
    public var edits: [RecipeStep] = []
    public var adjust = PencilControllerParameters()
    public var curve: [Double] = [0, 0.25, 0.5, 0.75, 1]
    public var preset = 0
    public var presetReference: String?
    public var strokes: [DocumentStroke] = []

    /// The state of a new document (nothing changed).
    public init() {}

    /// Whether the tone curve is the identity.
    public var curveIsIdentity: Bool { curve == [0, 0.25, 0.5, 0.75, 1] }

    /// Strokes that remain in the picture (ForceSketch strokes fade away).
    public var visibleStrokes: [DocumentStroke] { strokes.filter { !$0.stroke.fades } }

    mutating func apply(_ action: DocumentAction, strokes table: [Int: DocumentStroke]) {
        switch action {
        case .edit(let s): edits.append(s)
        case .adjust(let p): adjust = p
        case .curve(let l): curve = l
        case .preset(let i, let r): preset = i; presetReference = r
        case .stroke(let id, _): if let s = table[id] { strokes.append(s) }
        }
    }
}

/// One entry of the history, for `sfumato doc log` and the studio.
public struct HistoryEntry: Sendable, Equatable {
    public var sequence: Int
    public var action: DocumentAction
    public var applied: Bool
    public var date: Date
}
