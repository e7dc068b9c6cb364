import Foundation
import SfumatoCore

extension Document {
    /// Schema migrations: `migrations[v]` takes a version-v file to version v + 1. Version 0 is an
    /// empty database.
    nonisolated(unsafe) static let migrations: [(_SQLite) throws -> Void] = [
        { db in
            try db.exec("""
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE blobs (hash TEXT PRIMARY KEY, bytes BLOB NOT NULL);
                CREATE TABLE actions (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL, created REAL NOT NULL);
                CREATE TABLE cursor (id INTEGER PRIMARY KEY CHECK (id = 1), position INTEGER NOT NULL);
                CREATE TABLE strokes (id INTEGER PRIMARY KEY, action INTEGER NOT NULL, layer TEXT NOT NULL, brush TEXT NOT NULL,
                                      fades INTEGER NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE samples (stroke INTEGER NOT NULL, batch INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (stroke, batch));
                CREATE INDEX strokes_action ON strokes(action);
                """)
        },
    ]

    /// Brings a file from `version` to the current schema, one transaction per step.
    static func migrate(_ db: _SQLite, from version: Int) throws {
        var v = version
        while v < schemaVersion {
            try db.transaction(durable: true) {
                try migrations[v](db)
                try db.exec("PRAGMA application_id=\(applicationID)")
                try db.exec("PRAGMA user_version=\(v + 1)")
            }
            v += 1
        }
    }

    /// What `sfumato doc check` reports.
    public struct CheckReport: Sendable, Equatable {
        public var schemaVersion: Int
        public var integrity: String
        public var actions: Int
        public var position: Int
        public var strokes: Int
        public var samples: Int
        public var unfinishedStrokes: Int
        public var images: Int
        public var bytes: Int

        /// Whether everything is consistent.
        public var ok: Bool { integrity == "ok" && position <= actions }
    }

    /// Full integrity check (SQLite's integrity_check plus the document's own invariants).
    public func check() throws -> CheckReport {
        try locked {
            let integrity = try db.text("PRAGMA integrity_check") ?? "?"
            var samples = 0
            try db.query("SELECT data FROM samples") { samples += $0.blob(0).count / _SamplePacking.size }
            let actions = try db.scalar("SELECT COUNT(*) FROM actions") ?? 0
            let maxSeq = try db.scalar("SELECT MAX(seq) FROM actions") ?? 0
            var problems: [String] = []
            if maxSeq != actions { problems.append("action numbers have gaps") }
            let orphans = try db.scalar("SELECT COUNT(*) FROM strokes WHERE action NOT IN (SELECT seq FROM actions)") ?? 0
            if orphans > 0 { problems.append("\(orphans) strokes without an action") }
            if (try db.scalar("SELECT COUNT(*) FROM meta WHERE key='photo'") ?? 0) != 1 { problems.append("no photo") }
            let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            return CheckReport(schemaVersion: try db.scalar("PRAGMA user_version") ?? 0,
                               integrity: problems.isEmpty ? integrity : problems.joined(separator: "; "),
                               actions: actions, position: historyPosition,
                               strokes: try db.scalar("SELECT COUNT(*) FROM strokes") ?? 0, samples: samples,
                               unfinishedStrokes: try db.scalar("SELECT COUNT(*) FROM strokes WHERE finished=0") ?? 0,
                               images: try db.scalar("SELECT COUNT(*) FROM blobs") ?? 0, bytes: fileSize)
        }
    }

    /// Folds the write-ahead log into the file (for copying a closed document).
    public func checkpoint() throws {
        try locked { try db.exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
