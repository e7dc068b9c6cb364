import CWebSockets
import Foundation
import SfumatoCore

/// HTTP and WebSocket server on libwebsockets.
///
/// libwebsockets runs every callback on the thread that calls `lws_service`; other threads hand
/// work over through a mailbox (each connection's outbox) and `lws_cancel_service()`, which
/// wakes the service thread with LWS_CALLBACK_EVENT_WAIT_CANCELLED. Protocol and vhost structs,
/// and their strings, live as long as the context.
public final class WebServer: @unchecked Sendable {
    /// Requests and messages larger than this are refused (413 / close).
    public static let maximumBodyBytes = 64 << 20
    public static let maximumMessageBytes = 16 << 20

    final class Connection: @unchecked Sendable {
        let id: Int
        var wsi: OpaquePointer?
        var isWebSocket = false
        var path = ""
        var query: [String: String] = [:]
        var method = "GET"
        var body: [UInt8] = []
        var bodyTooLarge = false
        var peer = ""
        // Response (HTTP) and outbox (WebSocket), guarded by the server's lock.
        var response: HTTPResponse?
        var headersSent = false
        var sentBytes = 0
        var outbox: [([UInt8], Bool)] = []
        var closing = false
        var rx: [UInt8] = []
        var rxBinary = false
        var rxTooLarge = false
        /// Whether the current request went to the delegate (libwebsockets reports completion of
        /// an empty body too, so a request must not be handed over twice).
        var dispatched = false
        init(id: Int) { self.id = id }
    }

    let delegate: any ServerDelegate
    private var context: OpaquePointer?
    private let lock = NSLock()
    private var connections: [Int: Connection] = [:]
    private var nextID = 1
    private var thread: Thread?
    private var running = false
    private let stopped = DispatchSemaphore(value: 0)
    // C strings and structs that must outlive the context.
    private var retained: [UnsafeMutableRawPointer] = []
    public let port: Int
    public let host: String
    public let tls: Bool

    /// Starts listening on `host`:`port` (TLS with the given certificate and key when set).
    public init(host: String, port: Int, certificate: String? = nil, key: String? = nil, delegate: any ServerDelegate) throws {
        self.delegate = delegate
        self.host = host
        self.port = port
        tls = certificate != nil
        lws_set_log_level(Int32(LLL_ERR), nil)

        func cString(_ s: String) -> UnsafePointer<CChar> {
            let p = strdup(s)!
            retained.append(UnsafeMutableRawPointer(p))
            return UnsafePointer(p)
        }
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = cString("sfumato")
        protocols[0].callback = _sfumatoLwsCallback
        protocols[0].per_session_data_size = MemoryLayout<Int>.size
        protocols[0].rx_buffer_size = 65536
        retained.append(UnsafeMutableRawPointer(protocols))

        var info = lws_context_creation_info()
        info.port = Int32(port)
        info.iface = host == "0.0.0.0" ? nil : cString(host)
        info.protocols = UnsafePointer(protocols)
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.pt_serv_buf_size = 256 * 1024
        info.max_http_header_data = 8192
        info.timeout_secs = 30
        if let certificate, let key {
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.ssl_cert_filepath = cString(certificate)
            info.ssl_private_key_filepath = cString(key)
        }
        guard let ctx = lws_create_context(&info) else {
            for p in retained { free(p) }
            retained.removeAll()
            throw SfumatoError.io("cannot listen on \(host):\(port) (in use, or not allowed)")
        }
        context = ctx
        running = true
        let t = Thread { [unowned self] in self.serviceLoop() }
        t.name = "sfumato-lws"
        thread = t
        t.start()
    }

    deinit { stop() }

    private func serviceLoop() {
        while true {
            lock.lock()
            let go = running
            lock.unlock()
            if !go { break }
            if let context { lws_service(context, 0) }
        }
        stopped.signal()
    }

    /// Stops serving and closes every connection.
    public func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        guard wasRunning, let context else { return }
        // Wake the service thread until it has left its loop: a wake-up that lands while it is
        // not waiting must not leave it asleep (a studio once ignored SIGTERM that way). If it
        // never comes back, leave the context alone (destroying it under a running service
        // would be worse) and let the process end.
        lws_cancel_service(context)
        var waited = 0
        while stopped.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            waited += 100
            if waited >= 5000 {
                StandardStream.error.write("sfumato: the network thread did not stop within 5 s; leaving it\n")
                return
            }
            lws_cancel_service(context)
        }
        lws_context_destroy(context)
        self.context = nil
        for p in retained { free(p) }
        retained.removeAll()
    }

    // MARK: Thread-safe sending

    /// Queues a WebSocket message; the service thread sends it.
    public func send(_ id: Int, _ data: [UInt8], binary: Bool) {
        lock.lock()
        guard let c = connections[id], c.isWebSocket, !c.closing else { lock.unlock(); return }
        c.outbox.append((data, binary))
        lock.unlock()
        wake()
    }

    /// Number of messages waiting to go out on a connection (for dropping stale frames).
    public func pending(_ id: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return connections[id]?.outbox.count ?? 0
    }

    /// Closes a WebSocket after what is queued.
    public func close(_ id: Int) {
        lock.lock()
        connections[id]?.closing = true
        lock.unlock()
        wake()
    }

    private func wake() {
        if let context { lws_cancel_service(context) }
    }

    // MARK: Service-thread side

    func connection(_ wsi: OpaquePointer?, _ user: UnsafeMutableRawPointer?, create: Bool) -> Connection? {
        guard let user else { return nil }
        let slot = user.assumingMemoryBound(to: Int.self)
        lock.lock()
        defer { lock.unlock() }
        if slot.pointee != 0, let c = connections[slot.pointee] { return c }
        guard create else { return nil }
        let c = Connection(id: nextID)
        nextID += 1
        c.wsi = wsi
        connections[c.id] = c
        slot.pointee = c.id
        return c
    }

    func forget(_ c: Connection) {
        lock.lock()
        connections[c.id] = nil
        lock.unlock()
    }

    /// Wakes every connection that has something to write.
    func flushMailbox() {
        lock.lock()
        let ready = connections.values.filter { ($0.isWebSocket && (!$0.outbox.isEmpty || $0.closing)) || (!$0.isWebSocket && $0.response != nil) }
        lock.unlock()
        for c in ready { if let w = c.wsi { lws_callback_on_writable(w) } }
    }

    func header(_ wsi: OpaquePointer?, _ token: lws_token_indexes) -> String {
        let n = Int(lws_hdr_total_length(wsi, token))
        if n <= 0 { return "" }
        var buffer = [CChar](repeating: 0, count: n + 1)
        _ = lws_hdr_copy(wsi, &buffer, Int32(n + 1), token)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func queryFragments(_ wsi: OpaquePointer?) -> [String] {
        var out: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        var i: Int32 = 0
        while i < 64 {
            let n = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, i)
            if n < 0 { break }
            out.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            i += 1
        }
        return out
    }

    /// Sets a connection's response and asks for a writable callback.
    func respond(_ c: Connection, _ r: HTTPResponse) {
        lock.lock()
        c.response = r
        lock.unlock()
        wake()
    }

    /// Writes what is due on a writable HTTP connection; returns -1 to close.
    func writeHTTP(_ wsi: OpaquePointer?, _ c: Connection) -> Int32 {
        lock.lock()
        guard let r = c.response else { lock.unlock(); return 0 }
        lock.unlock()
        let pre = Int(SF_LWS_PRE)
        if !c.headersSent {
            var buffer = [UInt8](repeating: 0, count: pre + 4096)
            let ok: Bool = buffer.withUnsafeMutableBufferPointer { b in
                let start = b.baseAddress! + pre
                var p: UnsafeMutablePointer<UInt8>? = start
                let end = start + 4096 - 1
                if lws_add_http_common_headers(wsi, UInt32(r.status), r.contentType, lws_filepos_t(r.body.count), &p, end) != 0 { return false }
                for (name, value) in r.headers {
                    let n = name.lowercased() + ":"
                    if lws_add_http_header_by_name(wsi, n, value, Int32(value.utf8.count), &p, end) != 0 { return false }
                }
                return lws_finalize_write_http_header(wsi, start, &p, end) == 0
            }
            if !ok { return -1 }
            c.headersSent = true
            if r.body.isEmpty {
                return lws_http_transaction_completed(wsi) != 0 ? -1 : resetForNextRequest(c)
            }
            lws_callback_on_writable(wsi)
            return 0
        }
        let chunk = min(64 * 1024, r.body.count - c.sentBytes)
        var buffer = [UInt8](repeating: 0, count: pre + chunk)
        buffer.replaceSubrange(pre..<(pre + chunk), with: r.body[c.sentBytes..<(c.sentBytes + chunk)])
        let last = c.sentBytes + chunk >= r.body.count
        let written = buffer.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + pre, chunk, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        if written < 0 { return -1 }
        c.sentBytes += chunk
        if last {
            return lws_http_transaction_completed(wsi) != 0 ? -1 : resetForNextRequest(c)
        }
        lws_callback_on_writable(wsi)
        return 0
    }

    /// Keep-alive: the same connection may carry another request.
    private func resetForNextRequest(_ c: Connection) -> Int32 {
        lock.lock()
        c.response = nil
        c.headersSent = false
        c.sentBytes = 0
        c.body = []
        c.bodyTooLarge = false
        lock.unlock()
        return 0
    }

    /// Sends the next queued WebSocket message; returns -1 to close.
    func writeWebSocket(_ wsi: OpaquePointer?, _ c: Connection) -> Int32 {
        lock.lock()
        if c.outbox.isEmpty {
            let closing = c.closing
            lock.unlock()
            return closing ? -1 : 0
        }
        let (data, binary) = c.outbox.removeFirst()
        let more = !c.outbox.isEmpty || c.closing
        lock.unlock()
        let pre = Int(SF_LWS_PRE)
        var buffer = [UInt8](repeating: 0, count: pre + data.count)
        buffer.replaceSubrange(pre..<(pre + data.count), with: data)
        let n = buffer.withUnsafeMutableBufferPointer {
            lws_write(wsi, $0.baseAddress! + pre, data.count, binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT)
        }
        if n < data.count { return -1 }
        if _trace && binary { StandardStream.error.write(String(format: "studio: %d bytes written at %.1f\n", data.count, _now())) }
        if more { lws_callback_on_writable(wsi) }
        return 0
    }
}

/// The libwebsockets callback (kept out of main.swift: top-level closures there are main-actor
/// isolated, and lws calls this from its own thread).
func _sfumatoLwsCallback(_ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
                         _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
    guard let context = lws_get_context(wsi), let raw = lws_context_user(context) else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let server = Unmanaged<WebServer>.fromOpaque(raw).takeUnretainedValue()
    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        server.flushMailbox()
        return 0

    case LWS_CALLBACK_HTTP:
        guard let c = server.connection(wsi, user, create: true) else { return -1 }
        c.wsi = wsi
        let uri = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        c.path = uri.isEmpty ? "/" : uri
        c.query = _parseQuery(server.queryFragments(wsi))
        c.method = lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0 ? "POST" : "GET"
        c.body = []
        c.bodyTooLarge = false
        c.dispatched = false
        var peer = [CChar](repeating: 0, count: 64)
        lws_get_peer_simple(wsi, &peer, 64)
        c.peer = String(decoding: peer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !server.delegate.authorize(path: c.path, query: c.query) {
            server.respond(c, .error(403, "a pairing token is required: open the URL the studio printed"))
            return 0
        }
        if c.method == "POST" {
            let declared = Int(server.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH)) ?? 0
            if declared > WebServer.maximumBodyBytes {
                server.respond(c, .error(413, "request body of \(declared) bytes is over the limit of \(WebServer.maximumBodyBytes)"))
                return 0
            }
            if declared > 0 { return 0 }   // wait for HTTP_BODY / HTTP_BODY_COMPLETION
        }
        dispatch(server, c)
        return 0

    case LWS_CALLBACK_HTTP_BODY:
        guard let c = server.connection(wsi, user, create: false), let input else { return 0 }
        if c.body.count + length > WebServer.maximumBodyBytes {
            c.bodyTooLarge = true
        } else {
            c.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
        return 0

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard let c = server.connection(wsi, user, create: false), !c.dispatched else { return 0 }
        if c.bodyTooLarge {
            c.dispatched = true
            server.respond(c, .error(413, "request body over the limit of \(WebServer.maximumBodyBytes) bytes"))
        } else {
            dispatch(server, c)
        }
        return 0

    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let c = server.connection(wsi, user, create: false) else { return 0 }
        return server.writeHTTP(wsi, c)

    case LWS_CALLBACK_CLOSED_HTTP:
        if let c = server.connection(wsi, user, create: false), !c.isWebSocket { server.forget(c) }
        return 0

    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        // A WebSocket upgrade: check the path and token before accepting.
        let path = server.header(wsi, WSI_TOKEN_GET_URI)
        let query = _parseQuery(server.queryFragments(wsi))
        if !path.hasPrefix("/ws") || !server.delegate.authorize(path: path, query: query) { return 1 }
        return 0

    case LWS_CALLBACK_ESTABLISHED:
        guard let c = server.connection(wsi, user, create: true) else { return -1 }
        c.wsi = wsi
        c.isWebSocket = true
        c.path = server.header(wsi, WSI_TOKEN_GET_URI)
        c.query = _parseQuery(server.queryFragments(wsi))
        server.delegate.webSocketOpened(c.id, path: c.path, query: c.query)
        return 0

    case LWS_CALLBACK_RECEIVE:
        guard let c = server.connection(wsi, user, create: false) else { return -1 }
        if lws_is_first_fragment(wsi) != 0 {
            c.rx = []
            c.rxTooLarge = false
            c.rxBinary = lws_frame_is_binary(wsi) != 0
        }
        if let input, !c.rxTooLarge {
            if c.rx.count + length > WebServer.maximumMessageBytes {
                c.rxTooLarge = true
                c.rx = []
            } else {
                c.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
        }
        if lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0 {
            if c.rxTooLarge {
                server.delegate.webSocketMessage(c.id, Array("{\"type\":\"__too_large\"}".utf8), binary: false)
            } else {
                let message = c.rx
                c.rx = []
                server.delegate.webSocketMessage(c.id, message, binary: c.rxBinary)
            }
        }
        return 0

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let c = server.connection(wsi, user, create: false) else { return 0 }
        return server.writeWebSocket(wsi, c)

    case LWS_CALLBACK_CLOSED:
        if let c = server.connection(wsi, user, create: false) {
            server.forget(c)
            server.delegate.webSocketClosed(c.id)
        }
        return 0

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

/// Hands a complete HTTP request to the delegate (once); its response comes back through the mailbox.
private func dispatch(_ server: WebServer, _ c: WebServer.Connection) {
    if c.dispatched { return }
    c.dispatched = true
    let request = HTTPRequest(method: c.method, path: c.path, query: c.query, body: c.body, peer: c.peer)
    server.delegate.handle(request) { [weak server] response in
        server?.respond(c, response)
    }
}
