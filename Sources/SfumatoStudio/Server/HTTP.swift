import Foundation
import SfumatoCore

/// The HTTP methods a request can carry. The studio serves GET, HEAD and POST; the server
/// answers the others with 405.
public enum HTTPMethod: String, Sendable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case options = "OPTIONS"
    case connect = "CONNECT"
}

/// An HTTP request as the server hands it to the studio.
public struct HTTPRequest: Sendable {
    /// Parses query strings (`a=1&b=two%20words`, each fragment may also come separately).
    public static func parseQuery(_ fragments: [String]) -> [String: String] { _parseQuery(fragments) }

    public var method: HTTPMethod
    /// Path without the query string, e.g. `/api/render`.
    public var path: String
    /// Query parameters (`?width=960&token=...`), decoded.
    public var query: [String: String]
    /// The body (POST), at most the server's limit.
    public var body: [UInt8]
    /// The peer's address, for logs.
    public var peer: String
    /// Set when the client has gone away: long work for this request should stop.
    public let cancellation: CancellationToken

    public init(
        method: HTTPMethod, path: String, query: [String: String] = [:], body: [UInt8] = [], peer: String = "",
        cancellation: CancellationToken = CancellationToken()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.peer = peer
        self.cancellation = cancellation
    }
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

    /// JSON bytes made beforehand.
    public static func json(bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: bytes, headers: [("cache-control", "no-store")])
    }

    /// A JSON error: `{"error": message}`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(["error": message], status: status)
    }

    /// 405 with the methods the resource does take.
    public static func methodNotAllowed(_ method: HTTPMethod, path: String, allowed: [HTTPMethod]) -> HTTPResponse {
        var r = error(405, "\(method.rawValue) is not allowed on \(path) (allowed: \(allowed.map(\.rawValue).joined(separator: ", ")))")
        r.headers.append(("allow", allowed.map(\.rawValue).joined(separator: ", ")))
        return r
    }
}

/// What the server calls; implemented by the studio. Calls arrive on the server's threads and
/// must not block for long (hand work to a queue).
public protocol ServerDelegate: AnyObject, Sendable {
    /// An HTTP request that passed the access checks; call `respond` exactly once, from any thread.
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)
    /// A WebSocket opened (it passed the access checks).
    func webSocketOpened(_ id: Int)
    /// A complete WebSocket message. The server reads no more from this connection while
    /// `ServerLimits.messagesInFlight` of its messages wait: call ``MessageTransport/handled(_:)``
    /// once for each message when done with it.
    func webSocketMessage(_ id: Int, _ message: InboundMessage)
    /// A WebSocket's queued frames have gone out (room to send the next preview).
    func webSocketDrained(_ id: Int)
    /// A WebSocket closed (by either side, or the network).
    func webSocketClosed(_ id: Int)
}

/// A message from a page, as the server received it.
public enum InboundMessage: Sendable, Equatable {
    case text([UInt8])
    case binary([UInt8])
    /// A message over ``ServerLimits`` was dropped unread; the delegate should say so.
    case tooLarge(bytes: Int, binary: Bool)
}

/// How the studio sends to pages and tells the server it has handled their messages; the
/// ``WebServer`` implements it, tests record it.
public protocol MessageTransport: AnyObject, Sendable {
    /// Queues a message for a WebSocket.
    func send(_ id: Int, _ data: [UInt8], binary: Bool)
    /// Messages queued on a WebSocket and not yet written.
    func pending(_ id: Int) -> Int
    /// Closes a WebSocket after what is queued.
    func close(_ id: Int)
    /// The delegate is done with one message of this WebSocket (flow control).
    func handled(_ id: Int)
}

/// Parses `a=1&b=two%20words` (each fragment may also come separately).
func _parseQuery(_ fragments: [String]) -> [String: String] {
    var out: [String: String] = [:]
    for f in fragments {
        for part in f.split(separator: "&") {
            // Empty pieces kept: "=x" has an empty key (and is dropped), where the default split
            // gave no pieces at all, and indexing them trapped (found by the studio-requests fuzzer).
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let first = kv.first, !first.isEmpty else { continue }
            let key = first.removingPercentEncoding ?? first
            let value = kv.count > 1 ? (kv[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? kv[1]) : ""
            out[key] = value
        }
    }
    return out
}

/// The value of one cookie in a `Cookie:` header (`a=1; b=2`), or nil.
func _cookie(_ name: String, in header: String) -> String? {
    for part in header.split(separator: ";") {
        let kv = part.split(separator: "=", maxSplits: 1)
        if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == name {
            return kv[1].trimmingCharacters(in: .whitespaces)
        }
    }
    return nil
}
