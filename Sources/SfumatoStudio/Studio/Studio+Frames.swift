import Foundation
import SfumatoCore
import SfumatoDocument
import SfumatoInk

extension Studio {
    /// The state pages should see: the document with live (uncommitted) parameters.
    var visibleState: DocumentState {
        var st = document.state
        if let a = liveAdjust { st.adjust = a }
        if let c = liveCurve { st.curve = c }
        return st
    }

    /// Sends `work` the input state its frames need (call on `queue` after changing it, before
    /// queueing work that depends on it).
    func publish(_ s: _Session) {
        let v = _Session.WorkView(active: s.stroke?.renderer, dragging: s.penDown && s.hold != .off, beforeAfter: s.beforeAfter)
        s.work.async { s.view = v }
    }

    /// A page's preview size: the photo fitted into its viewport in device pixels, never larger
    /// than the photo, than ``StudioLimits/previewPixels``, or than what the other pages leave of
    /// ``StudioLimits/allPreviewPixels``.
    func previewSize(_ s: _Session) -> (width: Int, height: Int) {
        let w = Double(max(document.width, 1)), h = Double(max(document.height, 1))
        let others = sessions.values.filter { $0 !== s && $0.hello }.reduce(0) { $0 + $1.previewPixels }
        let allowed = max(min(limits.previewPixels, limits.allPreviewPixels - others), min(1 << 18, limits.previewPixels))
        let cap = (Double(allowed) / (w * h)).squareRoot()
        let scale = min(Double(s.viewport.width) * s.dpr / w, Double(s.viewport.height) * s.dpr / h, 1, cap)
        let rounded = (max(1, Int((w * scale).rounded())), max(1, Int((h * scale).rounded())))
        // Rounding up must not take a capped preview past its cap.
        if rounded.0 * rounded.1 > allowed { return (max(1, Int(w * scale)), max(1, Int(h * scale))) }
        return rounded
    }

    /// (Re)builds a page's preview for its viewport and sends a full frame.
    func resize(_ s: _Session) {
        let doc = document
        let (pw, ph) = previewSize(s)
        s.previewPixels = pw * ph
        let state = visibleState
        s.work.async {
            do {
                if s.preview?.width != pw || s.preview?.height != ph {
                    s.preview = nil  // the old one's memory goes before the new one's is taken
                    s.preview = try _Preview(width: pw, height: ph, documentWidth: doc.width)
                }
                try s.preview!.update(document: doc, state: state, beforeAfter: s.view.beforeAfter)
                s.preview!.updateInk(state)
                self.schedule(s, dirty: s.preview!.bounds, batch: s.batch, full: true)
            } catch {
                self.log("preview: \(error)")
            }
        }
        publishDocument()
    }

    /// Every page's picture after a parameter or history change (latest wins: queued updates
    /// collapse into one render per page).
    /// `batch` and `label`: the pen batch of `source` that made this change, and Adjust's label for it.
    func refreshPictures(batch: Int? = nil, from source: _Session? = nil, label: String? = nil, ink: Bool = false) {
        let state = visibleState
        for s in sessions.values {
            s.work.async {
                guard let p = s.preview else { return }
                // Lazy: the picture is brought up to date only when a frame actually goes out, so a
                // page still decoding the last frame costs no rendering (latest wins).
                s.pendingState = state
                if s === source {
                    // Batch and label change with the state they belong to, in one block: a frame
                    // never claims a pen batch, or shows a label, newer than its picture.
                    if let batch { s.batch = max(s.batch, batch) }
                    if let label { s.pendingLabel = label }
                }
                if ink { s.pendingInk = true }
                self.schedule(s, dirty: p.bounds, batch: s.batch, full: true)
            }
        }
    }

    func refresh(_ s: _Session) {
        let state = visibleState
        let doc = document
        s.work.async {
            guard let p = s.preview else { return }
            do { try p.update(document: doc, state: state, beforeAfter: s.view.beforeAfter) } catch { self.log("render: \(error)") }
            self.schedule(s, dirty: p.bounds, batch: s.batch, full: true)
        }
    }

    /// Marks a region of a page dirty and sends one frame for everything dirty so far (runs on
    /// the session's queue; frames already queued on the way out make later ones merge).
    func schedule(_ s: _Session, dirty: Rect, batch: Int, full: Bool = false) {
        s.dirty = s.dirty.union(dirty)
        s.batch = max(s.batch, batch)
        if full { s.fullFrame = true }
        if s.frameScheduled { return }
        s.frameScheduled = true
        s.work.async {
            s.frameScheduled = false
            guard let p = s.preview, !s.dirty.isEmpty || s.fullFrame else { return }
            // A page that acknowledges frames gets at most two in flight; one that does not, one
            // queued at a time. Meanwhile newer changes gather here and go out as one frame
            // (latest wins, no queue builds up).
            if s.acks && s.unacknowledged >= _Session.framesInFlight {
                if _trace { self.log(String(format: "frame waits for an ack at %.1f", _now())) }
                s.waitingForAck = true
                return
            }
            if !s.acks && (self.transport?.pending(s.id) ?? 0) > 0 {
                s.waitingForOutbox = true
                return
            }
            // While a pen drags the colour parameters, send reduced drafts (a third of each side); the full frame comes
            // when the pen lifts (commitAdjust refreshes).
            if s.fullFrame, s.view.dragging, let st = s.pendingState {
                s.pendingState = nil
                s.dirty = .zero
                s.fullFrame = false
                self.sendDraft(s, p, st)
                return
            }
            if let st = s.pendingState {
                s.pendingState = nil
                let t0 = _now()
                do {
                    try p.update(document: self.document, state: st, beforeAfter: s.view.beforeAfter)
                    if s.pendingInk { p.updateInk(st); s.pendingInk = false }
                } catch { self.log("render: \(error)") }
                if _trace { self.log(String(format: "picture %.1f ms", _now() - t0)) }
            }
            let region = s.fullFrame ? p.bounds : s.dirty.insetBy(dx: -2, dy: -2).intersection(p.bounds)
            s.dirty = .zero
            s.fullFrame = false
            let active = s.view.active.map { [$0] } ?? []
            let t0 = _now()
            p.compose(region, active: active, showInk: !s.view.beforeAfter)
            let t1 = _now()
            let raw = s.rawRegions && region.width * region.height <= _Session.rawRegionPixels
            guard let image = raw ? p.rawPixels(region) : p.jpeg(region) else { return }
            if _trace {
                self.log(
                    String(
                        format: "frame %d batch %d: %dx%d compose %.1f ms, %@ %.1f ms (%d bytes), %d unacknowledged",
                        s.sequence + 1, s.batch, region.width, region.height, t1 - t0, raw ? "raw" : "jpeg", _now() - t1,
                        image.count, s.unacknowledged))
            }
            s.sequence += 1
            if s.acks { s.unacknowledged += 1 }
            var header = FrameHeader(
                sequence: s.sequence, batch: s.batch, kind: .preview,
                region: (region.x, region.y, region.width, region.height),
                preview: (p.width, p.height), format: raw ? .rgba : .jpeg)
            s.takeLabel(into: &header)
            self.transport?.send(s.id, header.message(image), binary: true)
        }
    }

    /// One draft frame of Adjust's drag (on the session's queue).
    func sendDraft(_ s: _Session, _ p: _Preview, _ st: DocumentState) {
        do {
            let t0 = _now()
            if p.base == nil { try p.update(document: document, state: st, beforeAfter: s.view.beforeAfter) }
            // A page on this machine takes the draft's pixels as they are: no JPEG to encode
            // here or to decode there, for about 1.5 ms of CPU a draft (see docs/STUDIO-PROTOCOL.md).
            guard let draft = try p.renderDraft(document: document, state: st, beforeAfter: s.view.beforeAfter),
                let bytes = s.rawRegions ? _rawBytes(draft, Rect(width: draft.width, height: draft.height)) : _encodeJPEG(draft, quality: 80)
            else { return }
            if _trace { log(String(format: "draft frame %d batch %d: %.1f ms (%d bytes)", s.sequence + 1, s.batch, _now() - t0, bytes.count)) }
            s.sequence += 1
            if s.acks { s.unacknowledged += 1 }
            // Raw rows are the draft's own size; the frame still stands for the whole preview.
            var header = FrameHeader(
                sequence: s.sequence, batch: s.batch, kind: .preview,
                region: (0, 0, s.rawRegions ? draft.width : p.width, s.rawRegions ? draft.height : p.height),
                preview: (p.width, p.height), format: s.rawRegions ? .rgba : .jpeg, draft: true)
            s.takeLabel(into: &header)
            transport?.send(s.id, header.message(bytes), binary: true)
            if _trace { log(String(format: "draft frame %d sent at %.1f", s.sequence, _now())) }
        } catch { log("draft: \(error)") }
    }
}
