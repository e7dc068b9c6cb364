import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

extension Studio {
    /// Acts on one decoded message from a page (on `queue`).
    func message(_ s: _Session, _ m: ClientMessage) throws {
        switch m {
        case .hello(let hello):
            s.viewport = (hello.viewport.width, hello.viewport.height)
            s.dpr = hello.viewport.dpr
            let first = !s.hello
            s.hello = true
            s.work.async {
                s.acks = hello.acks
                s.rawRegions = hello.rawRegions
            }
            resize(s)
            if first { send(s, .state(document: publishDocument())) }
        case .viewport(let v):
            s.viewport = (v.width, v.height)
            s.dpr = v.dpr
            resize(s)
        case .mode(let m):
            mode = m
            saveSettings()
            broadcastState()
        case .hold(let m):
            if m == .off && s.hold != .off { commitAdjust() }
            s.hold = m
            publish(s)
            let label = PencilController.label(liveAdjust ?? document.state.adjust, mode: m)
            s.work.async {
                // Sent from the work queue, after any frame already on its way with the old pair's label.
                s.pendingLabel = nil
                self.send(s, .label(label))
                if m != .off { do { try s.preview?.prepareDraft() } catch { self.log("draft: \(error)") } }
            }
            if m == .off { send(s, .pencil(visible: false, sample: nil)) }
        case .pen(let batch):
            do {
                try pen(s, batch)
            } catch {
                // Nothing of a batch that could not be recorded is shown as drawn: the page hears why.
                let reason = (error as? SfumatoError)?.description ?? "\(error)"
                log("page \(s.id): pen batch \(batch.batch) refused: \(reason)")
                send(s, .refused(stroke: batch.stroke, batch: batch.batch, reason: reason))
            }
        case .curve(let levels, let final):
            if final {
                liveCurve = nil
                if levels != document.state.curve { try document.apply(.curve(levels)) }
                broadcastState()
            } else {
                liveCurve = levels
            }
            refreshPictures()
        case .preset(let i):
            var reference: String?
            if GalleryPreset.all[i].needsReference {
                reference = try document.storeImage(
                    try ImageIO.readBytes(path: photos.appendingPathComponent("reference.jpg").path),
                    name: "reference.jpg")
            }
            if i != document.state.preset { try document.apply(.preset(i, reference: reference)) }
            broadcastState()
            refreshPictures()
        case .brush(let change):
            var b = brush
            if let kind = change.kind { b.kind = kind }
            if let color = change.color { b.color = color }
            if let curve = change.pressureCurve { b.pressureCurve = curve }
            if let k = change.keepStrokes { keepStrokes = k }
            brush = b
            saveSettings()
            broadcastState()
        case .undo:
            undoRedo(true)
        case .redo:
            undoRedo(false)
        case .beforeAfter(let on):
            s.beforeAfter = on
            publish(s)
            refresh(s)
        case .camera(let on):
            s.cameraOn = on
            if !on { refresh(s) }
        case .drawn:
            // The page drew (or skipped) a preview frame: room for the next one.
            if _trace { log(String(format: "drawn received at %.1f", _now())) }
            s.work.async {
                s.unacknowledged = max(0, s.unacknowledged - 1)
                if s.waitingForAck {
                    s.waitingForAck = false
                    self.schedule(s, dirty: .zero, batch: s.batch)
                }
            }
        case .stats(let f):
            log("page \(s.id) latency: count \(f.count), p50 \(f.p50) ms, p95 \(f.p95) ms, p99 \(f.p99) ms")
        }
    }
}
