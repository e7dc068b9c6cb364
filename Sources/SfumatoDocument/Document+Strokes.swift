import Foundation
import SfumatoCore
import SfumatoInk

/// Samples packed 40 bytes each, little-endian: x, y, pressure, altitude, azimuth, twist,
/// tangential pressure as Float32; the time as Float64; pointer kind, buttons, flags as bytes.
/// Live strokes go through the same packing before they are drawn, so what the studio shows is
/// exactly what the document replays.
enum _SamplePacking {
    static let size = 40

    static func pack(_ samples: [PenSample]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: samples.count * size)
        out.withUnsafeMutableBytes { raw in
            for (i, s) in samples.enumerated() {
                let p = raw.baseAddress! + i * size
                for (k, v) in [s.x, s.y, s.pressure, s.altitude, s.azimuth, s.twist, s.tangentialPressure].enumerated() {
                    p.storeBytes(of: Float(v).bitPattern.littleEndian, toByteOffset: 4 * k, as: UInt32.self)
                }
                p.storeBytes(of: s.timestamp.bitPattern.littleEndian, toByteOffset: 28, as: UInt64.self)
                p.storeBytes(of: s.pointerKind == .pen ? 0 : s.pointerKind == .touch ? 1 : 2, toByteOffset: 36, as: UInt8.self)
                p.storeBytes(of: UInt8(truncatingIfNeeded: min(max(s.buttons, 0), 255)), toByteOffset: 37, as: UInt8.self)
                p.storeBytes(of: UInt8(s.coalesced ? 1 : 0), toByteOffset: 38, as: UInt8.self)
            }
        }
        return out
    }

    static func unpack(_ bytes: [UInt8]) -> [PenSample] {
        let n = bytes.count / size
        return bytes.withUnsafeBytes { raw in
            (0..<n).map { i in
                let p = raw.baseAddress! + i * size
                func f(_ k: Int) -> Double { Double(Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self)))) }
                let kind = p.load(fromByteOffset: 36, as: UInt8.self)
                return PenSample(
                    x: f(0), y: f(1), pressure: f(2), altitude: f(3), azimuth: f(4), twist: f(5), tangentialPressure: f(6),
                    pointerKind: kind == 0 ? .pen : kind == 1 ? .touch : .mouse,
                    buttons: Int(p.load(fromByteOffset: 37, as: UInt8.self)),
                    timestamp: Double(bitPattern: UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 28, as: UInt64.self))),
                    coalesced: p.load(fromByteOffset: 38, as: UInt8.self) != 0)
            }
        }
    }

    /// The samples as they will read back from the document.
    static func roundTrip(_ samples: [PenSample]) -> [PenSample] { unpack(pack(samples.map(\.sanitized))) }
}

extension Document {
    /// Samples as the document will store them (sanitised and rounded to the stored precision).
    public static func stored(_ samples: [PenSample]) -> [PenSample] {
        _SamplePacking.roundTrip(samples.filter { !$0.predicted })
    }

    /// Starts a stroke: records its action (one durable transaction, so the stroke exists and
    /// undo works even if the pen never lifts) and returns its id.
    public func beginStroke(layer: LayerKind, brush: BrushSettings, fades: Bool) throws -> Int {
        try locked {
            let brushJSON = String(decoding: try JSONEncoder().encode(brush), as: UTF8.self)
            let id: Int = try db.transaction(durable: true) {
                try truncateRedo()
                let next = (try db.scalar("SELECT MAX(id) FROM strokes") ?? 0) + 1
                let seq = try insert(.stroke(id: next, layer: layer))
                try db.prepare("INSERT INTO strokes(id, action, layer, brush, fades, finished) VALUES (?, ?, ?, ?, ?, 0)")
                    .bind([next, seq, layer.rawValue, brushJSON, fades]).run()
                return next
            }
            try reload()
            return id
        }
    }

    /// Appends a batch of samples to an unfinished stroke (one transaction without an fsync;
    /// see the type's notes on durability). Predicted samples are dropped.
    public func appendSamples(stroke id: Int, _ samples: [PenSample]) throws {
        let real = samples.filter { !$0.predicted }
        if real.isEmpty { return }
        try locked {
            guard let s = strokeTable[id], !s.finished else {
                throw SfumatoError.invalidArgument("stroke \(id) is not open")
            }
            try db.transaction(durable: false) {
                let batch = (try db.scalar("SELECT MAX(batch) FROM samples WHERE stroke=?", [id]) ?? 0) + 1
                let data = _SamplePacking.pack(real.map(\.sanitized))
                try db.prepare("INSERT INTO samples(stroke, batch, data, hash) VALUES (?, ?, ?, ?)")
                    .bind([id, batch, data, Document.sha256(data)]).run()
            }
            strokeTable[id]?.stroke.samples += _SamplePacking.roundTrip(real)
            if let i = state.strokes.firstIndex(where: { $0.id == id }) { state.strokes[i] = strokeTable[id]! }
        }
    }

    /// Ends a stroke (durable: this commit flushes every earlier batch too).
    public func endStroke(_ id: Int) throws {
        try locked {
            try db.transaction(durable: true) {
                try db.prepare("UPDATE strokes SET finished=1 WHERE id=?").bind([id]).run()
                try Document.sealStroke(id, in: db)
            }
            strokeTable[id]?.finished = true
            if let i = state.strokes.firstIndex(where: { $0.id == id }) { state.strokes[i].finished = true }
        }
    }

    /// Records a whole stroke at once (command line, tests).
    @discardableResult
    public func addStroke(_ stroke: Stroke, layer: LayerKind) throws -> Int {
        let id = try beginStroke(layer: layer, brush: stroke.brush, fades: stroke.fades)
        try appendSamples(stroke: id, stroke.samples)
        try endStroke(id)
        return id
    }

    /// Records a finished stroke's sample count and the hash of all its samples, in order.
    static func sealStroke(_ id: Int, in db: _SQLite) throws {
        var all: [UInt8] = []
        try db.query("SELECT data FROM samples WHERE stroke=? ORDER BY batch", [id]) { all += $0.blob(0) }
        try db.prepare("UPDATE strokes SET sample_count=?, samples_hash=? WHERE id=?")
            .bind([all.count / _SamplePacking.size, sha256(all), id]).run()
    }

    func loadStrokes() throws -> [Int: DocumentStroke] {
        var out: [Int: DocumentStroke] = [:]
        try db.query("SELECT id, layer, brush, fades, finished FROM strokes ORDER BY id") { s in
            let brush = (try? JSONDecoder().decode(BrushSettings.self, from: Data(s.text(2).utf8))) ?? BrushSettings(kind: .pen)
            out[s.int(0)] = DocumentStroke(
                id: s.int(0), layer: LayerKind(rawValue: s.text(1)) ?? .sketch,
                stroke: Stroke(brush: brush, samples: [], fades: s.int(3) != 0), finished: s.int(4) != 0)
        }
        try db.query("SELECT stroke, data FROM samples ORDER BY stroke, batch") { s in
            out[s.int(0)]?.stroke.samples += _SamplePacking.unpack(s.blob(1))
        }
        return out
    }
}
