import CSQLite
import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoInk
import SfumatoTestSupport
import Testing

/// Runs SQL on a document file behind the document's back (a hostile edit, or an old version).
func tamper(_ path: String, _ sql: String) throws {
    var db: OpaquePointer?
    guard sqlite3_open(path, &db) == SQLITE_OK else { throw SfumatoError.io("cannot open \(path)") }
    defer { sqlite3_close(db) }
    var error: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
        defer { sqlite3_free(error) }
        throw SfumatoError.io(error.map { String(cString: $0) } ?? "sql failed")
    }
}

@Suite("Document integrity: every hash and reference checked, every schema version refused or migrated")
struct DocumentIntegrityTests {
    let folder: URL
    let photoBytes: [UInt8]

    init() throws {
        folder = try Fixtures.temporaryFolder("doc-integrity")
        photoBytes = try ImageIO.readBytes(path: Fixtures.path("rocket.jpg"))
    }

    /// A document with two strokes and a preset with a reference image, copied to `name`.
    func sample(_ name: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let doc = try Document.create(at: path, image: photoBytes, name: "rocket.jpg")
        try doc.addStroke(wavyStroke(1), layer: .sketch)
        try doc.addStroke(wavyStroke(2, .pencil), layer: .shade)
        let reference = try doc.storeImage(try ImageIO.readBytes(path: Fixtures.path("chelsea.png")), name: "chelsea.png")
        try doc.apply(.preset(11, reference: reference))
        try doc.checkpoint()
        return path
    }

    @Test("a sound document checks ok; each kind of damage is named")
    func damage() throws {
        #expect(try Document(open: try sample("sound.sfumato")).check().ok)
        let cases: [(String, String, String)] = [
            (
                "photo-bytes", "UPDATE blobs SET bytes = zeroblob(length(bytes)) WHERE hash = (SELECT value FROM meta WHERE key='photo')",
                "does not match its hash"
            ),
            ("photo-gone", "DELETE FROM blobs WHERE hash = (SELECT value FROM meta WHERE key='photo')", "the photo"),
            ("reference-gone", "DELETE FROM blobs WHERE hash <> (SELECT value FROM meta WHERE key='photo')", "reference image"),
            ("samples-altered", "UPDATE samples SET data = zeroblob(length(data)) WHERE stroke = 2", "stroke 2"),
            ("samples-deleted", "DELETE FROM samples WHERE stroke = 1", "stroke 1"),
            ("stroke-gone", "DELETE FROM strokes WHERE id = 2", "stroke 2"),
            ("cursor-past", "UPDATE cursor SET position = 99", "cursor is at 99"),
            ("payload", "UPDATE actions SET payload = '{\"index\": 400}' WHERE kind = 'preset'", "action 3")
        ]
        for (name, sql, fragment) in cases {
            let path = try sample(name + ".sfumato")
            try tamper(path, sql)
            do {
                let report = try Document(open: path).check()
                #expect(!report.ok, "\(name) checked ok")
                #expect(report.summary.contains(fragment), "\(name): \(report.summary)")
            } catch let e as SfumatoError {
                // Damage that stops the document opening at all must say so in words, too.
                #expect(e.description.contains(fragment) || e.description.contains("damaged"), "\(name): \(e.description)")
            }
        }
    }

    @Test("schema versions Sfumato never wrote are refused without writing; version 1 is migrated")
    func versions() throws {
        for version in [-1, 0, -2_147_483_648] {
            let path = try sample("v\(version).sfumato")
            try tamper(path, "PRAGMA user_version = \(version)")
            let before = try ImageIO.readBytes(path: path)
            #expect(throws: SfumatoError.self, "\(version)") { try Document(open: path) }
            #expect(try ImageIO.readBytes(path: path) == before)
        }
        // A version-1 document (no sample hashes) opens, is brought to version 2 and checks ok.
        let old = try sample("v1.sfumato")
        let strokesBefore = try Document(open: old).state.strokes.map(\.stroke.samples)
        try tamper(
            old,
            "ALTER TABLE samples DROP COLUMN hash; ALTER TABLE strokes DROP COLUMN sample_count; "
                + "ALTER TABLE strokes DROP COLUMN samples_hash; PRAGMA user_version = 1")
        let migrated = try Document(open: old)
        let report = try migrated.check()
        #expect(report.ok && report.schemaVersion == 2, "\(report.summary)")
        #expect(migrated.state.strokes.map(\.stroke.samples) == strokesBefore)
    }

    @Test("actions read back obey the rules actions written do (a hostile file cannot smuggle in a preset of 400)")
    func hostileActions() throws {
        let path = try sample("hostile.sfumato")
        try tamper(
            path,
            "UPDATE actions SET payload = '{\"hue\": 1e999}' WHERE kind = 'stroke' AND seq = 1; "
                + "UPDATE actions SET payload = '{\"index\": 400}' WHERE kind = 'preset'")
        #expect(throws: SfumatoError.self) { _ = try Document(open: path) }
    }
}
