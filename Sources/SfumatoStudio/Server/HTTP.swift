import Foundation

/// An HTTP request as the server hands it to the studio.
public struct HTTPRequest: Sendable {
    public var method: String
    /// Path without the query string, e.g. `/api/render`.
    public var path: String
    /// Query parameters (`?width=960&token=...`), decoded.
    public var query: [String: String]
    /// The body (POST), at most the server's limit.
    public var body: [UInt8]
    /// The peer's address, for logs.
    public var peer: String
}

/// An HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// Extra headers (name, value).
    public var headers: [(String, String)]

    public init(status: Int = 200, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A JSON response.
    public static func json(_ object: Any, status: Int = 200) -> HTTPResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return HTTPResponse(status: status, contentType: "application/json", body: [UInt8](data), headers: [("cache-control", "no-store")])
    }

    /// A JSON error: `{"error": message}`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": message], status: status)
    }
}

/// What the server calls; implemented by the studio. Calls arrive on the server's threads and
/// must not block for long (hand work to a queue).
public protocol ServerDelegate: AnyObject, Sendable {
    /// Whether a request (HTTP or WebSocket upgrade) may proceed (the pairing token).
    func authorize(path: String, query: [String: String]) -> Bool
    /// An HTTP request; call `respond` exactly once, from any thread.
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)
    /// A WebSocket opened at `path`.
    func webSocketOpened(_ id: Int, path: String, query: [String: String])
    /// A complete WebSocket message.
    func webSocketMessage(_ id: Int, _ data: [UInt8], binary: Bool)
    /// A WebSocket closed (by either side, or the network).
    func webSocketClosed(_ id: Int)
}

/// Parses `a=1&b=two%20words` (each fragment may also come separately).
func _parseQuery(_ fragments: [String]) -> [String: String] {
    var out: [String: String] = [:]
    for f in fragments {
        for part in f.split(separator: "&") {
            let kv = part.split(separator: "=", maxSplits: 1).map(String.init)
            let key = kv[0].removingPercentEncoding ?? kv[0]
            let value = kv.count > 1 ? (kv[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? kv[1]) : ""
            out[key] = value
        }
    }
    return out
}
