import Foundation
import SfumatoDocument
import SfumatoInk

extension Studio {
    /// Parses a pen message's samples, quantised as the document stores them.
    ///
    /// The rules are those of `PenSample`'s JSON form: `x` and `y` required and finite; `altitude`
    /// and `azimuth`, or `tiltX` and `tiltY` (degrees), optional; every other field optional with
    /// its default. A field that is present must have its type. The samples are read straight from
    /// the message as `JSONSerialization` parsed it: encoding them again for `JSONDecoder` took half
    /// a millisecond a batch, a quarter of the server's work for an Adjust draft.
    func samples(_ v: Any?) throws -> [PenSample] {
        guard let any = v as? [Any] else { return [] }
        guard let list = any as? [[String: Any]] else { throw StudioError("pen samples must be objects") }
        if list.count > 4096 { throw StudioError("too many samples in one message") }
        return Document.stored(try list.map(_penSample))
    }

    func _penSample(_ d: [String: Any]) throws -> PenSample {
        let bad = StudioError("malformed pen sample")
        func double(_ key: String) throws -> Double? {
            guard let v = d[key], !(v is NSNull) else { return nil }
            guard let n = number(v) else { throw bad }
            return n
        }
        func flag(_ key: String) throws -> Bool? {
            guard let v = d[key], !(v is NSNull) else { return nil }
            guard let b = v as? Bool else { throw bad }
            return b
        }
        guard let x = try double("x"), let y = try double("y"), x.isFinite, y.isFinite else { throw bad }
        var altitude = try double("altitude")
        var azimuth = try double("azimuth")
        if altitude == nil && azimuth == nil, let tx = try double("tiltX"), let ty = try double("tiltY") {
            (altitude, azimuth) = PenSample.angles(tiltX: tx, tiltY: ty)
        }
        var kind = PointerKind.pen
        if let v = d["pointerType"], !(v is NSNull) {
            guard let name = v as? String, let k = PointerKind(rawValue: name) else { throw bad }
            kind = k
        }
        var buttons = 1
        if let b = try double("buttons") {
            guard let i = Int(exactly: b) else { throw bad }
            buttons = i
        }
        return PenSample(x: x, y: y, pressure: try double("pressure") ?? 0.5, altitude: altitude ?? .pi / 2, azimuth: azimuth ?? 0,
                         twist: try double("twist") ?? 0, tangentialPressure: try double("tangentialPressure") ?? 0,
                         pointerKind: kind, buttons: buttons, timestamp: try double("t") ?? 0,
                         coalesced: try flag("coalesced") ?? false, predicted: try flag("predicted") ?? false)
    }
}
