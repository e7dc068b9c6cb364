import Foundation
import SfumatoCore
import SfumatoDocument
import SfumatoInk

/// One connected page.
///
/// Two threads share it, each with its own fields: the studio's queue owns the page's input state
/// (viewport, held button, stroke in progress, pen down); the page's `work` queue owns its pixels
/// and frame scheduling. What the frames need of the input state reaches `work` as a copy
/// (``WorkView``, sent by ``Studio/publish(_:)``), never by reading the other side's fields.
final class _Session: @unchecked Sendable {
    let id: Int
    /// Serial queue for this page's pixels (preview caches, rasterising, frames).
    let work: DispatchQueue

    /// The input state the frames need, as `work` sees it.
    struct WorkView {
        /// The stroke in progress, drawn over the layers until it ends.
        var active: StrokeRenderer?
        /// A pen is down with an Adjust pair held: frames go out as drafts.
        var dragging = false
        var beforeAfter = false
    }
    /// (on `work`)
    var view = WorkView()

    // Input state (on the studio's queue).
    var viewport = (width: 1280, height: 800)
    var dpr = 1.0
    var preview: _Preview?
    /// The preview's size in pixels, as last decided (on the studio's queue).
    var previewPixels = 0
    var hello = false
    /// Adjust's spring-loaded mode while a button is held.
    var hold: AdjustMode = .off
    /// The stroke in progress: document stroke id, page stroke id, layer, renderer (its renderer is
    /// drawn into on `work`).
    var stroke: (document: Int, page: Int, layer: LayerKind, renderer: StrokeRenderer)?
    var penDown = false
    var lastPenPage = -1
    var beforeAfter = false
    var cameraOn = false
    // Frame scheduling (on `work`): regions waiting to be sent, and the newest pen batch in them.
    var dirty = Rect.zero
    var fullFrame = false
    var batch = 0
    var frameScheduled = false
    var sequence = 0
    /// Flow control (pages that acknowledge frames): preview frames sent but not yet drawn, and
    /// whether a frame is held back until one is.
    var acks = false
    /// Whether small regions and drafts go out as raw RGBA instead of JPEG (a page on this machine asks:
    /// on loopback the bytes cost nothing, and the page draws them without a decoder).
    var rawRegions = false
    /// The largest region sent raw, in pixels (64 KB of RGBA).
    static let rawRegionPixels = 16384
    var unacknowledged = 0
    var waitingForAck = false
    /// A page that does not acknowledge frames: a frame is held back while one is still queued
    /// to it, and goes once the server reports the queue empty (latest wins, no backlog).
    var waitingForOutbox = false
    static let framesInFlight = 2
    // Camera (guarded by cameraLock): the newest frame waiting, and how many are being filtered.
    let cameraLock = NSLock()
    var cameraFrame: ([UInt8], UInt32)?
    var cameraBusy = 0
    // Picture refreshes (on `work`): the newest state wins.
    var pendingState: DocumentState?
    var pendingInk = false
    /// Adjust's label for the pen's newest batch (on `work`): it rides in the next preview frame's
    /// header, so label and picture change together and the page handles one message, not two.
    var pendingLabel: String?

    init(id: Int) {
        self.id = id
        work = DispatchQueue(label: "sfumato.session.\(id)")
    }
}

extension _Session {
    /// Moves the pending Adjust label into a preview frame's header (on `work`).
    func takeLabel(into header: inout FrameHeader) {
        guard let label = pendingLabel else { return }
        header.label = label
        pendingLabel = nil
    }
}
