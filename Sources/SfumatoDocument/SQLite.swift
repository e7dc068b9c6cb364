import CSQLite
import Foundation
import SfumatoCore

/// A small wrapper over one SQLite connection (Debian's libsqlite3): statements, binding,
/// transactions. Errors come back as `SfumatoError.io` with SQLite's message.
final class _SQLite {
    let handle: OpaquePointer
    let path: String

    init(path: String, create: Bool) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close(db) }
            throw SfumatoError.io("\(path): \(message)")
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, 5000)
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    var message: String { String(cString: sqlite3_errmsg(handle)) }

    /// The primary result code of the last failure (SQLITE_NOTADB, SQLITE_CORRUPT, ...).
    var lastCode: Int32 { sqlite3_errcode(handle) & 0xFF }

    func fail(_ what: String) -> SfumatoError {
        switch lastCode {
        case SQLITE_NOTADB: return .corrupt("\(path): not a Sfumato document (not an SQLite database)")
        case SQLITE_CORRUPT: return .corrupt("\(path): the document is damaged (\(message))")
        case SQLITE_FULL: return .io("\(path): disk full (\(what))")
        default: return .io("\(path): \(what): \(message)")
        }
    }

    /// Runs SQL without results (may hold several statements).
    func exec(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &error) != SQLITE_OK {
            let m = error.map { String(cString: $0) } ?? message
            sqlite3_free(error)
            if lastCode == SQLITE_NOTADB || lastCode == SQLITE_CORRUPT { throw fail(sql) }
            throw SfumatoError.io("\(path): \(m)")
        }
    }

    /// A prepared statement.
    final class Statement {
        let stmt: OpaquePointer
        let db: _SQLite
        init(_ db: _SQLite, _ sql: String) throws {
            var s: OpaquePointer?
            guard sqlite3_prepare_v2(db.handle, sql, -1, &s, nil) == SQLITE_OK, let s else { throw db.fail("prepare \(sql)") }
            stmt = s
            self.db = db
        }
        deinit { sqlite3_finalize(stmt) }

        @discardableResult
        func bind(_ values: [Any?]) -> Statement {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
            for (i, v) in values.enumerated() {
                let idx = Int32(i + 1)
                switch v {
                case nil: sqlite3_bind_null(stmt, idx)
                case let x as Int: sqlite3_bind_int64(stmt, idx, Int64(x))
                case let x as Int64: sqlite3_bind_int64(stmt, idx, x)
                case let x as Double: sqlite3_bind_double(stmt, idx, x)
                case let x as Bool: sqlite3_bind_int64(stmt, idx, x ? 1 : 0)
                case let x as String: sqlite3_bind_text(stmt, idx, x, -1, sf_sqlite_transient())
                case let x as [UInt8]:
                    x.withUnsafeBytes { _ = sqlite3_bind_blob(stmt, idx, $0.baseAddress, Int32($0.count), sf_sqlite_transient()) }
                case let x as Data:
                    x.withUnsafeBytes { _ = sqlite3_bind_blob(stmt, idx, $0.baseAddress, Int32($0.count), sf_sqlite_transient()) }
                default: sqlite3_bind_null(stmt, idx)
                }
            }
            return self
        }

        /// Steps once; true when a row is available.
        func step() throws -> Bool {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_ROW { return true }
            if rc == SQLITE_DONE { return false }
            throw db.fail("step")
        }

        func run() throws { while try step() {} }

        func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(stmt, column)) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(stmt, column) }
        func text(_ column: Int32) -> String {
            guard let p = sqlite3_column_text(stmt, column) else { return "" }
            return String(cString: p)
        }
        func blob(_ column: Int32) -> [UInt8] {
            let n = Int(sqlite3_column_bytes(stmt, column))
            guard n > 0, let p = sqlite3_column_blob(stmt, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: n))
        }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(stmt, column) == SQLITE_NULL }
    }

    func prepare(_ sql: String) throws -> Statement { try Statement(self, sql) }

    /// Rows of a query, each as the statement positioned on it.
    func query(_ sql: String, _ values: [Any?] = [], _ row: (Statement) throws -> Void) throws {
        let s = try prepare(sql).bind(values)
        while try s.step() { try row(s) }
    }

    /// A single integer (or nil when no row).
    func scalar(_ sql: String, _ values: [Any?] = []) throws -> Int? {
        var v: Int?
        try query(sql, values) { v = $0.isNull(0) ? nil : $0.int(0) }
        return v
    }

    func text(_ sql: String, _ values: [Any?] = []) throws -> String? {
        var v: String?
        try query(sql, values) { v = $0.text(0) }
        return v
    }

    /// Runs `body` in one transaction (BEGIN IMMEDIATE ... COMMIT); `durable` commits with
    /// synchronous=FULL (fsync of the write-ahead log), otherwise NORMAL (safe against a crash of
    /// the process, not against power loss, until the next durable commit or checkpoint).
    func transaction<T>(durable: Bool, _ body: () throws -> T) throws -> T {
        try exec(durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
        try exec("BEGIN IMMEDIATE")
        do {
            let r = try body()
            try exec("COMMIT")
            return r
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }

    var lastInsertRowID: Int { Int(sqlite3_last_insert_rowid(handle)) }
}
