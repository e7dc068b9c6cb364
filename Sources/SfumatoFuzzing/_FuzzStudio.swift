import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoStudio

/// A studio in-process on a small document, fed messages and requests, with a transport that
/// drops what it is sent (a fresh studio every few thousand inputs, so the document stays small).
final class _FuzzStudio: @unchecked Sendable {
    static let shared = _FuzzStudio()

    final class Sink: MessageTransport, @unchecked Sendable {
        func send(_ id: Int, _ data: [UInt8], binary: Bool) {}
        func pending(_ id: Int) -> Int { 0 }
        func close(_ id: Int) {}
        func handled(_ id: Int) {}
    }

    private var studio: Studio?
    private var runs = 0
    /// One input at a time (libFuzzer calls from one thread; the regression tests from several).
    private let lock = NSLock()
    private let sink = Sink()
    private let policy = AccessPolicy(token: "0123456789abcdef0123456789abcdef", port: 8080, secure: false)

    private func current() -> Studio {
        runs += 1
        if let studio, runs % 2000 != 0 { return studio }
        studio?.settle()
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sfumato-fuzz-studio-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let photo = try! Bitmap(width: 48, height: 32, format: .rgba8)
        for y in 0..<32 { for x in 0..<48 { photo.row(y).storeBytes(of: UInt32(0xFF20_4060 &+ UInt32(x * 3 + y * 5)), toByteOffset: 4 * x, as: UInt32.self) } }
        let doc = try! Document.create(
            at: folder.appendingPathComponent("f.sfumato").path,
            image: try! ImageIO.encode(photo, format: .png), name: "f.png")
        let s = try! Studio(document: doc, folder: folder, log: { _ in })
        s.transport = sink
        s.webSocketOpened(1)
        s.webSocketMessage(1, .text(Array(#"{"type":"hello","viewport":{"width":48,"height":32}}"#.utf8)))
        studio = s
        return s
    }

    /// A WebSocket message: decoded, and when it decodes, acted on (text), or a camera frame (binary).
    func message(_ data: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        let s = current()
        _ = try? ClientMessage.decode(data)
        s.webSocketMessage(1, data.first == 0x43 ? .binary(data) : .text(data))
        s.settle()
    }

    /// A request: "METHOD PATH?QUERY" on the first line, then `Name: value` headers, a blank line and a body.
    func request(_ data: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        let s = current()
        let text = String(decoding: data.prefix(8192), as: UTF8.self)
        let (head, body) = text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), Array(text[$0.upperBound...].utf8)) } ?? (text, [])
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = lines.isEmpty ? "" : lines.removeFirst()
        let parts = first.split(separator: " ", maxSplits: 1).map(String.init)
        let method = HTTPMethod(rawValue: parts.first ?? "") ?? .get
        let target = parts.count > 1 ? parts[1] : "/"
        // Not omitting empty pieces: "/a?" is a path and an empty query (the fuzzer found that the
        // harness itself trapped on it).
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let path = pieces[0].isEmpty ? "/" : pieces[0]
        let query = HTTPRequest.parseQuery(pieces.count > 1 ? [pieces[1]] : [])
        var headers: [String: String] = [:]
        for line in lines {
            let kv = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2 { headers[kv[0].lowercased()] = kv[1] }
        }
        let decision = policy.decide(
            .init(
                path: path, host: headers["host"], origin: headers["origin"], queryToken: query["token"],
                cookieHeader: headers["cookie"]))
        guard case .allow = decision else { return }
        let done = DispatchSemaphore(value: 0)
        s.handle(HTTPRequest(method: method, path: path, query: query, body: body)) { _ in done.signal() }
        done.wait()
        s.settle()
    }
}
