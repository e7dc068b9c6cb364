import Foundation
import SfumatoCore

extension Document {
    /// What `sfumato doc check` reports.
    public struct CheckReport: Sendable, Equatable {
        public var schemaVersion: Int
        /// SQLite's own integrity check: "ok" or its findings.
        public var integrity: String
        /// Every inconsistency found in the document's own content, in plain words (empty when sound).
        public var problems: [String]
        public var actions: Int
        public var position: Int
        public var strokes: Int
        public var samples: Int
        public var unfinishedStrokes: Int
        public var images: Int
        public var bytes: Int

        /// Whether everything is consistent.
        public var ok: Bool { integrity == "ok" && problems.isEmpty }

        /// One line naming what is wrong ("ok" when nothing is).
        public var summary: String {
            let all = (integrity == "ok" ? [] : ["SQLite: \(integrity)"]) + problems
            return all.isEmpty ? "ok" : all.joined(separator: "; ")
        }
    }

    /// Full check: SQLite's integrity_check, every content hash (the photo and stored images by
    /// their SHA-256 names, each batch of samples, each finished stroke's whole sample data and
    /// count) and every reference (the photo, preset reference images, strokes and their actions,
    /// samples and their strokes, the history's cursor), each problem named.
    public func check() throws -> CheckReport {
        try locked {
            let integrity = try db.text("PRAGMA integrity_check") ?? "?"
            var problems: [String] = []
            func problem(_ s: String) { if problems.count < 50 { problems.append(s) } }

            // Images: each stored under the hash of its bytes.
            var imageHashes = Set<String>()
            try db.query("SELECT hash, bytes FROM blobs") { row in
                let hash = row.text(0), bytes = row.blob(1)
                imageHashes.insert(hash)
                if Document.sha256(bytes) != hash { problem("stored image \(hash.prefix(12)) does not match its hash (its bytes were altered)") }
            }
            let photo = try db.text("SELECT value FROM meta WHERE key='photo'")
            if let photo {
                if !imageHashes.contains(photo) { problem("the photo \(photo.prefix(12)) is missing") }
            } else {
                problem("no photo is recorded")
            }
            for key in ["width", "height"] {
                let v = try db.text("SELECT value FROM meta WHERE key=?", [key]).flatMap { Int($0) }
                if v == nil || v! < 1 { problem("the photo's \(key) is not recorded") }
            }

            // The history.
            let actions = try db.scalar("SELECT COUNT(*) FROM actions") ?? 0
            let maxSeq = try db.scalar("SELECT MAX(seq) FROM actions") ?? 0
            if maxSeq != actions { problem("action numbers have gaps (\(actions) actions, the last numbered \(maxSeq))") }
            let position = try db.scalar("SELECT position FROM cursor WHERE id=1")
            if let position {
                if position < 0 || position > actions { problem("the history's cursor is at \(position), outside its \(actions) actions") }
            } else {
                problem("the history's cursor is missing")
            }
            var strokeActions: [Int: Int] = [:]  // stroke id -> action seq
            try db.query("SELECT seq, kind, payload FROM actions ORDER BY seq") { row in
                let seq = row.int(0)
                do {
                    let action = try Document.decode(kind: row.text(1), payload: row.text(2), sequence: seq, path: path)
                    switch action {
                    case .stroke(let id, _): strokeActions[id] = seq
                    case .preset(_, let reference?):
                        if !imageHashes.contains(reference) { problem("action \(seq): the preset's reference image \(reference.prefix(12)) is missing") }
                    default: break
                    }
                } catch let e as SfumatoError {
                    problem(e.description.replacingOccurrences(of: "\(path): ", with: ""))
                }
            }

            // Strokes and their samples.
            var strokeCount = 0, unfinished = 0, sampleCount = 0
            var strokes: [Int: (action: Int, finished: Bool, count: Int?, hash: String?)] = [:]
            try db.query("SELECT id, action, finished, sample_count, samples_hash FROM strokes") { row in
                strokes[row.int(0)] = (row.int(1), row.int(2) != 0, row.isNull(3) ? nil : row.int(3), row.isNull(4) ? nil : row.text(4))
            }
            strokeCount = strokes.count
            for (id, s) in strokes.sorted(by: { $0.key < $1.key }) {
                if !s.finished { unfinished += 1 }
                if strokeActions[id] != s.action { problem("stroke \(id) is not the stroke of action \(s.action)") }
            }
            for (id, seq) in strokeActions where strokes[id] == nil { problem("action \(seq) draws stroke \(id), which is missing") }
            var data: [Int: [UInt8]] = [:]
            var batches: [Int: [Int]] = [:]
            try db.query("SELECT stroke, batch, data, hash FROM samples ORDER BY stroke, batch") { row in
                let stroke = row.int(0), batch = row.int(1), bytes = row.blob(2)
                sampleCount += bytes.count / _SamplePacking.size
                if strokes[stroke] == nil { problem("samples of stroke \(stroke), which does not exist") }
                if bytes.count % _SamplePacking.size != 0 { problem("stroke \(stroke), batch \(batch): not a whole number of samples") }
                if row.isNull(3) || row.text(3) != Document.sha256(bytes) {
                    problem("stroke \(stroke), batch \(batch): samples altered (their hash does not match)")
                }
                data[stroke, default: []] += bytes
                batches[stroke, default: []].append(batch)
            }
            for (id, list) in batches where list != Array(1...list.count) { problem("stroke \(id): batches of samples are missing") }
            for (id, s) in strokes where s.finished {
                let all = data[id] ?? []
                let stored = all.count / _SamplePacking.size
                if s.count != stored {
                    problem("stroke \(id): samples deleted or added (\(stored) stored, \(s.count.map(String.init) ?? "none") recorded when it was finished)")
                } else if s.hash != Document.sha256(all) {
                    problem("stroke \(id): samples altered since it was finished (their hash does not match)")
                }
            }
            let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return CheckReport(
                schemaVersion: try db.scalar("PRAGMA user_version") ?? 0, integrity: integrity, problems: problems,
                actions: actions, position: position ?? 0, strokes: strokeCount, samples: sampleCount,
                unfinishedStrokes: unfinished, images: imageHashes.count, bytes: fileSize)
        }
    }
}
