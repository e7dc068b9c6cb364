import Foundation
import SfumatoInk

/// What the studio sends a page as JSON text (frames are binary, ``FrameHeader``).
/// docs/STUDIO-PROTOCOL.md gives the JSON forms.
public enum ServerMessage: Sendable, Equatable {
    /// The document, as `GET /api/document` returns it (JSON bytes made once per change).
    case state(document: [UInt8])
    /// Adjust's label; nil hides it.
    case label(String?)
    /// The virtual pencil's pose (hidden when `sample` is nil or `visible` is false).
    case pencil(visible: Bool, sample: PenSample?)
    /// Shade: whether the pen is below the tilt threshold (shading).
    case threshold(below: Bool)
    /// A message that was refused (malformed, or over a limit).
    case error(String)
    /// A pen batch that was understood but could not be recorded: the page must not count it
    /// as drawn. Nothing else of the batch was kept.
    case refused(stroke: Int, batch: Int, reason: String)

    /// The message names, as the `type` field carries them.
    public enum Kind: String, Sendable, CaseIterable {
        case state, label, pencil, threshold, error, refused
    }

    public var kind: Kind {
        switch self {
        case .state: .state
        case .label: .label
        case .pencil: .pencil
        case .threshold: .threshold
        case .error: .error
        case .refused: .refused
        }
    }

    /// The JSON text of the message.
    public func encoded() -> [UInt8] {
        var o: [String: Any] = ["type": kind.rawValue]
        switch self {
        case .state(let document):
            // The document is already JSON: splice it in rather than parse and print it again.
            return Array(#"{"type":"state","document":"#.utf8) + document + Array("}".utf8)
        case .label(let text):
            o["text"] = text.map { $0 as Any } ?? NSNull()
        case .pencil(let visible, let s):
            o["visible"] = visible
            if let s {
                o["x"] = s.x
                o["y"] = s.y
                o["altitude"] = s.altitude
                o["azimuth"] = s.azimuth
            }
        case .threshold(let below):
            o["below"] = below
        case .error(let message):
            o["message"] = message
        case .refused(let stroke, let batch, let reason):
            o["stroke"] = stroke
            o["batch"] = batch
            o["message"] = reason
        }
        return [UInt8]((try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])) ?? Data())
    }
}

/// A binary frame's header: "FRM1" + uint32 LE header length + this as JSON + the image bytes.
struct FrameHeader {
    enum Kind: String { case preview, camera }
    enum Format: String { case jpeg, rgba }
    var sequence: Int
    var batch: Int
    var kind: Kind
    var region: (x: Int, y: Int, w: Int, h: Int)
    var preview: (width: Int, height: Int)
    var format: Format
    var draft = false
    var label: String?
    var cameraFrame: Int?

    /// The whole binary message.
    func message(_ image: [UInt8]) -> [UInt8] {
        var o: [String: Any] = [
            "seq": sequence, "batch": batch, "kind": kind.rawValue, "x": region.x, "y": region.y,
            "w": region.w, "h": region.h, "previewWidth": preview.width, "previewHeight": preview.height,
            "format": format.rawValue
        ]
        if draft { o["draft"] = true }
        if let label { o["label"] = label }
        if let cameraFrame { o["frame"] = cameraFrame }
        let h = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])) ?? Data()
        var out = Array("FRM1".utf8)
        out.reserveCapacity(8 + h.count + image.count)
        let n = UInt32(h.count)
        out += [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)]
        out += [UInt8](h)
        out += image
        return out
    }
}
