import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

/// The studio: one document, any number of pages. Pen samples come in over WebSockets, go
/// into the document (so nothing a page saw land is ever lost) and into each page's preview,
/// and changed regions of the preview go back out as JPEG frames.
///
/// Threads: the server calls in on its service thread; everything that touches the document or
/// studio state runs on `queue`; each page's pixels are made on its session's own serial queue,
/// so pages render in parallel and a slow page never holds up the pen.
public final class Studio: ServerDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "sfumato.studio")
    /// Set once the server is listening.
    public var server: WebServer?
    public private(set) var document: Document
    /// The pairing token (--lan), or nil.
    let token: String?
    /// Where new documents go (photos opened from the page).
    let folder: URL
    var sessions: [Int: _Session] = [:]
    // Studio-wide UI state (not part of the history).
    var mode = "adjust"
    var brush = BrushSettings(kind: .forcePen, color: "#336699")
    var keepStrokes = false
    /// PencilController parameters while a pen moves (committed on pen up).
    var liveAdjust: PencilControllerParameters?
    /// Tone-curve levels while a slider moves (committed on release).
    var liveCurve: [Double]?
    var fadeTimer: DispatchSourceTimer?
    let log: (String) -> Void
    let web: URL
    let photos: URL

    /// A studio on `document`; `token` set means every request must carry it.
    public init(document: Document, token: String?, folder: URL, log: @escaping (String) -> Void = { print($0) }) throws {
        self.document = document
        self.token = token
        self.folder = folder
        self.log = log
        guard let resources = Bundle.module.resourceURL else { throw SfumatoError.io("the studio's web files are missing") }
        web = resources.appendingPathComponent("web")
        photos = resources.appendingPathComponent("photos")
        loadSettings()
    }

    /// Mode and brush as the document last had them.
    func loadSettings() {
        if let m = document.setting("mode"), ["adjust", "sketch", "shade", "curve", "gallery"].contains(m) { mode = m }
        if let b = document.setting("brush"), let settings = try? JSONDecoder().decode(BrushSettings.self, from: Data(b.utf8)) {
            brush = settings
        }
        if let k = document.setting("keepStrokes") { keepStrokes = k == "true" }
    }

    func saveSettings() {
        do {
            try document.setSetting("mode", mode)
            try document.setSetting("brush", String(decoding: try JSONEncoder().encode(brush), as: UTF8.self))
            try document.setSetting("keepStrokes", keepStrokes ? "true" : "false")
        } catch {
            log("saving settings: \(error)")
        }
    }

    /// The bundled sample photo (public domain).
    public static var samplePhoto: URL? { Bundle.module.resourceURL?.appendingPathComponent("photos/sample.jpg") }

    // MARK: - ServerDelegate

    public func authorize(path: String, query: [String: String]) -> Bool {
        guard let token else { return true }
        return query["token"] == token
    }

    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        switch (request.method, request.path) {
        case ("GET", "/"), ("GET", "/index.html"):
            respond(staticFile("index.html"))
        case ("GET", let p) where p.hasPrefix("/static/"):
            respond(staticFile(String(p.dropFirst("/static/".count))))
        case ("GET", "/api/document"):
            queue.async { respond(.json(self.documentJSON())) }
        case ("GET", "/api/curve"):
            let levels = (request.query["levels"] ?? "").split(separator: ",").compactMap { Double($0) }
            guard levels.count == 5, levels.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else {
                respond(.error(400, "levels must be five numbers 0...1 separated by commas"))
                return
            }
            respond(.json(["samples": ToneCurve(levels: levels).spline.samples(count: 256)]))
        case ("GET", "/api/render"), ("GET", "/api/export"):
            let export = request.path == "/api/export"
            var requested: Int?
            if let w = request.query["width"] {
                guard let v = Int(w), v >= 1, v <= 20000 else { respond(.error(400, "width must be 1...20000")); return }
                requested = v
            }
            let width = requested
            let requestedFormat = request.query["format"] ?? "jpeg"
            guard ["jpeg", "jpg", "png"].contains(requestedFormat) else {
                respond(.error(400, "format must be jpeg or png, not \(requestedFormat)"))
                return
            }
            let format = export ? (requestedFormat == "png" ? ImageFormat.png : .jpeg) : .png
            queue.async {
                let doc = self.document
                DispatchQueue.global().async {
                    do {
                        let bitmap = try doc.render(width: width)
                        var options = EncodeOptions(quality: 92, pngCompressionLevel: 3)
                        options.chromaSubsampling = .s444
                        let bytes = try ImageIO.encode(bitmap, format: format, options: options)
                        var headers: [(String, String)] = [("cache-control", "no-store")]
                        if export {
                            let name = (doc.name as NSString).deletingPathExtension + "-sfumato." + (format == .png ? "png" : "jpg")
                            headers.append(("content-disposition", "attachment; filename=\"\(name)\""))
                        }
                        respond(HTTPResponse(contentType: format == .png ? "image/png" : "image/jpeg", body: bytes, headers: headers))
                    } catch {
                        respond(.error(500, "\(error)"))
                    }
                }
            }
        case ("POST", "/api/undo"), ("POST", "/api/redo"):
            let undo = request.path == "/api/undo"
            queue.async {
                self.undoRedo(undo)
                respond(.json(self.documentJSON()))
            }
        case ("POST", "/api/open"):
            queue.async { respond(self.openPhoto(request.body, name: request.query["name"] ?? "photo")) }
        default:
            respond(.error(404, "no such resource: \(request.method) \(request.path)"))
        }
    }

    public func webSocketOpened(_ id: Int, path: String, query: [String: String]) {
        queue.async {
            self.sessions[id] = _Session(id: id)
            self.log("page \(id) connected")
        }
    }

    public func webSocketClosed(_ id: Int) {
        queue.async {
            guard let s = self.sessions.removeValue(forKey: id) else { return }
            // A page that leaves mid-stroke: the stroke ends at its last committed sample.
            if s.stroke != nil { self.endStroke(s) }
            if s.penDown && s.hold != .off { self.commitAdjust() }
            self.log("page \(id) disconnected")
        }
    }

    public func webSocketMessage(_ id: Int, _ data: [UInt8], binary: Bool) {
        queue.async {
            guard let s = self.sessions[id] else { return }
            if binary {
                self.cameraFrame(s, data)
                return
            }
            do {
                guard let object = try JSONSerialization.jsonObject(with: Data(data)) as? [String: Any], let type = object["type"] as? String else {
                    throw StudioError("messages are JSON objects with a \"type\"")
                }
                try self.message(s, type, object)
            } catch {
                let text = (error as? StudioError)?.message ?? "malformed message (\(error.localizedDescription))"
                self.log("page \(id): \(text)")
                self.sendJSON(s, ["type": "error", "message": text])
            }
        }
    }

    struct StudioError: Error {
        let message: String
        init(_ m: String) { message = m }
    }

    // MARK: - Messages (on `queue`)

    func message(_ s: _Session, _ type: String, _ o: [String: Any]) throws {
        switch type {
        case "hello", "viewport":
            guard let v = o["viewport"] as? [String: Any], let w = number(v["width"]), let h = number(v["height"]),
                  w >= 1, h >= 1, w <= 20000, h <= 20000 else { throw StudioError("\(type) needs viewport {width, height}") }
            let dpr = min(max(number(o["dpr"]) ?? 1, 0.5), 4)
            s.viewport = (Int(w), Int(h))
            s.dpr = dpr
            let first = !s.hello
            s.hello = true
            if let acks = o["acks"] as? Bool { s.work.async { s.acks = acks } }
            if let raw = o["rawRegions"] as? Bool { s.work.async { s.rawRegions = raw } }
            resize(s)
            if first { sendJSON(s, ["type": "state", "document": documentJSON()]) }
        case "mode":
            guard let m = o["mode"] as? String, ["adjust", "sketch", "shade", "curve", "gallery"].contains(m) else {
                throw StudioError("mode must be adjust, sketch, shade, curve or gallery")
            }
            mode = m
            saveSettings()
            broadcastState()
        case "hold":
            let pair = o["pair"] as? String
            let m: AdjustMode = pair.flatMap(AdjustMode.init(rawValue:)) ?? .off
            if pair != nil && m == .off && pair != "off" { throw StudioError("hold pair must be hue-saturation, brightness-contrast, gamma-exposure or null") }
            if m == .off && s.hold != .off { commitAdjust() }
            s.hold = m
            let label = PencilController.label(liveAdjust ?? document.state.adjust, mode: m)
            s.work.async {
                // Sent from the work queue, after any frame already on its way with the old pair's label.
                s.pendingLabel = nil
                self.sendJSON(s, ["type": "label", "text": label as Any? ?? NSNull()])
                if m != .off { do { try s.preview?.prepareDraft() } catch { self.log("draft: \(error)") } }
            }
            if m == .off { sendJSON(s, ["type": "pencil", "visible": false]) }
        case "pen":
            try pen(s, o)
        case "curve":
            guard let l = o["levels"] as? [Any], l.count == 5 else { throw StudioError("curve needs five levels") }
            let levels = try l.map { v -> Double in
                guard let d = number(v), d.isFinite, d >= 0, d <= 1 else { throw StudioError("curve levels must be numbers 0...1") }
                return d
            }
            if o["final"] as? Bool == true {
                liveCurve = nil
                if levels != document.state.curve { try document.apply(.curve(levels)) }
                broadcastState()
            } else {
                liveCurve = levels
            }
            refreshPictures()
        case "preset":
            guard let i = number(o["index"]).map(Int.init), (0..<GalleryPreset.all.count).contains(i) else {
                throw StudioError("preset index must be 0...11")
            }
            var reference: String?
            if GalleryPreset.all[i].needsReference {
                reference = try document.storeImage(try ImageIO.readBytes(path: photos.appendingPathComponent("reference.jpg").path), name: "reference.jpg")
            }
            if i != document.state.preset { try document.apply(.preset(i, reference: reference)) }
            broadcastState()
            refreshPictures()
        case "brush":
            var b = brush
            if let k = o["brush"] as? String {
                guard let kind = BrushKind(rawValue: k) else { throw StudioError("unknown brush \(k)") }
                b.kind = kind
            }
            if let c = o["color"] as? String {
                guard parseColor(c) != nil else { throw StudioError("colour must be #rrggbb") }
                b.color = c
            }
            if let curve = o["pressureCurve"] as? [[Any]] {
                let points = curve.compactMap { p -> [Double]? in
                    guard p.count == 2, let x = number(p[0]), let y = number(p[1]), x.isFinite, y.isFinite else { return nil }
                    return [min(max(x, 0), 1), min(max(y, 0), 1)]
                }
                if points.count >= 2 { b.pressureCurve = points }
            }
            if let k = o["keepStrokes"] as? Bool { keepStrokes = k }
            brush = b
            saveSettings()
            broadcastState()
        case "undo", "redo":
            undoRedo(type == "undo")
        case "beforeAfter":
            s.beforeAfter = o["on"] as? Bool ?? false
            refresh(s)
        case "camera":
            s.cameraOn = o["on"] as? Bool ?? false
            if !s.cameraOn { refresh(s) }
        case "drawn":
            // The page drew (or skipped) a preview frame: room for the next one.
            if _trace { log(String(format: "drawn received at %.1f", _now())) }
            s.work.async {
                s.unacknowledged = max(0, s.unacknowledged - 1)
                if s.waitingForAck {
                    s.waitingForAck = false
                    self.schedule(s, dirty: .zero, batch: s.batch)
                }
            }
        case "stats":
            log("page \(s.id) latency: count \(o["count"] ?? 0), p50 \(o["p50"] ?? 0) ms, p95 \(o["p95"] ?? 0) ms, p99 \(o["p99"] ?? 0) ms")
        case "__too_large":
            throw StudioError("message over \(WebServer.maximumMessageBytes) bytes refused")
        default:
            throw StudioError("unknown message type \(type)")
        }
    }

    func number(_ v: Any?) -> Double? {
        if let d = v as? Double { return d }
        if let i = v as? Int { return Double(i) }
        if let n = v as? NSNumber, !(v is Bool) { return n.doubleValue }
        return nil
    }

    func pen(_ s: _Session, _ o: [String: Any]) throws {
        guard let phase = o["phase"] as? String, ["down", "move", "up", "cancel"].contains(phase) else {
            throw StudioError("pen phase must be down, move, up or cancel")
        }
        guard let strokeNumber = number(o["stroke"]), let batchNumber = number(o["batch"]), o["samples"] is [Any] else {
            throw StudioError("pen messages need stroke, batch and samples (an array)")
        }
        let pageStroke = Int(strokeNumber)
        let batch = Int(batchNumber)
        if _trace { log(String(format: "pen batch %d received at %.1f", batch, _now())) }
        let list = try samples(o["samples"])
        // Frames report the newest pen batch they include. A batch that changes the picture is
        // recorded by the same work block that changes it (so no frame claims samples it does not
        // show); any other batch (no samples, no held button) when this message is done.
        var batchRecorded = false
        defer { if !batchRecorded { s.work.async { s.batch = max(s.batch, batch) } } }
        if phase == "down" { s.penDown = true }
        if phase == "up" || phase == "cancel" { s.penDown = false }

        if mode == "adjust" {
            if s.hold != .off, let last = list.last {
                var p = liveAdjust ?? document.state.adjust
                for sample in list { PencilController.update(&p, mode: s.hold, sample: sample) }
                liveAdjust = p
                let label = PencilController.label(p, mode: s.hold) ?? ""
                // While it draws, the page moves the pencil from its own samples: only the stroke's
                // start and end are worth a message (one less for the page to handle per batch).
                if phase != "move" {
                    sendJSON(s, ["type": "pencil", "visible": phase != "up" && phase != "cancel", "x": last.x, "y": last.y,
                                 "altitude": last.altitude, "azimuth": last.azimuth])
                }
                refreshPictures(batch: batch, from: s, label: label)
                batchRecorded = true
            }
            if phase == "up" || phase == "cancel" {
                sendJSON(s, ["type": "pencil", "visible": false])
                commitAdjust()
            }
            return
        }
        guard mode == "sketch" || mode == "shade" else { return }
        if phase == "down" || s.stroke == nil && !list.isEmpty && phase == "move" {
            if s.stroke != nil { endStroke(s) }
            let layer: LayerKind = mode == "shade" ? .shade : .sketch
            var settings = brush
            // Shade offers pencil, pen and eraser; Sketch force pen, pen and eraser.
            if mode == "shade" {
                if ![.pencil, .pen, .eraser].contains(brush.kind) { settings.kind = .pencil }
            } else if ![.forcePen, .pen, .eraser].contains(brush.kind) {
                settings.kind = .forcePen
            }
            if list.first?.isEraser == true { settings.kind = .eraser }
            let fades = mode == "sketch" && !keepStrokes && settings.kind != .eraser
            let id = try document.beginStroke(layer: layer, brush: settings, fades: fades)
            guard let preview = s.preview else { return }
            let renderer = StrokeRenderer(settings: settings, scale: preview.scale, clip: preview.bounds)
            s.stroke = (id, pageStroke, layer, renderer)
            stopFade()
        }
        guard let stroke = s.stroke else { return }
        if !list.isEmpty {
            try document.appendSamples(stroke: stroke.document, list)
            if mode == "shade", let last = list.last { sendJSON(s, ["type": "threshold", "below": Pencil.shades(last)]) }
            s.work.async {
                let dirty = stroke.renderer.append(list)
                self.schedule(s, dirty: dirty, batch: batch)
            }
            batchRecorded = true
        }
        if phase == "up" || phase == "cancel" { endStroke(s) }
    }

    /// Ends a page's stroke: durable in the document, composited once into every page's layer.
    func endStroke(_ s: _Session) {
        guard let stroke = s.stroke else { return }
        s.stroke = nil
        do { try document.endStroke(stroke.document) } catch { log("ending stroke: \(error)") }
        let state = document.state
        guard let stored = state.strokes.first(where: { $0.id == stroke.document }) else { return }
        let fades = stored.stroke.fades
        s.work.async {
            guard let preview = s.preview else { return }
            let dirty = stroke.renderer.finish().union(stroke.renderer.bounds)
            let area = (fades ? preview.fading : (stroke.layer == .shade ? preview.shade : preview.sketch)).commit(stroke.renderer)
            if fades { preview.fadingBounds = preview.fadingBounds.union(area) } else { preview.keptBounds = preview.keptBounds.union(area) }
            if !fades { preview.inkKey = state.strokes.map { "\($0.id)" }.joined(separator: ",") }
            self.schedule(s, dirty: dirty, batch: s.batch)
        }
        // Other pages draw the finished stroke at their own scale.
        for other in sessions.values where other.id != s.id {
            other.work.async {
                guard let p = other.preview else { return }
                if fades {
                    let r = p.fading.draw(stored.stroke)
                    p.fadingBounds = p.fadingBounds.union(r)
                    self.schedule(other, dirty: r, batch: other.batch)
                } else {
                    p.updateInk(state)
                    self.schedule(other, dirty: p.bounds, batch: other.batch)
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

    func openPhoto(_ bytes: [UInt8], name: String) -> HTTPResponse {
        guard !bytes.isEmpty else { return .error(400, "send the image file as the request body") }
        let safe = name.filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }
        var base = (safe.isEmpty ? "photo" : (safe as NSString).deletingPathExtension)
        if base.isEmpty { base = "photo" }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var path = folder.appendingPathComponent(base + ".sfumato").path
            var n = 2
            while FileManager.default.fileExists(atPath: path) {
                path = folder.appendingPathComponent("\(base)-\(n).sfumato").path
                n += 1
            }
            let doc = try Document.create(at: path, image: bytes, name: safe.isEmpty ? "photo" : safe)
            document = doc
            liveAdjust = nil
            liveCurve = nil
            saveSettings()
            log("opened \(safe) as \(path)")
            for s in sessions.values {
                s.stroke = nil
                s.work.async { s.preview = nil }
                resize(s)
            }
            broadcastState()
            return .json(documentJSON())
        } catch let e as SfumatoError {
            return .error(e.isTooLarge ? 413 : 400, e.description)
        } catch {
            return .error(500, "\(error)")
        }
    }

    // MARK: - Pictures and frames

    /// The state pages should see: the document with live (uncommitted) parameters.
    var visibleState: DocumentState {
        var st = document.state
        if let a = liveAdjust { st.adjust = a }
        if let c = liveCurve { st.curve = c }
        return st
    }

    /// (Re)builds a page's preview for its viewport and sends a full frame.
    func resize(_ s: _Session) {
        let doc = document
        let w = doc.width, h = doc.height
        let scale = min(Double(s.viewport.width) * s.dpr / Double(w), Double(s.viewport.height) * s.dpr / Double(h), 1)
        let pw = max(1, Int((Double(w) * scale).rounded())), ph = max(1, Int((Double(h) * scale).rounded()))
        let state = visibleState
        s.work.async {
            do {
                if s.preview?.width != pw || s.preview?.height != ph {
                    s.preview = try _Preview(width: pw, height: ph, documentWidth: w)
                }
                try s.preview!.update(document: doc, state: state, beforeAfter: s.beforeAfter)
                s.preview!.updateInk(state)
                self.schedule(s, dirty: s.preview!.bounds, batch: s.batch, full: true)
            } catch {
                self.log("preview: \(error)")
            }
        }
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
            do { try p.update(document: doc, state: state, beforeAfter: s.beforeAfter) } catch { self.log("render: \(error)") }
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
            // A page that acknowledges frames gets at most two in flight: while it decodes, newer
            // changes gather here and go out as one frame (latest wins, no queue builds up).
            if s.acks && s.unacknowledged >= _Session.framesInFlight {
                if _trace { self.log(String(format: "frame waits for an ack at %.1f", _now())) }
                s.waitingForAck = true
                return
            }
            // While a pen drags the colour parameters, send reduced drafts (a third of each side); the full frame comes
            // when the pen lifts (commitAdjust refreshes).
            if s.fullFrame, s.penDown, s.hold != .off, let st = s.pendingState {
                s.pendingState = nil
                s.dirty = .zero
                s.fullFrame = false
                do {
                    let t0 = _now()
                    if p.base == nil { try p.update(document: self.document, state: st, beforeAfter: s.beforeAfter) }
                    // A page on this machine takes the draft's pixels as they are: no JPEG to encode
                    // here or to decode there, for about 1.5 ms of CPU a draft (see docs/STUDIO-PROTOCOL.md).
                    if let draft = try p.renderDraft(document: self.document, state: st, beforeAfter: s.beforeAfter),
                       let bytes = s.rawRegions ? _rawBytes(draft, Rect(width: draft.width, height: draft.height)) : _encodeJPEG(draft, quality: 80) {
                        if _trace { self.log(String(format: "draft frame %d batch %d: %.1f ms (%d bytes)", s.sequence + 1, s.batch, _now() - t0, bytes.count)) }
                        s.sequence += 1
                        if s.acks { s.unacknowledged += 1 }
                        var header: [String: Any] = ["seq": s.sequence, "batch": s.batch, "kind": "preview", "x": 0, "y": 0,
                                                     "w": p.width, "h": p.height, "previewWidth": p.width, "previewHeight": p.height,
                                                     "format": "jpeg", "draft": true]
                        if s.rawRegions {
                            // Raw rows are the draft's own size; the frame still stands for the whole preview.
                            header["format"] = "rgba"
                            header["w"] = draft.width
                            header["h"] = draft.height
                        }
                        s.takeLabel(into: &header)
                        self.server?.send(s.id, _frame(header, bytes), binary: true)
                        if _trace { self.log(String(format: "draft frame %d sent at %.1f", s.sequence, _now())) }
                    }
                } catch { self.log("draft: \(error)") }
                return
            }
            if let st = s.pendingState {
                s.pendingState = nil
                let t0 = _now()
                do {
                    try p.update(document: self.document, state: st, beforeAfter: s.beforeAfter)
                    if s.pendingInk { p.updateInk(st); s.pendingInk = false }
                } catch { self.log("render: \(error)") }
                if _trace { self.log(String(format: "picture %.1f ms", _now() - t0)) }
            }
            let region = s.fullFrame ? p.bounds : s.dirty.insetBy(dx: -2, dy: -2).intersection(p.bounds)
            s.dirty = .zero
            s.fullFrame = false
            let active = s.stroke.map { [$0.renderer] } ?? []
            let t0 = _now()
            p.compose(region, active: active, showInk: !s.beforeAfter)
            let t1 = _now()
            let raw = s.rawRegions && region.width * region.height <= _Session.rawRegionPixels
            guard let image = raw ? p.rawPixels(region) : p.jpeg(region) else { return }
            if _trace {
                self.log(String(format: "frame %d batch %d: %dx%d compose %.1f ms, %@ %.1f ms (%d bytes), %d unacknowledged",
                                s.sequence + 1, s.batch, region.width, region.height, t1 - t0, raw ? "raw" : "jpeg", _now() - t1,
                                image.count, s.unacknowledged))
            }
            s.sequence += 1
            if s.acks { s.unacknowledged += 1 }
            var header: [String: Any] = ["seq": s.sequence, "batch": s.batch, "kind": "preview", "x": region.x, "y": region.y,
                                         "w": region.width, "h": region.height, "previewWidth": p.width, "previewHeight": p.height,
                                         "format": raw ? "rgba" : "jpeg"]
            s.takeLabel(into: &header)
            self.server?.send(s.id, _frame(header, image), binary: true)
        }
    }

    // MARK: - ForceSketch's fade

    func startFade() {
        if fadeTimer != nil { return }
        let t = DispatchSource.makeTimerSource(queue: queue)
        t.schedule(deadline: .now() + .milliseconds(16), repeating: .milliseconds(16))
        t.setEventHandler { [weak self] in self?.fadeTick() }
        fadeTimer = t
        t.resume()
    }

    func stopFade() {
        fadeTimer?.cancel()
        fadeTimer = nil
    }

    /// One display frame of the fade on every page that is not drawing.
    func fadeTick() {
        if sessions.values.contains(where: { $0.stroke != nil }) { stopFade(); return }
        let group = DispatchGroup()
        let remaining = _Counter()
        for s in sessions.values {
            group.enter()
            s.work.async {
                defer { group.leave() }
                guard let p = s.preview, !p.fadingBounds.isEmpty else { return }
                let before = p.fadingBounds
                if p.fading.fadeStep(.transparent, inkIn: before) > 0 {
                    remaining.add()
                    // The blur spreads ink by its radius each frame.
                    p.fadingBounds = p.fadingBounds.insetBy(dx: -3, dy: -3).intersection(p.bounds)
                } else {
                    p.fading.clear()
                    p.fadingBounds = .zero
                }
                self.schedule(s, dirty: before.union(p.fadingBounds), batch: s.batch)
            }
        }
        group.notify(queue: queue) { if remaining.value == 0 { self.stopFade() } }
    }

    // MARK: - Camera

    func cameraFrame(_ s: _Session, _ data: [UInt8]) {
        guard data.count > 8, Array(data[0..<4]) == Array("CAM1".utf8) else {
            sendJSON(s, ["type": "error", "message": "binary messages are camera frames: CAM1 + frame number + JPEG"])
            return
        }
        let number = UInt32(data[4]) | UInt32(data[5]) << 8 | UInt32(data[6]) << 16 | UInt32(data[7]) << 24
        let preset = document.state.preset
        let presetReference = document.state.presetReference
        let doc = document
        let reference = presetReference.flatMap { try? doc.image(hash: $0) }.map { Image(bitmap: $0) }
        s.cameraLock.lock()
        // Latest wins: a frame that arrives while two are being filtered replaces the waiting one.
        s.cameraFrame = (data, number)
        let start = s.cameraBusy < 2
        if start { s.cameraBusy += 1 }
        s.cameraLock.unlock()
        if !start { return }
        DispatchQueue.global().async {
            while true {
                s.cameraLock.lock()
                guard let (bytes, n) = s.cameraFrame else {
                    s.cameraBusy -= 1
                    s.cameraLock.unlock()
                    return
                }
                s.cameraFrame = nil
                s.cameraLock.unlock()
                self.filterCameraFrame(s, bytes, n, preset: preset, reference: reference)
            }
        }
    }

    /// Decodes, filters and sends back one camera frame (two run at once, one per core).
    func filterCameraFrame(_ s: _Session, _ bytes: [UInt8], _ n: UInt32, preset: Int, reference: Image?) {
        let t0 = _now()
        guard let input = _decodeCameraFrame(bytes[8...]) else {
            sendJSON(s, ["type": "error", "message": "camera frame \(n) is not a decodable JPEG"])
            return
        }
        let image = Image(bitmap: input)
        do {
            // One thread per frame: two frames in flight keep both cores busy with less overhead.
            let context = RenderContext(options: .init(workingSpace: .none, threads: 1))
            let out = try context.render(GalleryPreset.all[preset].apply(to: image, reference: reference).cropped(to: image.extent),
                                         rect: image.extent)
            let t2 = _now()
            guard let jpeg = _encodeJPEG(out, quality: 80) else { return }
            if _trace {
                log(String(format: "camera frame %d: decode+filter %.1f ms, jpeg %.1f ms (%d bytes in, %d out)",
                           Int(n), t2 - t0, _now() - t2, bytes.count, jpeg.count))
            }
            let header: [String: Any] = ["seq": 0, "batch": 0, "kind": "camera", "x": 0, "y": 0, "w": out.width,
                                         "h": out.height, "previewWidth": out.width, "previewHeight": out.height,
                                         "format": "jpeg", "frame": Int(n)]
            server?.send(s.id, _frame(header, jpeg), binary: true)
        } catch {
            log("camera: \(error)")
        }
    }

    // MARK: - State

    func sendJSON(_ s: _Session, _ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        server?.send(s.id, [UInt8](data), binary: false)
    }

    func broadcastState() {
        let doc = documentJSON()
        for s in sessions.values { sendJSON(s, ["type": "state", "document": doc]) }
    }

    func staticFile(_ name: String) -> HTTPResponse {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }), !name.hasPrefix("."),
              let bytes = try? ImageIO.readBytes(path: web.appendingPathComponent(name).path) else {
            return .error(404, "no such file: \(name)")
        }
        let type: String = switch (name as NSString).pathExtension {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
        return HTTPResponse(contentType: type, body: bytes, headers: [("cache-control", "no-cache")])
    }
}

extension SfumatoError {
    var isTooLarge: Bool { if case .tooLarge = self { true } else { false } }
}

/// A frame message: "FRM1" + header length (uint32 LE) + header JSON + image bytes.
func _frame(_ header: [String: Any], _ image: [UInt8]) -> [UInt8] {
    let h = (try? JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) ?? Data()
    var out = Array("FRM1".utf8)
    let n = UInt32(h.count)
    out += [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8(n >> 24)]
    out += [UInt8](h)
    out += image
    return out
}

final class _Counter: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value = 0
    func add() { lock.lock(); value += 1; lock.unlock() }
}

/// Set SFUMATO_TRACE=1 to log render and frame timings.
let _trace = ProcessInfo.processInfo.environment["SFUMATO_TRACE"] == "1"

func _now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}
