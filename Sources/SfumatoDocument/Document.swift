import CCrypto
import CSQLite
import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoInk

/// A Sfumato document: one SQLite file (`.sfumato`) holding the original image (its encoded
/// bytes, once, by SHA-256), the history of every user action, and the strokes with their
/// samples. The picture is the replay of the history up to the current position, so undo and
/// redo are unlimited and survive restarts.
///
/// Durability: the file is in WAL mode. Every action is one transaction, committed with
/// `synchronous=FULL` (the write-ahead log is fsynced) before the call returns, so anything
/// acknowledged survives a crash of the process or of the machine. A stroke's samples arrive in
/// many small batches (one per browser frame): each batch is its own transaction committed with
/// `synchronous=NORMAL`, which survives a crash of the process (the data is in the log, which the
/// next open replays) without paying an fsync per batch; ending the stroke commits with FULL,
/// which flushes the log, and with it every earlier batch: an acknowledged stroke is durable.
///
/// ```swift
/// let doc = try Document.create(at: "photo.sfumato", image: bytes, name: "photo.jpg")
/// try doc.apply(.curve([0, 0.3, 0.55, 0.8, 1]))
/// try doc.undo()
/// let picture = try doc.render(width: 960)
/// ```
public final class Document: @unchecked Sendable {
    /// Schema version this build writes (and the newest it reads).
    public static let schemaVersion = 2
    /// SQLite application id: "SFUM".
    static let applicationID = 0x5346_554D

    /// The file.
    public let path: String
    let db: _SQLite
    let lock = NSRecursiveLock()
    /// The picture after replaying the history up to the current position.
    public internal(set) var state = DocumentState()
    /// Strokes by id (all of them, applied or not).
    var strokeTable: [Int: DocumentStroke] = [:]
    /// Number of actions in the history, and how many are applied.
    public private(set) var historyLength = 0
    public private(set) var historyPosition = 0
    var photoCache: Bitmap?
    var blobCache: [String: Bitmap] = [:]

    // MARK: Opening and creating

    /// Creates a document for an image (its bytes are checked by decoding them first).
    /// Fails if `path` exists.
    public static func create(at path: String, image bytes: [UInt8], name: String) throws -> Document {
        let decoded = try ImageIO.read(bytes: bytes, name: name)
        if FileManager.default.fileExists(atPath: path) {
            throw SfumatoError.invalidArgument("\(path) already exists; choose another name or open it")
        }
        let temporary = path + ".creating-\(getpid())"
        unlink(temporary)
        // An interrupted process removes the half-made file (and SQLite's files beside it).
        let slots = [temporary, temporary + "-wal", temporary + "-shm"].map(TemporaryFiles.register)
        defer { slots.forEach(TemporaryFiles.unregister) }
        do {
            let db = try _SQLite(path: temporary, create: true)
            try db.exec("PRAGMA journal_mode=WAL")
            try Document.migrate(db, from: 0)
            let hash = Document.sha256(bytes)
            try db.transaction(durable: true) {
                try db.prepare("INSERT INTO blobs(hash, bytes) VALUES (?, ?)").bind([hash, bytes]).run()
                let meta: [(String, String)] = [
                    ("name", name), ("photo", hash), ("width", "\(decoded.bitmap.width)"),
                    ("height", "\(decoded.bitmap.height)"), ("created", "\(Date().timeIntervalSince1970)")
                ]
                for (k, v) in meta { try db.prepare("INSERT INTO meta(key, value) VALUES (?, ?)").bind([k, v]).run() }
                try db.exec("INSERT INTO cursor(id, position) VALUES (1, 0)")
            }
            try db.exec("PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            unlink(temporary)
            unlink(temporary + "-wal")
            unlink(temporary + "-shm")
            throw error
        }
        // Move into place only when complete (a crash leaves no half-made document).
        unlink(temporary + "-wal")
        unlink(temporary + "-shm")
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw SfumatoError.io("\(path): cannot create (\(String(cString: strerror(errno))))")
        }
        let document = try Document(path: path)
        // The stored bytes decoded as `photo()` would decode them: a 24 MP HEIC is not decoded twice.
        document.photoCache = decoded.bitmap
        return document
    }

    /// Opens an existing document, checking that it is one, that it is intact and that this
    /// build understands its schema, before writing anything.
    public convenience init(open path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw SfumatoError.io("\(path): no such document")
        }
        try self.init(path: path)
    }

    init(path: String) throws {
        self.path = path
        // A file that is not SQLite at all fails here or on the first read.
        let header = (try? ImageIO.readBytes(path: path).prefix(16)).map(Array.init) ?? []
        if header.count < 16 || String(decoding: header, as: UTF8.self) != "SQLite format 3\0" {
            throw SfumatoError.corrupt("\(path): not a Sfumato document")
        }
        db = try _SQLite(path: path, create: false)
        let app = try db.scalar("PRAGMA application_id") ?? 0
        guard app == Document.applicationID else {
            throw SfumatoError.corrupt("\(path): an SQLite database, but not a Sfumato document")
        }
        let version = try db.scalar("PRAGMA user_version") ?? 0
        guard version >= 1 else {
            throw SfumatoError.corrupt("\(path): the document's schema version \(version) is not one Sfumato ever wrote")
        }
        guard version <= Document.schemaVersion else {
            throw SfumatoError.unsupported("\(path): made by a newer Sfumato (schema \(version); this one reads up to \(Document.schemaVersion))")
        }
        let check = try db.text("PRAGMA quick_check") ?? "?"
        guard check == "ok" else { throw SfumatoError.corrupt("\(path): the document is damaged (\(check))") }
        if version < Document.schemaVersion { try Document.migrate(db, from: version) }
        try db.exec("PRAGMA journal_mode=WAL")
        try reload()
    }

    // MARK: Facts

    /// The name the image had.
    public var name: String { (try? db.text("SELECT value FROM meta WHERE key='name'")) ?? "image" }
    /// Size of the original image (after orientation).
    public var width: Int { Int((try? db.text("SELECT value FROM meta WHERE key='width'")) ?? "0") ?? 0 }
    public var height: Int { Int((try? db.text("SELECT value FROM meta WHERE key='height'")) ?? "0") ?? 0 }
    /// Whether undo / redo can do anything.
    public var canUndo: Bool { historyPosition > 0 }
    public var canRedo: Bool { historyPosition < historyLength }

    /// A setting kept with the document but outside the history (the studio's mode and brush).
    public func setting(_ key: String) -> String? {
        locked { try? db.text("SELECT value FROM meta WHERE key=?", ["setting." + key]) }
    }

    /// Stores a setting (one transaction; not part of undo).
    public func setSetting(_ key: String, _ value: String) throws {
        try locked {
            try db.transaction(durable: false) {
                try db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").bind(["setting." + key, value]).run()
            }
        }
    }

    /// SHA-256 of bytes, hex.
    static func sha256(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { _ = SHA256($0.baseAddress, $0.count, &digest) }
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Stores image bytes (once per content) and returns their hash.
    public func storeImage(_ bytes: [UInt8], name: String) throws -> String {
        _ = try ImageIO.info(bytes: bytes, name: name)
        let hash = Document.sha256(bytes)
        try locked {
            try db.transaction(durable: true) {
                try db.prepare("INSERT OR IGNORE INTO blobs(hash, bytes) VALUES (?, ?)").bind([hash, bytes]).run()
            }
        }
        return hash
    }

    /// A stored image, decoded (cached).
    public func image(hash: String) throws -> Bitmap {
        try locked {
            if let b = blobCache[hash] { return b }
            var bytes: [UInt8]?
            try db.query("SELECT bytes FROM blobs WHERE hash=?", [hash]) { bytes = $0.blob(0) }
            guard let bytes else { throw SfumatoError.corrupt("\(path): stored image \(hash.prefix(12)) is missing") }
            let b = try ImageIO.read(bytes: bytes, name: "stored image").bitmap
            blobCache[hash] = b
            return b
        }
    }

    /// The original photo, decoded (upright, sRGB, cached).
    public func photo() throws -> Bitmap {
        try locked {
            if let p = photoCache { return p }
            guard let hash = try db.text("SELECT value FROM meta WHERE key='photo'") else {
                throw SfumatoError.corrupt("\(path): no photo recorded")
            }
            let p = try image(hash: hash)
            photoCache = p
            return p
        }
    }

    /// The original photo's encoded bytes.
    public func photoBytes() throws -> [UInt8] {
        try locked {
            var bytes: [UInt8] = []
            try db.query("SELECT b.bytes FROM blobs b JOIN meta m ON m.value = b.hash WHERE m.key='photo'") { bytes = $0.blob(0) }
            return bytes
        }
    }

    /// What the original photo carries beside its pixels (EXIF, XMP, whether it had a colour
    /// profile), for exports to keep; empty when the photo has none or it cannot be read.
    public func photoMetadata() -> ImageMetadata {
        guard let bytes = try? photoBytes(), !bytes.isEmpty else { return ImageMetadata() }
        return (try? ImageIO.info(bytes: bytes, name: name).metadata) ?? ImageMetadata()
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    // MARK: History

    /// Records an action (one durable transaction, truncating any redo branch) and applies it.
    public func apply(_ action: DocumentAction) throws {
        if case .stroke = action { throw SfumatoError.invalidArgument("strokes are added with beginStroke") }
        try Document.validate(action)
        try locked {
            try db.transaction(durable: true) {
                try truncateRedo()
                try insert(action)
            }
            try reload()
        }
    }

    static func validate(_ action: DocumentAction) throws {
        switch action {
        case .edit(let step):
            let d = try FilterRegistry.filterType(named: step.filter).descriptor
            if d.parameters.contains(where: { $0.kind == .image }) {
                throw SfumatoError.unsupported("\(d.name) needs an image parameter, which document edits cannot hold yet")
            }
            _ = try d.arguments(values: step.values)
        case .curve(let levels):
            guard levels.count == 5, levels.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else {
                throw SfumatoError.invalidArgument("a tone curve has five levels in 0...1")
            }
        case .adjust(let p):
            for (name, v) in [
                ("hue", p.hue), ("saturation", p.saturation), ("brightness", p.brightness), ("contrast", p.contrast),
                ("exposure", p.exposure), ("gamma", p.gamma)
            ] where !v.isFinite {
                throw SfumatoError.invalidArgument("adjust \(name) must be finite")
            }
            _ = try HueAdjust(values: ["angle": .number(p.hue)])
            _ = try ColorControls(values: [
                "saturation": .number(p.saturation), "brightness": .number(p.brightness),
                "contrast": .number(p.contrast)
            ])
            _ = try ExposureAdjust(values: ["ev": .number(p.exposure)])
            _ = try GammaAdjust(values: ["power": .number(p.gamma)])
        case .preset(let i, _):
            guard (0..<GalleryPreset.all.count).contains(i) else { throw SfumatoError.invalidArgument("preset must be 0...11, not \(i)") }
        case .stroke:
            break
        }
    }

    /// Deletes actions past the current position (and their strokes).
    func truncateRedo() throws {
        let position = try db.scalar("SELECT position FROM cursor WHERE id=1") ?? 0
        try db.prepare("DELETE FROM samples WHERE stroke IN (SELECT id FROM strokes WHERE action > ?)").bind([position]).run()
        try db.prepare("DELETE FROM strokes WHERE action > ?").bind([position]).run()
        try db.prepare("DELETE FROM actions WHERE seq > ?").bind([position]).run()
    }

    /// Appends an action at the current position (inside a transaction); returns its sequence number.
    @discardableResult
    func insert(_ action: DocumentAction) throws -> Int {
        let position = try db.scalar("SELECT position FROM cursor WHERE id=1") ?? 0
        let seq = position + 1
        try db.prepare("INSERT INTO actions(seq, kind, payload, created) VALUES (?, ?, ?, ?)")
            .bind([seq, action.kind, try Document.encode(action), Date().timeIntervalSince1970]).run()
        try db.prepare("UPDATE cursor SET position=? WHERE id=1").bind([seq]).run()
        return seq
    }

    /// Takes back up to `count` actions; returns how many.
    @discardableResult
    public func undo(_ count: Int = 1) throws -> Int {
        try locked {
            let n = min(max(count, 0), historyPosition)
            if n == 0 { return 0 }
            try db.transaction(durable: true) {
                try db.prepare("UPDATE cursor SET position=? WHERE id=1").bind([historyPosition - n]).run()
            }
            try reload()
            return n
        }
    }

    /// Re-applies up to `count` undone actions; returns how many.
    @discardableResult
    public func redo(_ count: Int = 1) throws -> Int {
        try locked {
            let n = min(max(count, 0), historyLength - historyPosition)
            if n == 0 { return 0 }
            try db.transaction(durable: true) {
                try db.prepare("UPDATE cursor SET position=? WHERE id=1").bind([historyPosition + n]).run()
            }
            try reload()
            return n
        }
    }

    /// Every action, applied or not, in order.
    public func history() throws -> [HistoryEntry] {
        try locked {
            var out: [HistoryEntry] = []
            try db.query("SELECT seq, kind, payload, created FROM actions ORDER BY seq") { s in
                if let a = try? Document.decode(kind: s.text(1), payload: s.text(2), sequence: s.int(0), path: path) {
                    out.append(
                        HistoryEntry(
                            sequence: s.int(0), action: a, applied: s.int(0) <= historyPosition,
                            date: Date(timeIntervalSince1970: s.double(3))))
                }
            }
            return out
        }
    }

    /// Rebuilds the state from the file.
    func reload() throws {
        try locked {
            historyPosition = try db.scalar("SELECT position FROM cursor WHERE id=1") ?? 0
            historyLength = try db.scalar("SELECT COUNT(*) FROM actions") ?? 0
            strokeTable = try loadStrokes()
            var s = DocumentState()
            try db.query("SELECT seq, kind, payload FROM actions WHERE seq <= ? ORDER BY seq", [historyPosition]) { row in
                s.apply(try Document.decode(kind: row.text(1), payload: row.text(2), sequence: row.int(0), path: path), strokes: strokeTable)
            }
            state = s
        }
    }

    // MARK: Action payloads (JSON)

    static func encode(_ a: DocumentAction) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        let data: Data
        switch a {
        case .edit(let s): data = try e.encode(s)
        case .adjust(let p): data = try e.encode(p)
        case .curve(let l): data = try e.encode(["levels": l])
        case .preset(let i, let r): data = try e.encode(PresetPayload(index: i, reference: r))
        case .stroke(let id, let layer): data = try e.encode(StrokePayload(stroke: id, layer: layer))
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// An action from its stored form; a plain error naming the action when it is damaged.
    static func decode(kind: String, payload: String, sequence: Int, path: String) throws -> DocumentAction {
        do {
            let action = try decode(kind: kind, payload: payload)
            // What is read back obeys the same rules as what is written (a hostile file is not trusted).
            try validate(action)
            return action
        } catch let e as SfumatoError {
            throw SfumatoError.corrupt("\(path): action \(sequence) is damaged (\(e.description))")
        } catch {
            throw SfumatoError.corrupt("\(path): action \(sequence) (\(kind.prefix(20))) is damaged: its data is not what this kind of action holds")
        }
    }

    static func decode(kind: String, payload: String) throws -> DocumentAction {
        let d = JSONDecoder()
        let data = Data(payload.utf8)
        switch kind {
        case "edit": return .edit(try d.decode(RecipeStep.self, from: data))
        case "adjust": return .adjust(try d.decode(PencilControllerParameters.self, from: data))
        case "curve": return .curve(try d.decode([String: [Double]].self, from: data)["levels"] ?? [0, 0.25, 0.5, 0.75, 1])
        case "preset":
            let p = try d.decode(PresetPayload.self, from: data)
            return .preset(p.index, reference: p.reference)
        case "stroke":
            let p = try d.decode(StrokePayload.self, from: data)
            return .stroke(id: p.stroke, layer: p.layer)
        default: throw SfumatoError.unsupported("unknown action kind \(kind)")
        }
    }

    struct PresetPayload: Codable {
        var index: Int
        var reference: String?
    }

    struct StrokePayload: Codable {
        var stroke: Int
        var layer: LayerKind
    }
}
