import Foundation
import SfumatoInk
import SfumatoStudio
import Testing

/// One well-formed message of every type, with every field the protocol has.
nonisolated(unsafe) let wellFormed: [(ClientMessage.Kind, [String: Any])] = [
    (.hello, ["type": "hello", "viewport": ["width": 1280, "height": 800], "dpr": 2, "acks": true, "rawRegions": false]),
    (.viewport, ["type": "viewport", "viewport": ["width": 1024, "height": 700], "dpr": 1.5]),
    (.mode, ["type": "mode", "mode": "shade"]),
    (.hold, ["type": "hold", "pair": "gamma-exposure"]),
    (
        .pen,
        [
            "type": "pen", "phase": "move", "stroke": 3, "batch": 17,
            "samples": [
                [
                    "x": 10.5, "y": 20, "pressure": 0.4, "altitude": 1.1, "azimuth": 0.3, "twist": 12, "tangentialPressure": -0.5,
                    "pointerType": "pen", "buttons": 1, "t": 1234.5, "coalesced": true
                ],
                ["x": 11, "y": 21, "tiltX": 30, "tiltY": -10]
            ],
            "predicted": [["x": 12, "y": 22, "predicted": true]]
        ]
    ),
    (.curve, ["type": "curve", "levels": [0, 0.3, 0.5, 0.8, 1], "final": true]),
    (.preset, ["type": "preset", "index": 4]),
    (.brush, ["type": "brush", "brush": "pencil", "color": "#aabbcc", "keepStrokes": true, "pressureCurve": [[0, 0], [0.5, 0.7], [1, 1]]]),
    (.undo, ["type": "undo"]),
    (.redo, ["type": "redo"]),
    (.beforeAfter, ["type": "beforeAfter", "on": true]),
    (.camera, ["type": "camera", "on": true, "width": 960, "height": 540]),
    (.drawn, ["type": "drawn", "seq": 12]),
    (.stats, ["type": "stats", "count": 100, "p50": 4.5, "p95": 9, "p99": 12.25])
]

func json(_ object: Any) -> [UInt8] {
    [UInt8](try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
}

/// Every place in a message that holds a value, as a path of keys and indices.
enum Step: CustomStringConvertible {
    case key(String), index(Int)
    var description: String {
        switch self {
        case .key(let k): ".\(k)";
        case .index(let i): "[\(i)]"
        }
    }
}

func leaves(_ value: Any, at path: [Step] = []) -> [([Step], Any)] {
    var out: [([Step], Any)] = path.isEmpty ? [] : [(path, value)]
    if let o = value as? [String: Any] {
        for (k, v) in o where !(path.isEmpty && k == "type") { out += leaves(v, at: path + [.key(k)]) }
    } else if let a = value as? [Any] {
        for (i, v) in a.enumerated() { out += leaves(v, at: path + [.index(i)]) }
    }
    return out
}

func replacing(_ value: Any, at path: [Step], with new: Any) -> Any {
    guard let first = path.first else { return new }
    let rest = Array(path.dropFirst())
    switch first {
    case .key(let k):
        var o = value as! [String: Any]
        o[k] = replacing(o[k]!, at: rest, with: new)
        return o
    case .index(let i):
        var a = value as! [Any]
        a[i] = replacing(a[i], at: rest, with: new)
        return a
    }
}

@Suite("Studio protocol: typed, range-checked messages")
struct ProtocolTests {
    @Test("every message type decodes from its well-formed JSON")
    func wellFormedMessages() throws {
        #expect(Set(wellFormed.map(\.0)) == Set(ClientMessage.Kind.allCases), "the table covers every message type")
        for (kind, object) in wellFormed {
            let m = try ClientMessage.decode(json(object))
            switch (kind, m) {
            case (.hello, .hello(let h)): #expect(h == .init(viewport: .init(width: 1280, height: 800, dpr: 2), acks: true))
            case (.viewport, .viewport(let v)): #expect(v == .init(width: 1024, height: 700, dpr: 1.5))
            case (.mode, .mode(let mode)): #expect(mode == .shade)
            case (.hold, .hold(let pair)): #expect(pair == .gammaExposure)
            case (.pen, .pen(let p)):
                #expect(p.phase == .move && p.stroke == 3 && p.batch == 17 && p.samples.count == 2 && p.predicted.count == 1)
                #expect(p.samples[0].twist == 12 && p.samples[0].coalesced && p.samples[0].timestamp == 1234.5)
                let (alt, az) = PenSample.angles(tiltX: 30, tiltY: -10)
                #expect(abs(p.samples[1].altitude - alt) < 1e-12 && abs(p.samples[1].azimuth - az) < 1e-12)
            case (.curve, .curve(let levels, let final)): #expect(levels == [0, 0.3, 0.5, 0.8, 1] && final)
            case (.preset, .preset(let i)): #expect(i == 4)
            case (.brush, .brush(let b)):
                #expect(b == .init(kind: .pencil, color: "#aabbcc", keepStrokes: true, pressureCurve: [[0, 0], [0.5, 0.7], [1, 1]]))
            case (.undo, .undo), (.redo, .redo): break
            case (.beforeAfter, .beforeAfter(let on)): #expect(on)
            case (.camera, .camera(let on)): #expect(on)
            case (.drawn, .drawn(let seq)): #expect(seq == 12)
            case (.stats, .stats(let f)): #expect(f.count == 100 && f.p99 == 12.25)
            default: Issue.record("\(kind) decoded as \(m)")
            }
        }
        // Optional fields may be left out or null.
        #expect(try ClientMessage.decode(json(["type": "hold", "pair": NSNull()])) == .hold(.off))
        #expect(try ClientMessage.decode(json(["type": "drawn"])) == .drawn(sequence: nil))
    }

    /// Values no field of any type accepts in place of a number, a flag, a string or a list.
    nonisolated(unsafe) static let hostile: [Any] = [
        1e300, -1e300, -1e19, 1e19, 9_007_199_254_740_993.0, "NaN", "Infinity", "1", true, false,
        [Any](), [String: Any](), String(repeating: "x", count: 5000)
    ]

    @Test("every field of every message type given hostile values: an error naming it, never a trap")
    func hostileValues() throws {
        var refused = 0
        for (kind, object) in wellFormed {
            for (path, original) in leaves(object) {
                let where_ = "\(kind)\(path.map(\.description).joined())"
                for bad in Self.hostile where !sameKind(bad, original, at: path) {
                    let message = replacing(object, at: path, with: bad)
                    #expect(throws: ProtocolError.self, "\(where_) = \(bad)") { try ClientMessage.decode(json(message)) }
                    refused += 1
                }
                // Numbers out of range on the other side too: -1 where only non-negatives make sense.
                if original is Double || original is Int, !acceptsNegative(path) {
                    #expect(throws: ProtocolError.self, "\(where_) = -1") { try ClientMessage.decode(json(replacing(object, at: path, with: -1))) }
                }
            }
            // An unknown field at the top and in every nested object.
            var extra = object
            extra["surprise"] = 1
            #expect(throws: ProtocolError.self, "\(kind) with an unknown field") { try ClientMessage.decode(json(extra)) }
        }
        #expect(refused > 300)
        // Text that is not a JSON object, or numbers JSON cannot carry.
        for text in [
            "", "not json", "[1,2]", "null", "7", "{\"type\":\"preset\",\"index\":1e309}", "{\"type\":\"preset\",\"index\":NaN}",
            "{\"type\":\"preset\",\"index\":Infinity}", "{\"type\":\"no-such\"}", "{\"type\":5}", "{}",
            String(repeating: "[", count: 100_000)
        ] {
            #expect(throws: ProtocolError.self, "\(text.prefix(40))") { try ClientMessage.decode(Array(text.utf8)) }
        }
    }

    @Test("range edges: the limits themselves are accepted, one past them is not")
    func edges() throws {
        func pen(_ sample: [String: Any], stroke: Any = 1, batch: Any = 1) -> [UInt8] {
            json(["type": "pen", "phase": "down", "stroke": stroke, "batch": batch, "samples": [sample]])
        }
        _ = try ClientMessage.decode(pen(["x": 1_000_000, "y": -1_000_000], stroke: ClientMessage.Limits.counter, batch: 0))
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(pen(["x": 1_000_001, "y": 0])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(pen(["x": 0, "y": 0], stroke: 1.5)) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(pen(["x": 0, "y": 0, "pressure": 1.0001])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(pen(["x": 0, "y": 0, "buttons": 0.5])) }
        let many = (0...ClientMessage.Limits.samplesPerBatch).map { _ in ["x": 1, "y": 1] }
        #expect(throws: ProtocolError.self) {
            try ClientMessage.decode(json(["type": "pen", "phase": "move", "stroke": 1, "batch": 1, "samples": many]))
        }
        _ = try ClientMessage.decode(json(["type": "viewport", "viewport": ["width": 16384, "height": 1], "dpr": 8]))
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(json(["type": "viewport", "viewport": ["width": 16385, "height": 1]])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(json(["type": "viewport", "viewport": ["width": 100, "height": 0]])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(json(["type": "preset", "index": 12])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(json(["type": "curve", "levels": [0, 0.2, 0.4, 0.6]])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(json(["type": "brush", "color": "blue"])) }
        #expect(throws: ProtocolError.self) { try ClientMessage.decode(json(["type": "brush", "pressureCurve": [[0, 0]]])) }
    }

    @Test("server messages: the JSON the page reads")
    func serverMessages() throws {
        func object(_ m: ServerMessage) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(m.encoded())) as! [String: Any]
        }
        let state = try object(.state(document: json(["width": 5])))
        #expect(state["type"] as? String == "state" && (state["document"] as? [String: Any])?["width"] as? Int == 5)
        #expect(try object(.label(nil))["text"] is NSNull)
        #expect(try object(.refused(stroke: 3, batch: 9, reason: "disk full"))["batch"] as? Int == 9)
        #expect(try object(.pencil(visible: true, sample: PenSample(x: 1, y: 2)))["x"] as? Double == 1)
        #expect(Set(ServerMessage.Kind.allCases.map(\.rawValue)) == ["state", "label", "pencil", "threshold", "error", "refused"])
    }
}

/// Whether a hostile value might be valid where the original stands: only a flag for a flag,
/// and an empty list of samples (no other hostile value is in any field's range).
func sameKind(_ bad: Any, _ original: Any, at path: [Step]) -> Bool {
    func isBool(_ v: Any) -> Bool {
        type(of: v) == Bool.self || ObjectIdentifier(type(of: v)) == ObjectIdentifier(type(of: NSNumber(value: true) as Any))
    }
    if isBool(bad) && isBool(original) { return true }
    if let a = bad as? [Any], a.isEmpty, original is [Any], case .key(let k) = path.last, ["samples", "predicted"].contains(k) { return true }
    return false
}

/// Fields where -1 is a legitimate value.
func acceptsNegative(_ path: [Step]) -> Bool {
    guard case .key(let k) = path.last else { return false }
    return ["x", "y", "tangentialPressure", "tiltX", "tiltY", "t", "azimuth"].contains(k)
}
