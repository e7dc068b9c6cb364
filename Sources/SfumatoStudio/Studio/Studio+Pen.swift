import Foundation
import SfumatoCore
import SfumatoDocument
import SfumatoInk

extension Studio {
    /// A pen batch: Adjust's parameters, or a stroke's samples into the document and the page's
    /// preview. Throws when the batch cannot be recorded (the caller refuses it to the page).
    func pen(_ s: _Session, _ message: ClientMessage.PenBatch) throws {
        let batch = message.batch
        if _trace { log(String(format: "pen batch %d received at %.1f", batch, _now())) }
        let list = Document.stored(message.samples.map(clampedToDocument))
        // Frames report the newest pen batch they include. A batch that changes the picture is
        // recorded by the same work block that changes it (so no frame claims samples it does not
        // show); any other batch (no samples, no held button) when this message is done.
        var batchRecorded = false
        defer { if !batchRecorded { s.work.async { s.batch = max(s.batch, batch) } } }
        let phase = message.phase
        if phase == .down { s.penDown = true }
        if phase.ends { s.penDown = false }
        publish(s)

        if mode == .adjust {
            if s.hold != .off, let last = list.last {
                var p = liveAdjust ?? document.state.adjust
                for sample in list { PencilController.update(&p, mode: s.hold, sample: sample) }
                liveAdjust = p
                let label = PencilController.label(p, mode: s.hold) ?? ""
                // While it draws, the page moves the pencil from its own samples: only the stroke's
                // start and end are worth a message (one less for the page to handle per batch).
                if phase != .move { send(s, .pencil(visible: !phase.ends, sample: last)) }
                refreshPictures(batch: batch, from: s, label: label)
                batchRecorded = true
            }
            if phase.ends {
                send(s, .pencil(visible: false, sample: nil))
                commitAdjust()
            }
            return
        }
        guard mode.draws else { return }
        if phase == .down || s.stroke == nil && !list.isEmpty && phase == .move {
            if s.stroke != nil { endStroke(s) }
            guard s.hello else { throw SfumatoError.invalidArgument("the page has not said hello yet") }
            // The preview's size is known here, before its pixels are made on the page's queue.
            let size = previewSize(s)
            let scale = Double(size.width) / Double(max(document.width, 1))
            let layer: LayerKind = mode == .shade ? .shade : .sketch
            var settings = brush
            // Shade offers pencil, pen and eraser; Sketch force pen, pen and eraser.
            if mode == .shade {
                if ![.pencil, .pen, .eraser].contains(brush.kind) { settings.kind = .pencil }
            } else if ![.forcePen, .pen, .eraser].contains(brush.kind) {
                settings.kind = .forcePen
            }
            if list.first?.isEraser == true { settings.kind = .eraser }
            let fades = mode == .sketch && !keepStrokes && settings.kind != .eraser
            let id = try document.beginStroke(layer: layer, brush: settings, fades: fades)
            let renderer = StrokeRenderer(settings: settings, scale: scale, clip: Rect(width: size.width, height: size.height))
            s.stroke = (id, message.stroke, layer, renderer)
            publish(s)
            stopFade()
        }
        guard let stroke = s.stroke else { return }
        if !list.isEmpty {
            try document.appendSamples(stroke: stroke.document, list)
            if mode == .shade, let last = list.last { send(s, .threshold(below: Pencil.shades(last))) }
            s.work.async {
                let dirty = stroke.renderer.append(list)
                self.schedule(s, dirty: dirty, batch: batch)
            }
            batchRecorded = true
        }
        if phase.ends { endStroke(s) }
    }

    /// A sample moved inside the document grown by its own size on every side: past that a
    /// stroke is off the picture anyway, and the rasteriser never walks absurd distances.
    func clampedToDocument(_ sample: PenSample) -> PenSample {
        let side = Double(max(document.width, document.height, 1))
        var s = sample
        s.x = min(max(s.x, -side), Double(document.width) + side)
        s.y = min(max(s.y, -side), Double(document.height) + side)
        return s
    }

    /// Ends a page's stroke: durable in the document, composited once into every page's layer.
    func endStroke(_ s: _Session) {
        guard let stroke = s.stroke else { return }
        s.stroke = nil
        do { try document.endStroke(stroke.document) } catch { log("ending stroke: \(error)") }
        let state = visibleState
        guard let stored = state.strokes.first(where: { $0.id == stroke.document }) else { return }
        let fades = stored.stroke.fades
        s.work.async {
            // In the same block as the commit, so no frame shows the stroke neither live nor in its layer.
            if s.view.active === stroke.renderer { s.view.active = nil }
            guard let preview = s.preview else { return }
            let dirty = stroke.renderer.finish().union(stroke.renderer.bounds)
            let area = (fades ? preview.fading : (stroke.layer == .shade ? preview.shade : preview.sketch)).commit(stroke.renderer)
            if fades { preview.fadingBounds = preview.fadingBounds.union(area) } else { preview.keptBounds = preview.keptBounds.union(area) }
            if !fades { preview.inkedStrokes.insert(stored.id) }
            self.schedule(s, dirty: dirty, batch: s.batch)
        }
        // The renderer's tiles go back to the pool on the queue that drew them, after the commit
        // (even with no preview to commit to), never in a deinit on this thread.
        s.work.async { stroke.renderer.discard() }
        // Other pages draw the finished stroke at their own scale: on top of what they have when
        // it is the newest stroke there (the usual case), otherwise their layers are redrawn in
        // document order once, when their next frame goes out.
        for other in sessions.values where other.id != s.id {
            other.work.async {
                guard let p = other.preview else { return }
                if fades {
                    let r = p.fading.draw(stored.stroke)
                    p.fadingBounds = p.fadingBounds.union(r)
                    self.schedule(other, dirty: r, batch: other.batch)
                } else if !other.pendingInk, p.inkedStrokes.allSatisfy({ $0 < stored.id }) {
                    let r = (stored.layer == .shade ? p.shade : p.sketch).draw(stored.stroke)
                    p.keptBounds = p.keptBounds.union(r)
                    p.inkedStrokes.insert(stored.id)
                    self.schedule(other, dirty: r, batch: other.batch)
                } else {
                    other.pendingState = other.pendingState ?? state
                    other.pendingInk = true
                    self.schedule(other, dirty: p.bounds, batch: other.batch, full: true)
                }
            }
        }
        if fades { startFade() }
        broadcastState()
    }

    func commitAdjust() {
        guard let p = liveAdjust else { return }
        liveAdjust = nil
        do {
            if p != document.state.adjust { try document.apply(.adjust(p)) }
        } catch {
            log("adjust: \(error)")
        }
        broadcastState()
        refreshPictures()
    }

    func undoRedo(_ undo: Bool) {
        do {
            if undo { try document.undo() } else { try document.redo() }
        } catch { log("\(undo ? "undo" : "redo"): \(error)") }
        liveAdjust = nil
        liveCurve = nil
        broadcastState()
        refreshPictures(ink: true)
    }
}
