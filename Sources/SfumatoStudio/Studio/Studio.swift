import Foundation
import Synchronization
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

/// The studio: one document, any number of pages. Pen samples come in over WebSockets, go
/// into the document (so nothing a page saw land is ever lost) and into each page's preview,
/// and changed regions of the preview go back out as frames.
///
/// Threads: the server calls in on its service thread; everything that touches the document or
/// studio state runs on `queue`, one message at a time taken from each page in turn (``_Inbox``),
/// so a page that floods the studio delays others by one message at most; each page's pixels are
/// made on its session's own serial queue, so pages render in parallel and a slow page never
/// holds up the pen.
public final class Studio: ServerDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "sfumato.studio")
    /// Where messages go out (the ``WebServer``; a recorder in tests). Set before serving.
    public var transport: (any MessageTransport)?
    /// The pairing pages' content (with `--lan`); set before the server starts.
    public var pairing: Pairing?
    public internal(set) var document: Document
    /// Where new documents go (photos opened from the page).
    let folder: URL
    /// Resource limits of the studio's own (see ``StudioLimits``).
    public let limits: StudioLimits
    var sessions: [Int: _Session] = [:]
    let inbox = _Inbox()
    // Studio-wide UI state (not part of the history).
    var mode = StudioMode.adjust
    var brush = BrushSettings(kind: .forcePen, color: "#336699")
    var keepStrokes = false
    /// PencilController parameters while a pen moves (committed on pen up).
    var liveAdjust: PencilControllerParameters?
    /// Tone-curve levels while a slider moves (committed on release).
    var liveCurve: [Double]?
    var fadeTimer: DispatchSourceTimer?
    /// Whether ForceSketch's fade is under way (with either clock).
    var fading = false
    /// What paces ForceSketch's fade: the display's rate, or ``stepFade()`` calls (tests, where a
    /// loaded machine must not decide how many frames a fade sends). Set before strokes arrive.
    public var fadeClock = FadeClock.display
    /// `GET /api/document`'s answer, made on `queue` whenever the document or the studio's state
    /// changes, so the request is answered at once, however busy `queue` is.
    let published = Mutex<[UInt8]>([])
    let renders: _RenderBudget
    /// Camera frames being filtered (off `queue`).
    let cameraWork = DispatchGroup()
    let log: (String) -> Void
    let web: URL
    let photos: URL

    /// A studio on `document`.
    public init(
        document: Document, folder: URL, limits: StudioLimits = StudioLimits(),
        log: @escaping (String) -> Void = { print($0) }
    ) throws {
        self.document = document
        self.folder = folder
        self.limits = limits
        self.log = log
        renders = _RenderBudget(bytes: limits.renderMemoryBytes, waiting: limits.rendersWaiting)
        guard let resources = Bundle.module.resourceURL else { throw SfumatoError.io("the studio's web files are missing") }
        web = resources.appendingPathComponent("web")
        photos = resources.appendingPathComponent("photos")
        loadSettings()
        publishDocument()
    }

    deinit { fadeTimer?.cancel() }

    /// Mode and brush as the document last had them.
    func loadSettings() {
        if let m = document.setting("mode").flatMap(StudioMode.init(rawValue:)) { mode = m }
        if let b = document.setting("brush"), let settings = try? JSONDecoder().decode(BrushSettings.self, from: Data(b.utf8)),
            parseColor(settings.color) != nil
        {
            brush = settings
        }
        if let k = document.setting("keepStrokes") { keepStrokes = k == "true" }
    }

    func saveSettings() {
        do {
            try document.setSetting("mode", mode.rawValue)
            try document.setSetting("brush", String(decoding: try JSONEncoder().encode(brush), as: UTF8.self))
            try document.setSetting("keepStrokes", keepStrokes ? "true" : "false")
        } catch {
            log("saving settings: \(error)")
        }
    }

    /// The bundled sample photo (public domain).
    public static var samplePhoto: URL? { Bundle.module.resourceURL?.appendingPathComponent("photos/sample.jpg") }

    // MARK: - ServerDelegate (the server's thread)

    public func webSocketOpened(_ id: Int) {
        queue.async {
            self.sessions[id] = _Session(id: id)
            self.log("page \(id) connected")
        }
    }

    public func webSocketClosed(_ id: Int) {
        // After the page's last messages, in order: a stroke ends at its last sample that arrived.
        inbox.post(id, .closed, on: queue) { self.take($0, $1) }
    }

    public func webSocketMessage(_ id: Int, _ message: InboundMessage) {
        inbox.post(id, .message(message), on: queue) { self.take($0, $1) }
    }

    public func webSocketDrained(_ id: Int) {
        queue.async {
            guard let s = self.sessions[id] else { return }
            s.work.async {
                // A page that does not acknowledge frames gets its next one once the last has gone out.
                if s.waitingForOutbox {
                    s.waitingForOutbox = false
                    self.schedule(s, dirty: .zero, batch: s.batch)
                }
            }
        }
    }

    /// Waits until the studio has handled every message received so far and every page's
    /// pictures and frames are made (for tests, and before reading the document from outside).
    public func settle() {
        func round() {
            queue.sync {}
            let pages = queue.sync { Array(sessions.values) }
            // A page's work may schedule more of its own work once: twice through each queue.
            for _ in 0..<2 { for s in pages { s.work.sync {} } }
        }
        while inbox.count > 0 { round() }
        round()
        cameraWork.wait()
        round()
    }

    /// Whether ForceSketch's fade is under way.
    public var isFading: Bool { queue.sync { fading } }

    /// Holds the studio's queue (as a long task would) until the returned closure is called:
    /// messages arriving meanwhile wait in the inbox. For tests of what happens behind a busy
    /// queue, which must not depend on how fast the machine drains it.
    public func holdQueue() -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0), held = DispatchSemaphore(value: 0)
        queue.async {
            held.signal()
            gate.wait()
        }
        held.wait()
        return { gate.signal() }
    }

    /// One message from the inbox (on `queue`).
    func take(_ id: Int, _ item: _Inbox.Item) {
        switch item {
        case .closed:
            guard let s = sessions.removeValue(forKey: id) else { return }
            // A page that leaves mid-stroke: the stroke ends at its last committed sample.
            if s.stroke != nil { endStroke(s) }
            if s.penDown && s.hold != .off { commitAdjust() }
            s.work.async {
                s.preview = nil
                // A page's preview is tens of megabytes: give them back to the system now.
                _returnFreeMemory()
            }
            log("page \(id) disconnected")
            publishDocument()
        case .message(let inbound):
            defer { transport?.handled(id) }
            guard let s = sessions[id] else { return }
            switch inbound {
            case .binary(let bytes):
                cameraFrame(s, bytes)
            case .tooLarge(let bytes, let binary):
                let limit = binary ? "camera frames" : "messages"
                refuse(s, "a \(bytes)-byte message was refused: \(limit) are limited in size")
            case .text(let bytes):
                do {
                    try message(s, try ClientMessage.decode(bytes))
                } catch let e as ProtocolError {
                    refuse(s, e.message)
                } catch {
                    refuse(s, "\(error)")
                }
            }
        }
    }

    /// Answers a message that could not be taken, and logs it.
    func refuse(_ s: _Session, _ text: String) {
        log("page \(s.id): \(text)")
        send(s, .error(text))
    }

    func send(_ s: _Session, _ message: ServerMessage) {
        transport?.send(s.id, message.encoded(), binary: false)
    }

    func broadcastState() {
        let doc = publishDocument()
        let message = ServerMessage.state(document: doc).encoded()
        for s in sessions.values { transport?.send(s.id, message, binary: false) }
    }

    /// Makes `GET /api/document`'s answer from the current state (on `queue`); returns its bytes.
    @discardableResult
    func publishDocument() -> [UInt8] {
        let bytes = [UInt8]((try? JSONSerialization.data(withJSONObject: documentJSON(), options: [.sortedKeys])) ?? Data("{}".utf8))
        published.withLock { $0 = bytes }
        return bytes
    }
}

/// The studio's own resource policy (the server's is ``ServerLimits``).
public struct StudioLimits: Sendable {
    /// Largest preview, in pixels (a 4K screen is 8.3 million): a page asking for more gets a
    /// preview scaled down to this.
    public var previewPixels = 8_388_608
    /// Largest sum of every page's preview pixels (about 1.2 GB of layers): later pages get
    /// smaller previews, never under 512x512 worth.
    public var allPreviewPixels = 25_165_824
    /// Memory that `GET /api/render` and `/api/export` may hold at once, in bytes; a render that
    /// would need more waits for others to finish.
    public var renderMemoryBytes = 1 << 30
    /// Renders waiting for memory; more are answered 503.
    public var rendersWaiting = 4
    /// Largest render, in output pixels.
    public var renderPixels = 200_000_000
    /// Largest photo a page may open (`POST /api/open`), in pixels.
    public var openPixels = 100_000_000

    public init() {}
}

/// Gives freed memory back to the system (glibc keeps freed pages of large arenas).
func _returnFreeMemory() {
    // glibc's malloc_trim, looked up at run time (malloc.h is not in the Glibc module).
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
