/// The server's resource policy: what one client, or many, may hold at once.
///
/// Over a limit the server refuses (a closed connection, 413 or 503), never queues without
/// bound, so memory stays bounded and the studio keeps answering whoever else is there.
public struct ServerLimits: Sendable {
    /// Network connections open at once (HTTP and WebSocket, 1...4096); more are closed as
    /// they arrive.
    public var maximumConnections = 512
    /// Pages (WebSockets) connected at once (1...256); more upgrades are refused with 503.
    public var maximumWebSockets = 8
    /// Request bodies (`POST /api/open`) over this are refused with 413.
    public var maximumBodyBytes = 64 << 20
    /// Text messages over this are dropped and answered with an error (a pen batch of 4,096
    /// samples is about 800 KB).
    public var maximumTextMessageBytes = 2 << 20
    /// Binary messages (camera frames) over this are dropped and answered with an error.
    public var maximumBinaryMessageBytes = 8 << 20
    /// A WebSocket's messages waiting for the studio: past this many the server stops reading
    /// that connection until the studio has caught up (TCP then slows the sender down).
    public var messagesInFlight = 32
    /// Bytes queued to one WebSocket: a page that stops reading past this is disconnected.
    public var maximumQueuedBytes = 64 << 20
    /// Seconds a connection may take to send its request headers, or sit idle between requests.
    public var idleSeconds = 10

    public init() {}
}
