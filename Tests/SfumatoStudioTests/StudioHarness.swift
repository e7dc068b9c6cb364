import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoInk
import SfumatoStudio
import SfumatoTestSupport
import Synchronization

/// A transport that records what the studio sends, as a page would receive it, with no socket
/// (the studio's counterpart of swift-nio's EmbeddedChannel). A page can be made slow: while
/// held, what is sent to it stays pending, as on a connection that is not being read.
final class RecordingTransport: MessageTransport, @unchecked Sendable {
    struct Page {
        var texts: [[String: Any]] = []
        var frames: [Frame] = []
        var held: [([UInt8], Bool)] = []
        var isHeld = false
        var handled = 0
        var closed = false
    }

    /// A binary frame: its header and image bytes.
    struct Frame {
        let header: [String: Any]
        let image: [UInt8]
        var kind: String { header["kind"] as? String ?? "" }
        var batch: Int { header["batch"] as? Int ?? -1 }
        var sequence: Int { header["seq"] as? Int ?? -1 }
    }

    private let lock = NSLock()
    private var pages: [Int: Page] = [:]
    weak var studio: Studio?

    func send(_ id: Int, _ data: [UInt8], binary: Bool) {
        lock.withLock {
            if pages[id, default: Page()].isHeld {
                pages[id]!.held.append((data, binary))
            } else {
                deliver(id, data, binary)
            }
        }
    }

    private func deliver(_ id: Int, _ data: [UInt8], _ binary: Bool) {
        if binary {
            precondition(Array(data.prefix(4)) == Array("FRM1".utf8), "binary messages are frames")
            let n = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
            let header = (try? JSONSerialization.jsonObject(with: Data(data[8..<(8 + n)]))) as? [String: Any] ?? [:]
            pages[id, default: Page()].frames.append(Frame(header: header, image: Array(data[(8 + n)...])))
        } else {
            let object = (try? JSONSerialization.jsonObject(with: Data(data))) as? [String: Any] ?? ["unparsed": true]
            pages[id, default: Page()].texts.append(object)
        }
    }

    func pending(_ id: Int) -> Int { lock.withLock { pages[id]?.held.count ?? 0 } }
    func close(_ id: Int) { lock.withLock { pages[id, default: Page()].closed = true } }
    func handled(_ id: Int) { lock.withLock { pages[id, default: Page()].handled += 1 } }

    /// Stops delivering to a page (its messages pile up as pending).
    func hold(_ id: Int) { lock.withLock { pages[id, default: Page()].isHeld = true } }

    /// Delivers what piled up and tells the studio the page's queue has drained.
    func release(_ id: Int) {
        lock.withLock {
            pages[id, default: Page()].isHeld = false
            for (data, binary) in pages[id]!.held { deliver(id, data, binary) }
            pages[id]!.held = []
        }
        studio?.webSocketDrained(id)
    }

    /// A copy of what a page has received (made under the lock: never sharing storage with the
    /// arrays the studio's threads append to).
    func page(_ id: Int) -> Page {
        lock.withLock {
            guard let p = pages[id] else { return Page() }
            var copy = Page()
            copy.texts = p.texts.map { $0 }
            copy.frames = p.frames.map { $0 }
            copy.held = p.held.map { $0 }
            copy.isHeld = p.isHeld
            copy.handled = p.handled
            copy.closed = p.closed
            return copy
        }
    }
    func texts(_ id: Int, type: String) -> [[String: Any]] { page(id).texts.filter { $0["type"] as? String == type } }
    func errors(_ id: Int) -> [String] { texts(id, type: "error").compactMap { $0["message"] as? String } }
    func clear(_ id: Int) {
        lock.withLock {
            pages[id]?.texts = []; pages[id]?.frames = []
        }
    }
}

/// A studio on a fresh document of a real photo, driven in-process.
final class StudioHarness: @unchecked Sendable {
    let folder: URL
    let document: Document
    let studio: Studio
    let transport = RecordingTransport()
    private let logLock = NSLock()
    private var logLines: [String] = []

    init(photo: String = "rocket.jpg", limits: StudioLimits = StudioLimits()) throws {
        folder = try Fixtures.temporaryFolder("studio")
        document = try Document.create(
            at: folder.appendingPathComponent("s.sfumato").path,
            image: try ImageIO.readBytes(path: Fixtures.path(photo)), name: photo)
        let box = _LogBox()
        studio = try Studio(document: document, folder: folder, limits: limits) { box.append($0) }
        box.harness = self
        studio.transport = transport
        transport.studio = studio
    }

    /// A copy of the log in a buffer of its own: a reader sharing the recorder's buffer races its
    /// next append (ThreadSanitizer saw the copy-on-write uniqueness check and the read meet).
    var log: [String] { logLock.withLock { logLines.map { $0 } } }
    fileprivate func record(_ line: String) { logLock.withLock { logLines.append(line) } }

    /// A page connects and says hello (viewport in CSS pixels).
    func connect(_ id: Int, width: Int = 800, height: Int = 600, acks: Bool = false) {
        studio.webSocketOpened(id)
        send(id, ["type": "hello", "viewport": ["width": width, "height": height], "dpr": 1, "acks": acks])
    }

    /// Sends a JSON message (an object, or raw text).
    func send(_ id: Int, _ object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        studio.webSocketMessage(id, .text([UInt8](data)))
    }

    func sendRaw(_ id: Int, _ text: String) { studio.webSocketMessage(id, .text(Array(text.utf8))) }

    func settle() { studio.settle() }

    /// A pen stroke of `count` samples along a horizontal line, in batches of `perBatch`.
    func stroke(
        _ id: Int, stroke: Int, firstBatch: Int, y: Double = 200, from x0: Double = 100, to x1: Double = 500,
        count: Int = 40, perBatch: Int = 8, pressure: Double = 0.6
    ) {
        let samples = (0..<count).map { k -> [String: Any] in
            [
                "x": x0 + (x1 - x0) * Double(k) / Double(count - 1), "y": y, "pressure": pressure, "t": Double(k) * 4,
                "pointerType": "pen", "buttons": 1
            ]
        }
        var batch = firstBatch
        for start in stride(from: 0, to: count, by: perBatch) {
            let phase = start == 0 ? "down" : "move"
            send(
                id,
                [
                    "type": "pen", "phase": phase, "stroke": stroke, "batch": batch,
                    "samples": Array(samples[start..<min(count, start + perBatch)])
                ])
            batch += 1
        }
        send(id, ["type": "pen", "phase": "up", "stroke": stroke, "batch": batch, "samples": []])
    }

    /// An HTTP request answered by the studio in-process (waiting up to a minute for renders).
    func call(_ method: HTTPMethod, _ path: String, _ query: [String: String] = [:], body: [UInt8] = []) -> HTTPResponse {
        let done = DispatchSemaphore(value: 0)
        let box = _ResponseBox()
        studio.handle(HTTPRequest(method: method, path: path, query: query, body: body)) {
            box.response = $0
            done.signal()
        }
        _ = done.wait(timeout: .now() + 60)
        return box.response!
    }
}

private final class _LogBox: @unchecked Sendable {
    weak var harness: StudioHarness?
    func append(_ line: String) { harness?.record(line) }
}
