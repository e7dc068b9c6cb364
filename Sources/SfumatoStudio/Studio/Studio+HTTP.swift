import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

extension Studio {
    /// The HTTP API (docs/STUDIO-PROTOCOL.md). Requests reach here only past the server's access
    /// checks; each route says which methods it takes (others get 405).
    public func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let path = request.path
        let reading: [HTTPMethod] = [.get, .head]
        func only(_ methods: [HTTPMethod]) -> Bool {
            if methods.contains(request.method) { return true }
            respond(.methodNotAllowed(request.method, path: path, allowed: methods))
            return false
        }
        switch path {
        case "/", "/index.html":
            if only(reading) { respond(staticFile("index.html")) }
        case _ where path.hasPrefix("/static/"):
            if only(reading) { respond(staticFile(String(path.dropFirst("/static/".count)))) }
        case "/api/document":
            // Made on the studio's queue after each change: answered at once, however busy that is.
            if only(reading) { respond(.json(bytes: published.withLock { $0 })) }
        case "/api/curve":
            guard only(reading) else { return }
            let levels = (request.query["levels"] ?? "").split(separator: ",", omittingEmptySubsequences: false).prefix(6).map { Double($0) }
            guard levels.count == 5, levels.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 && $0! <= 1 }) else {
                respond(.error(400, "levels must be five numbers 0...1 separated by commas"))
                return
            }
            respond(.json(["samples": ToneCurve(levels: levels.map { $0! }).spline.samples(count: 256)]))
        case "/api/render", "/api/export":
            if only(reading) { render(request, export: path == "/api/export", respond: respond) }
        case "/api/undo", "/api/redo":
            guard only([.post]) else { return }
            queue.async {
                self.undoRedo(path == "/api/undo")
                respond(.json(bytes: self.published.withLock { $0 }))
            }
        case _ where Pairing.paths.contains(path):
            guard only(reading) else { return }
            respond(pairing?.response(for: path) ?? .error(404, "pairing is offered with --lan only"))
        case "/api/open":
            guard only([.post]) else { return }
            queue.async { respond(self.openPhoto(request.body, name: request.query["name"] ?? "photo")) }
        default:
            respond(.error(404, "no such resource: \(path.prefix(200))"))
        }
    }

    /// `/api/render?width=W` (PNG) and `/api/export?format=jpeg|png` (full size): rendered off the
    /// studio's queue within the render memory budget, and stopped when the client leaves.
    func render(_ request: HTTPRequest, export: Bool, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        var width: Int?
        let documentWidth = document.width
        if let w = request.query["width"] {
            guard let v = Int(w), v >= 1, v <= documentWidth else {
                respond(.error(400, "width must be a whole number 1...\(documentWidth) (the document's width)"))
                return
            }
            width = v
        }
        let requested = width
        let requestedFormat = request.query["format"] ?? "jpeg"
        guard ["jpeg", "jpg", "png"].contains(requestedFormat) else {
            respond(.error(400, "format must be jpeg or png, not \(requestedFormat.prefix(20))"))
            return
        }
        let format = export ? (requestedFormat == "png" ? ImageFormat.png : .jpeg) : .png
        queue.async {
            let doc = self.document
            let (w, h) = (doc.width, doc.height)
            let outW = requested ?? w
            let outH = max(1, Int((Double(h) * Double(outW) / Double(max(w, 1))).rounded()))
            guard outW * outH <= self.limits.renderPixels else {
                respond(.error(413, "a \(outW)x\(outH) render is over the limit of \(self.limits.renderPixels) pixels"))
                return
            }
            // The output and its encoding, and the full-size ink layer when there is ink.
            let bytes = 8 * outW * outH + (doc.state.visibleStrokes.isEmpty ? 0 : 16 * w * h)
            let cancellation = request.cancellation
            DispatchQueue.global().async {
                guard self.renders.acquire(bytes, cancellation: cancellation) else {
                    respond(
                        cancellation.isCancelled
                            ? .error(499, "the client left")
                            : .error(503, "the studio is busy rendering; try again in a moment"))
                    return
                }
                defer { self.renders.release(bytes) }
                do {
                    let context = RenderContext(options: .init(workingSpace: .none, cancellation: cancellation))
                    let bitmap = try doc.render(width: requested, context: context)
                    try cancellation.check("the render")
                    var options = EncodeOptions(quality: 92, pngCompressionLevel: 3)
                    options.chromaSubsampling = .s444
                    // An export is the user's photo: it keeps the camera's EXIF and XMP (a preview need not).
                    if export { options.metadata = doc.photoMetadata() }
                    let body = try ImageIO.encode(bitmap, format: format, options: options)
                    var headers: [(String, String)] = [("cache-control", "no-store")]
                    if export {
                        let base = (doc.name as NSString).deletingPathExtension.filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
                        let name = (base.isEmpty ? "photo" : base) + "-sfumato." + format.fileExtension
                        headers.append(("content-disposition", "attachment; filename=\"\(name)\""))
                    }
                    respond(HTTPResponse(contentType: format.mediaType, body: body, headers: headers))
                } catch let e as SfumatoError {
                    if case .cancelled = e { self.log("render stopped: its client left") }
                    respond(.error(e.isTooLarge ? 413 : 500, e.description))
                } catch {
                    respond(.error(500, "\(error)"))
                }
                _returnFreeMemory()
            }
        }
    }

    func staticFile(_ name: String) -> HTTPResponse {
        guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }),
            !name.hasPrefix(".")
        else {
            return .error(404, "no such file: \(name.prefix(64))")
        }
        if name == "protocol.js" { return HTTPResponse(contentType: "text/javascript; charset=utf-8", body: _protocolScript) }
        guard let bytes = try? ImageIO.readBytes(path: web.appendingPathComponent(name).path) else {
            return .error(404, "no such file: \(name)")
        }
        let type: String =
            switch (name as NSString).pathExtension {
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

/// `/static/protocol.js`: the message names and limits of ``ClientMessage`` and ``ServerMessage``
/// for the page, made from the Swift declarations so the two sides cannot drift apart.
let _protocolScript: [UInt8] = {
    let limits: [String: Any] = [
        "viewportSide": ClientMessage.Limits.viewportSide, "samplesPerBatch": ClientMessage.Limits.samplesPerBatch,
        "predictedPerBatch": ClientMessage.Limits.predictedPerBatch, "pressureCurvePoints": ClientMessage.Limits.pressureCurvePoints,
        "counter": ClientMessage.Limits.counter, "presets": ClientMessage.Limits.presets.count,
        "maxDevicePixelRatio": ClientMessage.Limits.devicePixelRatio.upperBound
    ]
    let object: [String: Any] = [
        "client": Dictionary(uniqueKeysWithValues: ClientMessage.Kind.allCases.map { ($0.rawValue, $0.rawValue) }),
        "server": Dictionary(uniqueKeysWithValues: ServerMessage.Kind.allCases.map { ($0.rawValue, $0.rawValue) }),
        "modes": StudioMode.allCases.map(\.rawValue),
        "limits": limits,
        // Below this altitude (radians) the pencil shades: the page shows it for a hovering pen.
        "pencil": ["tiltThreshold": Pencil.tiltThreshold]
    ]
    let json = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    return Array(
        "\"use strict\";\n// Made by the server from its Swift declarations (Protocol/ClientMessage.swift).\nwindow.Sfumato = window.Sfumato || {};\nwindow.Sfumato.protocol = Object.freeze("
            .utf8)
        + [UInt8](json) + Array(");\n".utf8)
}()
