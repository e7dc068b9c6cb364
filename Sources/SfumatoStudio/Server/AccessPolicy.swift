import CCrypto
import Foundation

/// Who may talk to the studio, decided before a request or WebSocket reaches it.
///
/// Three checks, in order, as Jupyter and other local servers make them:
/// - **Host**: the `Host` header must name this studio (a loopback name, or with `--lan` one of
///   the machine's addresses or names) with its port. A DNS-rebinding page reaches the studio
///   under its own domain name, and is refused here.
/// - **Origin**: when a browser sends one (every WebSocket upgrade and cross-site request has it),
///   it must be this studio's own origin. Another site's page that opens `ws://127.0.0.1:PORT/ws`
///   is refused here.
/// - **Token**: every request carries the secret the printed URL holds, as `?token=` or as the
///   cookie set on the first visit (HttpOnly, SameSite=Strict). Other local users and pages
///   without the URL are refused here. A few public paths (``publicPaths``) need no token.
public struct AccessPolicy: Sendable {
    /// The secret (32 hex digits).
    public let token: String
    /// The port the studio listens on.
    public let port: Int
    /// Whether pages come over TLS (`https`/`wss`).
    public let secure: Bool
    /// Host names accepted in `Host` and `Origin` (lowercase; IPv6 addresses without brackets).
    public let names: Set<String>
    /// Accepts an address literal not in `names` (the machine's current addresses with `--lan`).
    public let isLocalAddress: @Sendable (String) -> Bool
    /// Paths served without the token (with `--lan`, the pairing pages: ``Pairing/paths``).
    public var publicPaths: Set<String> = []

    /// The names every studio answers to on this machine.
    public static let loopbackNames: Set<String> = ["127.0.0.1", "localhost", "::1"]

    public init(
        token: String, port: Int, secure: Bool, names: Set<String> = AccessPolicy.loopbackNames,
        isLocalAddress: @escaping @Sendable (String) -> Bool = { _ in false }
    ) {
        self.token = token
        self.port = port
        self.secure = secure
        self.names = Set(names.map { $0.lowercased() })
        self.isLocalAddress = isLocalAddress
    }

    /// The name of the cookie that keeps the token (one per port: cookies ignore ports).
    public var cookieName: String { "sfumato-\(port)" }

    /// What the request's headers carry, as the checks need them.
    public struct Credentials: Sendable {
        public var path: String
        public var host: String?
        public var origin: String?
        public var queryToken: String?
        public var cookieHeader: String?

        public init(path: String, host: String?, origin: String?, queryToken: String?, cookieHeader: String?) {
            self.path = path
            self.host = host
            self.origin = origin
            self.queryToken = queryToken
            self.cookieHeader = cookieHeader
        }
    }

    /// The outcome of the checks.
    public enum Decision: Sendable, Equatable {
        /// Let it through; `setCookie` when the token came in the URL and the cookie should keep it.
        case allow(setCookie: Bool)
        /// Refuse with this status and plain message.
        case deny(status: Int, message: String)
    }

    /// Checks a request's Host, Origin and token.
    public func decide(_ c: Credentials) -> Decision {
        guard let host = c.host, !host.isEmpty else {
            return .deny(status: 400, message: "the request has no Host header")
        }
        guard accepts(authority: host) else {
            return .deny(status: 403, message: "Host \(host.prefix(100)) is not this studio's address")
        }
        if let origin = c.origin, !origin.isEmpty, !acceptsOrigin(origin) {
            return .deny(status: 403, message: "requests from \(origin.prefix(100)) are not allowed: only this studio's own page may call it")
        }
        if publicPaths.contains(c.path) { return .allow(setCookie: false) }
        let fromCookie = c.cookieHeader.flatMap { _cookie(cookieName, in: $0) }
        if let q = c.queryToken, Self.same(q, token) {
            return .allow(setCookie: !(fromCookie.map { Self.same($0, token) } ?? false))
        }
        if let k = fromCookie, Self.same(k, token) { return .allow(setCookie: false) }
        return .deny(status: 403, message: "a token is required: open the URL the studio printed")
    }

    /// The `Set-Cookie` value that keeps the token for this studio's pages.
    public var cookie: String {
        "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// Whether `host[:port]` names this studio.
    func accepts(authority: String) -> Bool {
        guard let (name, port) = Self.split(authority: authority) else { return false }
        let defaultPort = secure ? 443 : 80
        guard (port ?? defaultPort) == self.port else { return false }
        return names.contains(name) || isLocalAddress(name)
    }

    /// Whether an `Origin` (`scheme://host[:port]`) is this studio's.
    func acceptsOrigin(_ origin: String) -> Bool {
        let scheme = secure ? "https://" : "http://"
        guard origin.lowercased().hasPrefix(scheme) else { return false }
        return accepts(authority: String(origin.dropFirst(scheme.count)))
    }

    /// `name:port`, `[v6]:port`, `name` -> (lowercased name, port); nil when malformed.
    static func split(authority: String) -> (String, Int?)? {
        let a = authority.lowercased()
        if a.count > 300 || a.contains("/") || a.contains("@") { return nil }
        if a.hasPrefix("[") {
            guard let close = a.firstIndex(of: "]") else { return nil }
            let name = String(a[a.index(after: a.startIndex)..<close])
            let rest = a[a.index(after: close)...]
            if rest.isEmpty { return (name, nil) }
            guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()), (1...65535).contains(p) else { return nil }
            return (name, p)
        }
        let parts = a.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return parts[0].isEmpty ? nil : (String(parts[0]), nil)
        case 2:
            guard !parts[0].isEmpty, let p = Int(parts[1]), (1...65535).contains(p) else { return nil }
            return (String(parts[0]), p)
        default: return nil
        }
    }

    /// Compares secrets in time independent of where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count, !x.isEmpty else { return false }
        return CRYPTO_memcmp(x, y, x.count) == 0
    }
}
