import CWebSockets
import Foundation
import SfumatoCore

/// The libwebsockets callback (kept out of main.swift: top-level closures there are main-actor
/// isolated, and lws calls this from its own thread).
func _sfumatoLwsCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let context = lws_get_context(wsi), let raw = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<WebServer>.fromOpaque(raw).takeUnretainedValue()
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        server.flushMailbox()
        return 0

    // The connection limit: sockets are counted from creation to destruction. At the limit, the
    // oldest connection that has not sent a request yet is closed to make room; when every one
    // has, the new connection is closed instead.
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        guard server.sockets.count >= server.limits.maximumConnections else { return 0 }
        guard !server.waiting.isEmpty else { return 1 }
        let idle = server.waiting.removeFirst()
        server.sockets.remove(idle)  // counted out now; its WSI_DESTROY follows
        lws_set_timeout(idle, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        return 0
    case LWS_CALLBACK_WSI_CREATE:
        if let wsi {
            server.sockets.insert(wsi)
            server.waiting.append(wsi)
        }
        return 0
    case LWS_CALLBACK_WSI_DESTROY:
        if let wsi {
            server.sockets.remove(wsi)
            server.waiting.removeAll { $0 == wsi }
        }
        return 0

    case LWS_CALLBACK_HTTP:
        if let wsi { server.waiting.removeAll { $0 == wsi } }
        return server.httpRequest(wsi, user, input)

    case LWS_CALLBACK_HTTP_BODY:
        guard let c = server.connection(wsi, user, create: false), let input else { return 0 }
        if c.dispatched { return 0 }
        if c.body.count + length > server.limits.maximumBodyBytes {
            c.bodyTooLarge = true
            c.body = []
        } else if !c.bodyTooLarge {
            c.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        return 0

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard let c = server.connection(wsi, user, create: false), !c.dispatched else { return 0 }
        if c.bodyTooLarge {
            c.dispatched = true
            server.respond(c, .error(413, "request body over the limit of \(server.limits.maximumBodyBytes) bytes"))
        } else {
            server.dispatch(c)
        }
        return 0

    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let c = server.connection(wsi, user, create: false) else { return 0 }
        return server.writeHTTP(wsi, c)

    case LWS_CALLBACK_CLOSED_HTTP:
        if let c = server.connection(wsi, user, create: false), !c.isWebSocket {
            // The client left: work still running for it can stop.
            c.cancellation.cancel()
            server.forget(c)
        }
        return 0

    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        if let wsi { server.waiting.removeAll { $0 == wsi } }
        return server.filterUpgrade(wsi)

    case LWS_CALLBACK_ESTABLISHED:
        guard let c = server.connection(wsi, user, create: true) else { return -1 }
        c.wsi = wsi
        c.isWebSocket = true
        server.webSockets += 1
        server.delegate.webSocketOpened(c.id)
        return 0

    case LWS_CALLBACK_RECEIVE:
        guard let c = server.connection(wsi, user, create: false) else { return -1 }
        server.receive(wsi, c, input, length)
        return 0

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let c = server.connection(wsi, user, create: false) else { return 0 }
        return server.writeWebSocket(wsi, c)

    case LWS_CALLBACK_CLOSED:
        if let c = server.connection(wsi, user, create: false) {
            server.webSockets -= 1
            server.forget(c)
            server.delegate.webSocketClosed(c.id)
        }
        return 0

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

extension WebServer {
    /// A new HTTP request: method, access checks, then the delegate (now, or once the body is in).
    func httpRequest(_ wsi: OpaquePointer?, _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?) -> Int32 {
        guard let c = connection(wsi, user, create: true) else { return -1 }
        c.wsi = wsi
        let uri = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        c.path = uri.isEmpty ? "/" : uri
        c.query = _parseQuery(queryFragments(wsi))
        c.body = []
        c.bodyTooLarge = false
        c.dispatched = false
        c.setCookie = false
        c.closeAfterResponse = false
        c.cancellation = CancellationToken()
        var peer = [CChar](repeating: 0, count: 64)
        lws_get_peer_simple(wsi, &peer, 64)
        c.peer = String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var uriPointer: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let index = Int(lws_http_get_uri_and_method(wsi, &uriPointer, &uriLength))
        let methods: [HTTPMethod] = [.get, .post, .options, .put, .patch, .delete, .connect, .head]
        c.method = index >= 0 && index < methods.count ? methods[index] : .get
        let hasBody =
            (Int(header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) ?? "") ?? 0) > 0
            || header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) != nil
        func refuse(_ r: HTTPResponse, keepAlive: Bool = false) -> Int32 {
            c.dispatched = true
            // A body that will not be read must not be taken for the next request, and a client
            // that was refused does not keep a connection (a slot of the limit) open.
            c.closeAfterResponse = hasBody || !keepAlive
            respond(c, r)
            return 0
        }
        switch decide(wsi, path: c.path, query: c.query) {
        case .deny(let status, let message):
            if _trace { StandardStream.error.write("studio: refused \(c.method.rawValue) \(c.path) from \(c.peer): \(message)\n") }
            return refuse(.error(status, message))
        case .allow(let setCookie):
            c.setCookie = setCookie
        }
        guard [.get, .head, .post].contains(c.method) else {
            return refuse(.methodNotAllowed(c.method, path: c.path, allowed: [.get, .head, .post]), keepAlive: true)
        }
        if c.method == .post {
            let declared = Int(header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) ?? "") ?? 0
            if declared > limits.maximumBodyBytes {
                return refuse(.error(413, "request body of \(declared) bytes is over the limit of \(limits.maximumBodyBytes)"), keepAlive: true)
            }
            if hasBody { return 0 }  // wait for HTTP_BODY / HTTP_BODY_COMPLETION
        }
        dispatch(c)
        return 0
    }

    /// A WebSocket upgrade: the path, the access checks and the page limit, before accepting.
    func filterUpgrade(_ wsi: OpaquePointer?) -> Int32 {
        let path = header(wsi, WSI_TOKEN_GET_URI) ?? ""
        let query = _parseQuery(queryFragments(wsi))
        func refuse(_ status: Int, _ message: String) -> Int32 {
            if _trace { StandardStream.error.write("studio: refused a WebSocket: \(message)\n") }
            _ = lws_return_http_status(wsi, UInt32(status), message)
            return 1
        }
        guard path == "/ws" else { return refuse(404, "WebSockets are served at /ws only") }
        if case .deny(let status, let message) = decide(wsi, path: path, query: query) { return refuse(status, message) }
        if webSockets >= limits.maximumWebSockets {
            StandardStream.error.write("studio: refused a page: \(limits.maximumWebSockets) are connected already\n")
            return refuse(503, "the studio serves at most \(limits.maximumWebSockets) pages at once")
        }
        return 0
    }

    /// A fragment of a WebSocket message; the whole message goes to the delegate.
    func receive(_ wsi: OpaquePointer?, _ c: Connection, _ input: UnsafeMutableRawPointer?, _ length: Int) {
        if lws_is_first_fragment(wsi) != 0 {
            c.rx = []
            c.rxTooLarge = false
            c.rxBytes = 0
            c.rxBinary = lws_frame_is_binary(wsi) != 0
        }
        let limit = c.rxBinary ? limits.maximumBinaryMessageBytes : limits.maximumTextMessageBytes
        c.rxBytes += length
        if let input, !c.rxTooLarge {
            if c.rx.count + length > limit {
                c.rxTooLarge = true
                c.rx = []
            } else {
                c.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
        }
        guard lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0 else { return }
        let message: InboundMessage = c.rxTooLarge ? .tooLarge(bytes: c.rxBytes, binary: c.rxBinary) : c.rxBinary ? .binary(c.rx) : .text(c.rx)
        c.rx = []
        lock.lock()
        c.inFlight += 1
        let pause = c.inFlight >= limits.messagesInFlight && !c.paused
        if pause {
            c.paused = true
            c.resumeRequested = false
        }
        lock.unlock()
        // Backpressure: the studio is behind on this page's messages; TCP slows the page down.
        if pause { lws_rx_flow_control(wsi, 0) }
        delegate.webSocketMessage(c.id, message)
    }

    /// Hands a complete HTTP request to the delegate (once); its response comes back through the mailbox.
    func dispatch(_ c: Connection) {
        if c.dispatched { return }
        c.dispatched = true
        let request = HTTPRequest(
            method: c.method, path: c.path, query: c.query, body: c.body, peer: c.peer,
            cancellation: c.cancellation)
        c.body = []
        delegate.handle(request) { [weak self] response in
            self?.respond(c, response)
        }
    }
}
