import Foundation
import SfumatoInk

extension ClientMessage {
    /// Decodes one text message. Every field is checked for its type and range, and fields the
    /// message type does not have are refused, so nothing after this can trap on a value.
    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> ClientMessage {
        var o = try _parseJSONObject(bytes, path: "message")
        guard let type = try o.string("type", maxLength: 64) else { throw ProtocolError("messages are JSON objects with a \"type\"") }
        guard let kind = Kind(rawValue: type) else { throw ProtocolError("unknown message type \"\(type.prefix(40))\"") }
        o = try _JSONFields(o.object, path: type)
        _ = try o.string("type", maxLength: 64)
        let message: ClientMessage
        switch kind {
        case .hello:
            let viewport = try Self.viewport(&o)
            message = .hello(Hello(viewport: viewport, acks: try o.bool("acks") ?? false, rawRegions: try o.bool("rawRegions") ?? false))
        case .viewport:
            message = .viewport(try Self.viewport(&o))
        case .mode:
            guard let m = try o.choice("mode", StudioMode.self) else { throw ProtocolError("mode needs mode") }
            message = .mode(m)
        case .hold:
            message = .hold(try o.choice("pair", AdjustMode.self) ?? .off)
        case .pen:
            message = .pen(try Self.pen(&o))
        case .curve:
            guard let list = try o.array("levels", maxCount: 5), list.count == 5 else { throw ProtocolError("curve needs five levels") }
            let levels = try list.enumerated().map { (i, v) throws(ProtocolError) -> Double in
                guard let d = _jsonNumber(v), d.isFinite, d >= 0, d <= 1 else {
                    throw ProtocolError("curve.levels[\(i)] must be a number in 0...1")
                }
                return d
            }
            message = .curve(levels: levels, final: try o.bool("final") ?? false)
        case .preset:
            message = .preset(try o.requiredInteger("index", in: Limits.presets))
        case .brush:
            message = .brush(try Self.brush(&o))
        case .undo:
            message = .undo
        case .redo:
            message = .redo
        case .beforeAfter:
            message = .beforeAfter(try o.bool("on") ?? false)
        case .camera:
            _ = try o.integer("width", in: Limits.cameraSide)
            _ = try o.integer("height", in: Limits.cameraSide)
            message = .camera(on: try o.bool("on") ?? false)
        case .drawn:
            message = .drawn(sequence: try o.integer("seq", in: Limits.sequence))
        case .stats:
            let ms: ClosedRange<Double> = 0...1e9
            message = .stats(
                LatencyFigures(
                    count: try o.integer("count", in: 0...Limits.counter) ?? 0,
                    p50: try o.number("p50", in: ms) ?? 0, p95: try o.number("p95", in: ms) ?? 0,
                    p99: try o.number("p99", in: ms) ?? 0))
        }
        try o.checkNoOthers()
        return message
    }

    private static func viewport(_ o: inout _JSONFields) throws(ProtocolError) -> Viewport {
        guard var v = try o.object("viewport") else { throw ProtocolError("\(o.path) needs viewport {width, height}") }
        let side = 1.0...Double(Limits.viewportSide)
        let w = try v.requiredNumber("width", in: side), h = try v.requiredNumber("height", in: side)
        try v.checkNoOthers()
        return Viewport(width: Int(w.rounded()), height: Int(h.rounded()), dpr: try o.number("dpr", in: Limits.devicePixelRatio) ?? 1)
    }

    private static func pen(_ o: inout _JSONFields) throws(ProtocolError) -> PenBatch {
        guard let phase = try o.choice("phase", PenPhase.self) else { throw ProtocolError("pen needs phase (down, move, up or cancel)") }
        let stroke = try o.requiredInteger("stroke", in: 0...Limits.counter)
        let batch = try o.requiredInteger("batch", in: 0...Limits.counter)
        guard let list = try o.array("samples", maxCount: Limits.samplesPerBatch) else {
            throw ProtocolError("pen needs samples (an array)")
        }
        let predicted = try o.array("predicted", maxCount: Limits.predictedPerBatch) ?? []
        func samples(_ list: [Any], _ name: String) throws(ProtocolError) -> [PenSample] {
            var out: [PenSample] = []
            out.reserveCapacity(list.count)
            for (i, v) in list.enumerated() {
                var f = try _JSONFields(v, path: "pen.\(name)[\(i)]")
                out.append(try sample(&f))
                try f.checkNoOthers()
            }
            return out
        }
        return PenBatch(
            phase: phase, stroke: stroke, batch: batch, samples: try samples(list, "samples"),
            predicted: try samples(predicted, "predicted"))
    }

    /// A sample: `x` and `y` required; angles as altitude/azimuth or tiltX/tiltY; the rest
    /// optional with the defaults of ``PenSample``. Ranges are the W3C Pointer Events ones.
    static func sample(_ f: inout _JSONFields) throws(ProtocolError) -> PenSample {
        let x = try f.requiredNumber("x", in: Limits.coordinate)
        let y = try f.requiredNumber("y", in: Limits.coordinate)
        var altitude = try f.number("altitude", in: 0...(Double.pi / 2))
        var azimuth = try f.number("azimuth", in: -2 * Double.pi...2 * Double.pi)
        let tiltX = try f.number("tiltX", in: -90...90), tiltY = try f.number("tiltY", in: -90...90)
        if altitude == nil && azimuth == nil, let tiltX, let tiltY {
            (altitude, azimuth) = PenSample.angles(tiltX: tiltX, tiltY: tiltY)
        }
        return PenSample(
            x: x, y: y, pressure: try f.number("pressure", in: 0...1) ?? 0.5,
            altitude: altitude ?? .pi / 2, azimuth: azimuth ?? 0,
            twist: try f.number("twist", in: 0...360) ?? 0,
            tangentialPressure: try f.number("tangentialPressure", in: -1...1) ?? 0,
            pointerKind: try f.choice("pointerType", PointerKind.self) ?? .pen,
            buttons: try f.integer("buttons", in: 0...65535) ?? 1,
            timestamp: try f.number("t", in: Limits.timestamp) ?? 0,
            coalesced: try f.bool("coalesced") ?? false,
            predicted: try f.bool("predicted") ?? false
        ).sanitized
    }

    private static func brush(_ o: inout _JSONFields) throws(ProtocolError) -> BrushChange {
        var change = BrushChange()
        change.kind = try o.choice("brush", BrushKind.self)
        if let c = try o.string("color", maxLength: 16) {
            guard parseColor(c) != nil else { throw ProtocolError("brush.color must be #rrggbb, not \"\(c)\"") }
            change.color = c
        }
        change.keepStrokes = try o.bool("keepStrokes")
        if let curve = try o.array("pressureCurve", maxCount: Limits.pressureCurvePoints) {
            guard curve.count >= 2 else { throw ProtocolError("brush.pressureCurve needs at least two points") }
            change.pressureCurve = try curve.enumerated().map { (i, p) throws(ProtocolError) -> [Double] in
                guard let pair = p as? [Any], pair.count == 2, let x = _jsonNumber(pair[0]), let y = _jsonNumber(pair[1]),
                    x.isFinite, y.isFinite, (0...1).contains(x), (0...1).contains(y)
                else {
                    throw ProtocolError("brush.pressureCurve[\(i)] must be [x, y] with both in 0...1")
                }
                return [x, y]
            }
        }
        return change
    }
}

extension PointerKind: CaseIterable {
    public static let allCases: [PointerKind] = [.pen, .touch, .mouse]
}
