import Foundation
import SfumatoCore

extension Document {
    /// Schema migrations: `migrations[v]` takes a version-v file to version v + 1. Version 0 is an
    /// empty database.
    nonisolated(unsafe) static let migrations: [(_SQLite) throws -> Void] = [
        { db in
            try db.exec(
                """
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
        // 2: content hashes of the samples, so `doc check` can tell altered or deleted samples:
        // each batch's SHA-256, and a finished stroke's sample count and the hash of all its data.
        { db in
            try db.exec(
                """
                ALTER TABLE samples ADD COLUMN hash TEXT;
                ALTER TABLE strokes ADD COLUMN sample_count INTEGER;
                ALTER TABLE strokes ADD COLUMN samples_hash TEXT;
                """)
            var batches: [(Int, Int, [UInt8])] = []
            try db.query("SELECT stroke, batch, data FROM samples") { batches.append(($0.int(0), $0.int(1), $0.blob(2))) }
            for (stroke, batch, data) in batches {
                try db.prepare("UPDATE samples SET hash=? WHERE stroke=? AND batch=?").bind([Document.sha256(data), stroke, batch]).run()
            }
            var finished: [Int] = []
            try db.query("SELECT id FROM strokes WHERE finished=1") { finished.append($0.int(0)) }
            for id in finished { try Document.sealStroke(id, in: db) }
        }
    ]

    /// Brings a file from `version` to the current schema, one transaction per step.
    static func migrate(_ db: _SQLite, from version: Int) throws {
        precondition(version >= 0 && version <= schemaVersion, "checked by the caller")
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

    /// Folds the write-ahead log into the file (for copying a closed document).
    public func checkpoint() throws {
        try locked { try db.exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
