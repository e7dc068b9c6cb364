import CWebSockets
import Foundation
import SfumatoCore

/// HTTP and WebSocket server on libwebsockets.
///
/// libwebsockets runs every callback on the thread that calls `lws_service`; other threads hand
/// work over through a mailbox (each connection's outbox and flags) and `lws_cancel_service()`,
/// which wakes the service thread with LWS_CALLBACK_EVENT_WAIT_CANCELLED. Protocol and vhost
/// structs, and their strings, live as long as the context.
///
/// Every request and WebSocket upgrade passes the ``AccessPolicy`` (Host, Origin, token) before
/// the delegate sees it, and the ``ServerLimits`` bound what clients can hold.
public final class WebServer: MessageTransport, @unchecked Sendable {
    /// Where to listen.
    public enum Listen: Sendable, Equatable {
        /// 127.0.0.1 and ::1 (where the machine has IPv6): this machine only.
        case loopback
        /// Every interface, IPv4 and IPv6 (`--lan`).
        case allInterfaces
        /// One address (IPv4 or IPv6 literal).
        case address(String)
    }

    /// A TLS certificate chain and its private key (PEM files).
    public struct TLSFiles: Sendable {
        public var certificate: String
        public var key: String
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    final class Connection: @unchecked Sendable {
        let id: Int
        var wsi: OpaquePointer?
        var isWebSocket = false
        var path = ""
        var query: [String: String] = [:]
        var method = HTTPMethod.get
        var body: [UInt8] = []
        var bodyTooLarge = false
        var peer = ""
        var cancellation = CancellationToken()
        /// The access check asked for the token cookie to be set with this response.
        var setCookie = false
        /// The request was refused before its body was read: close once the answer is out.
        var closeAfterResponse = false
        // Response (HTTP) and outbox (WebSocket), guarded by the server's lock.
        var response: HTTPResponse?
        var headersSent = false
        var sentBytes = 0
        var outbox: [([UInt8], Bool)] = []
        var queuedBytes = 0
        var closing = false
        var rx: [UInt8] = []
        var rxBinary = false
        var rxTooLarge = false
        var rxBytes = 0
        /// Messages handed to the delegate and not yet handled; reading pauses past the limit.
        var inFlight = 0
        var paused = false
        var resumeRequested = false
        /// Whether the current request went to the delegate (libwebsockets reports completion of
        /// an empty body too, so a request must not be handed over twice).
        var dispatched = false
        init(id: Int) { self.id = id }
    }

    let delegate: any ServerDelegate
    private var context: OpaquePointer?
    let lock = NSLock()
    var connections: [Int: Connection] = [:]
    /// Accepted sockets (for the connection limit), by wsi; touched on the service thread only.
    var sockets = Set<OpaquePointer>()
    /// Accepted sockets that have not yet sent a request, oldest first: at the limit, the oldest
    /// makes room for a new connection (so idle connections cannot lock everyone else out).
    var waiting: [OpaquePointer] = []
    var webSockets = 0
    private var nextID = 1
    private var thread: Thread?
    private var running = false
    private let stopped = DispatchSemaphore(value: 0)
    // C strings and structs that must outlive the context.
    private var retained: [UnsafeMutableRawPointer] = []
    /// The port listened on (the one picked when 0 was asked for).
    public private(set) var port: Int = 0
    /// The addresses listened on, as `ss` would show them (`127.0.0.1`, `::1`, `*`).
    public private(set) var addresses: [String] = []
    public let tls: Bool
    public let limits: ServerLimits
    /// Who may talk to the server.
    public private(set) var access: AccessPolicy

    /// Starts listening on `listen`:`port` (0 picks a free port), with TLS when `tls` is set.
    /// `names`: host names besides the loopback ones that requests may use (the machine's names
    /// with `--lan`); `publicPaths`: paths served without the token (the pairing pages).
    public init(
        listen: Listen, port: Int, tls: TLSFiles? = nil, token: String, names: Set<String> = [],
        publicPaths: Set<String> = [], limits: ServerLimits = ServerLimits(), delegate: any ServerDelegate
    ) throws {
        self.delegate = delegate
        self.tls = tls != nil
        self.limits = limits
        access = AccessPolicy(token: token, port: port, secure: tls != nil)
        lws_set_log_level(Int32(LLL_ERR), nil)

        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.options = UInt64(LWS_SERVER_OPTION_EXPLICIT_VHOSTS)
        if tls != nil { info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT) }
        info.gid = -1
        info.uid = -1
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.pt_serv_buf_size = 256 * 1024
        info.max_http_header_data = 8192
        info.timeout_secs = UInt32(limits.idleSeconds)
        guard let ctx = lws_create_context(&info) else { throw SfumatoError.io("cannot start the network library") }
        context = ctx

        do {
            let bound = try bind(listen, port: port, tls: tls)
            self.port = bound.port
            addresses = bound.addresses
        } catch {
            lws_context_destroy(ctx)
            context = nil
            freeRetained()
            throw error
        }
        var allowed = AccessPolicy.loopbackNames.union(names)
        if case .address(let a) = listen { allowed.insert(a.lowercased()) }
        let everyAddress = listen == .allInterfaces
        access = AccessPolicy(
            token: token, port: self.port, secure: tls != nil, names: allowed,
            isLocalAddress: { everyAddress && _localAddresses(includingLoopback: true).contains($0) })
        access.publicPaths = publicPaths
        running = true
        let t = Thread { [unowned self] in self.serviceLoop() }
        t.name = "sfumato-lws"
        thread = t
        t.start()
    }

    deinit { stop() }

    private func cString(_ s: String) -> UnsafePointer<CChar> {
        let p = strdup(s)!
        retained.append(UnsafeMutableRawPointer(p))
        return UnsafePointer(p)
    }

    private func freeRetained() {
        for p in retained { free(p) }
        retained.removeAll()
    }

    /// Makes the listening vhosts; returns the port they share and what they listen on.
    private func bind(_ listen: Listen, port: Int, tls: TLSFiles?) throws -> (port: Int, addresses: [String]) {
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = cString("sfumato")
        protocols[0].callback = _sfumatoLwsCallback
        protocols[0].per_session_data_size = MemoryLayout<Int>.size
        protocols[0].rx_buffer_size = 65536
        retained.append(UnsafeMutableRawPointer(protocols))

        // libwebsockets 4.1 binds an IPv4 address on an IPv6-enabled vhost to every interface
        // (warmcat/libwebsockets#2290): IPv4 addresses get a vhost with IPv6 off, IPv6 ones a
        // v6-only vhost.
        func vhost(_ iface: String?, port: Int, name: String) -> Int? {
            var v = lws_context_creation_info()
            v.port = Int32(port)
            v.iface = iface.map(cString)
            v.vhost_name = cString(name)
            v.protocols = UnsafePointer(protocols)
            v.alpn = cString("http/1.1")
            v.keepalive_timeout = Int32(limits.idleSeconds)
            if let iface {
                if iface.contains(":") {
                    v.options |= UInt64(LWS_SERVER_OPTION_IPV6_V6ONLY_MODIFY) | UInt64(LWS_SERVER_OPTION_IPV6_V6ONLY_VALUE)
                } else {
                    v.options |= UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
                }
            }
            if let tls {
                v.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
                v.ssl_cert_filepath = cString(tls.certificate)
                v.ssl_private_key_filepath = cString(tls.key)
            }
            guard let h = lws_create_vhost(context, &v) else { return nil }
            return Int(lws_get_vhost_listen_port(h))
        }
        let refused = SfumatoError.io("cannot listen on port \(port) (in use, or not allowed)")
        switch listen {
        case .allInterfaces:
            guard let p = vhost(nil, port: port, name: "all") else { throw refused }
            return (p, ["*"])
        case .address(let a):
            guard let p = vhost(a, port: port, name: "address") else {
                throw SfumatoError.io("cannot listen on \(a):\(port) (in use, not an address of this machine, or not allowed)")
            }
            return (p, [a])
        case .loopback:
            // With port 0 the IPv4 socket picks the port and ::1 takes the same one; a machine
            // without IPv6 serves 127.0.0.1 alone.
            guard let p = vhost("127.0.0.1", port: port, name: "loopback4") else { throw refused }
            let v6 = _localAddresses(includingLoopback: true).contains("::1") ? vhost("::1", port: p, name: "loopback6") : nil
            return (p, v6 == nil ? ["127.0.0.1"] : ["127.0.0.1", "::1"])
        }
    }

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
        freeRetained()
    }

    // MARK: MessageTransport (any thread)

    /// Queues a WebSocket message; the service thread sends it. A page that has let more than
    /// ``ServerLimits/maximumQueuedBytes`` pile up is disconnected instead.
    public func send(_ id: Int, _ data: [UInt8], binary: Bool) {
        lock.lock()
        guard let c = connections[id], c.isWebSocket, !c.closing else { lock.unlock(); return }
        if c.queuedBytes + data.count > limits.maximumQueuedBytes {
            c.closing = true
            c.outbox.removeAll()
            c.queuedBytes = 0
            lock.unlock()
            StandardStream.error.write("studio: page \(id) is not reading what it is sent; disconnecting it\n")
            wake()
            return
        }
        c.outbox.append((data, binary))
        c.queuedBytes += data.count
        lock.unlock()
        wake()
    }

    /// Number of messages waiting to go out on a connection.
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

    /// The delegate finished one message of `id`: reading resumes once half the window is free.
    public func handled(_ id: Int) {
        lock.lock()
        guard let c = connections[id] else { lock.unlock(); return }
        c.inFlight = max(0, c.inFlight - 1)
        let resume = c.paused && c.inFlight <= limits.messagesInFlight / 2
        if resume { c.resumeRequested = true }
        lock.unlock()
        if resume { wake() }
    }

    func wake() {
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

    /// Wakes every connection that has something to write, and resumes reading where the
    /// studio has caught up.
    func flushMailbox() {
        lock.lock()
        let ready = connections.values.filter { ($0.isWebSocket && (!$0.outbox.isEmpty || $0.closing)) || (!$0.isWebSocket && $0.response != nil) }
        let resume = connections.values.filter { $0.resumeRequested }
        for c in resume {
            c.resumeRequested = false
            c.paused = false
        }
        lock.unlock()
        for c in ready { if let w = c.wsi { lws_callback_on_writable(w) } }
        for c in resume { if let w = c.wsi { lws_rx_flow_control(w, 1) } }
    }

    func header(_ wsi: OpaquePointer?, _ token: lws_token_indexes) -> String? {
        let n = Int(lws_hdr_total_length(wsi, token))
        if n <= 0 { return nil }
        var buffer = [CChar](repeating: 0, count: n + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(n + 1), token) >= 0 else { return nil }
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

    /// The access checks for the request on `wsi`.
    func decide(_ wsi: OpaquePointer?, path: String, query: [String: String]) -> AccessPolicy.Decision {
        access.decide(
            .init(
                path: path, host: header(wsi, WSI_TOKEN_HOST), origin: header(wsi, WSI_TOKEN_ORIGIN),
                queryToken: query["token"], cookieHeader: header(wsi, WSI_TOKEN_HTTP_COOKIE)))
    }

    /// Sets a connection's response and asks for a writable callback.
    func respond(_ c: Connection, _ r: HTTPResponse) {
        lock.lock()
        c.response = r
        lock.unlock()
        wake()
    }
}

/// The machine's interface addresses (IPv4 and IPv6, numeric), for `--lan`'s names and certificate.
func _localAddresses(includingLoopback: Bool) -> [String] {
    var result: [String] = []
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return [] }
    defer { freeifaddrs(list) }
    var p: UnsafeMutablePointer<ifaddrs>? = first
    while let a = p {
        p = a.pointee.ifa_next
        guard let sa = a.pointee.ifa_addr else { continue }
        let family = Int32(sa.pointee.sa_family)
        guard family == AF_INET || family == AF_INET6 else { continue }
        let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        var host = [CChar](repeating: 0, count: 128)
        guard getnameinfo(sa, length, &host, 128, nil, 0, NI_NUMERICHOST) == 0 else { continue }
        var s = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let scope = s.firstIndex(of: "%") { s = String(s[..<scope]) }  // fe80::1%eth0
        if !includingLoopback && (s == "127.0.0.1" || s == "::1") { continue }
        if !result.contains(s) { result.append(s) }
    }
    return result
}
