import CCrypto
import Foundation

/// What happened to one input of a batch: a line of the manifest (JSON lines).
struct BatchRecord: Sendable, Equatable {
    enum Status: String, Sendable {
        /// Written this run.
        case done
        /// Already written by an earlier run, from the same input bytes and the same recipe.
        case skipped
        /// Could not be done; `reason` says why in one line.
        case failed
    }

    var input: String
    var output: String
    var status: Status
    var reason: String? = nil
    /// SHA-256 of the input file's bytes (hex), and of everything that decides the output.
    var inputHash: String? = nil
    var recipeHash: String
    var seconds: Double = 0
    var inputBytes: Int? = nil
    var outputBytes: Int? = nil
    var width: Int? = nil
    var height: Int? = nil

    var json: String {
        var o: [String: Any] = [
            "input": input, "output": output, "status": status.rawValue, "recipe_hash": recipeHash,
            "seconds": (seconds * 1000).rounded() / 1000
        ]
        if let reason { o["reason"] = reason }
        if let inputHash { o["input_hash"] = inputHash }
        if let inputBytes { o["input_bytes"] = inputBytes }
        if let outputBytes { o["output_bytes"] = outputBytes }
        if let width, let height { o["width"] = width; o["height"] = height }
        let data = (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    init(
        input: String, output: String, status: Status, reason: String? = nil, inputHash: String? = nil,
        recipeHash: String, seconds: Double = 0, inputBytes: Int? = nil, outputBytes: Int? = nil,
        width: Int? = nil, height: Int? = nil
    ) {
        self.input = input
        self.output = output
        self.status = status
        self.reason = reason
        self.inputHash = inputHash
        self.recipeHash = recipeHash
        self.seconds = seconds
        self.inputBytes = inputBytes
        self.outputBytes = outputBytes
        self.width = width
        self.height = height
    }

    /// A manifest line; nil for one that is not a record (a line cut short by a kill, say).
    init?(json line: Substring) {
        guard let data = line.data(using: .utf8),
            let o = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let input = o["input"] as? String, let output = o["output"] as? String,
            let status = (o["status"] as? String).flatMap(Status.init(rawValue:)), let recipe = o["recipe_hash"] as? String
        else { return nil }
        self.init(
            input: input, output: output, status: status, reason: o["reason"] as? String,
            inputHash: o["input_hash"] as? String, recipeHash: recipe, seconds: o["seconds"] as? Double ?? 0,
            inputBytes: o["input_bytes"] as? Int, outputBytes: o["output_bytes"] as? Int,
            width: o["width"] as? Int, height: o["height"] as? Int)
    }
}

/// The batch's manifest: every file's result appended as one JSON line as soon as it is known, so
/// a killed run leaves a record of everything it finished. One run at a time holds it (an
/// exclusive `flock`); a second run on the same manifest waits for the first.
final class BatchManifest: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let lock = NSLock()
    /// The newest record of each output written by earlier runs (successful ones only).
    private(set) var earlier: [String: BatchRecord] = [:]

    /// Opens (creating) the manifest and takes its lock; `waiting` is called once if another run holds it.
    init(path: String, waiting: () -> Void) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CLIError.failure("\(path): cannot open the manifest (\(String(cString: strerror(errno))))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            waiting()
            guard flock(fd, LOCK_EX) == 0 else {
                close(fd)
                throw CLIError.failure("\(path): cannot lock the manifest")
            }
        }
        let text = String(decoding: Self.readAll(fd), as: UTF8.self)
        for line in text.split(separator: "\n") {
            guard let r = BatchRecord(json: line) else { continue }
            if r.status == .failed { earlier[r.output] = nil } else { earlier[r.output] = r }
        }
        // A line cut short by a kill: end it, so the next record starts on a line of its own.
        if !text.isEmpty && !text.hasSuffix("\n") { append(line: "") }
    }

    deinit { close(fd) }

    /// The whole file, read through its descriptor. (Foundation's String(contentsOfFile:) leaked
    /// its 4 KiB buffer on an empty file, which LeakSanitizer reports.)
    private static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes }
            bytes += chunk.prefix(n)
            offset += off_t(n)
        }
    }

    /// Appends a record and flushes it to the disk before returning.
    func append(_ record: BatchRecord) { append(line: record.json) }

    private func append(line: String) {
        let bytes = Array((line + "\n").utf8)
        lock.withLock {
            var done = 0
            while done < bytes.count {
                let n = bytes[done...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                done += n
            }
            fdatasync(fd)
        }
    }
}

/// SHA-256 in hex, through OpenSSL.
enum BatchDigest {
    /// Of a file's bytes, read a megabyte at a time; nil if it cannot be read.
    static func file(_ path: String) -> (hash: String, bytes: Int)? {
        guard BatchJob.notARegularFile(path) == nil, let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        guard let ctx = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
            if n > 0 {
                total += n
                _ = buffer.withUnsafeBytes { EVP_DigestUpdate(ctx, $0.baseAddress, n) }
            }
            if n < buffer.count {
                if ferror(f) != 0 { return nil }
                break
            }
        }
        return (finish(ctx), total)
    }

    static func text(_ text: String) -> String {
        guard let ctx = EVP_MD_CTX_new() else { return "" }
        defer { EVP_MD_CTX_free(ctx) }
        let bytes = Array(text.utf8)
        EVP_DigestInit_ex(ctx, EVP_sha256(), nil)
        _ = bytes.withUnsafeBytes { EVP_DigestUpdate(ctx, $0.baseAddress, $0.count) }
        return finish(ctx)
    }

    private static func finish(_ ctx: OpaquePointer) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(ctx, &digest, &length)
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
