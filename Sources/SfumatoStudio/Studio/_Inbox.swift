import Foundation

/// Messages from the pages waiting for the studio's queue, one queue per page, taken in turn.
///
/// The server's thread posts; the studio's queue takes one item from the page whose turn it is,
/// then gives the queue back (so HTTP requests queued meanwhile run between messages), and the
/// page goes to the end of the line. A page that floods waits behind its own messages, never
/// in front of another page's. Each page's own queue is bounded by the server's read window
/// (``ServerLimits/messagesInFlight``).
final class _Inbox: @unchecked Sendable {
    enum Item {
        case message(InboundMessage)
        case closed
    }

    private let lock = NSLock()
    private var items: [Int: [Item]] = [:]
    /// Pages with items, in the order their turns come.
    private var turns: [Int] = []
    private var draining = false

    /// Adds an item for page `id` and makes sure the queue is taking them.
    func post(_ id: Int, _ item: Item, on queue: DispatchQueue, _ take: @escaping @Sendable (Int, Item) -> Void) {
        lock.lock()
        if items[id, default: []].isEmpty { turns.append(id) }
        items[id, default: []].append(item)
        let start = !draining
        draining = true
        lock.unlock()
        if start { queue.async { self.takeOne(on: queue, take) } }
    }

    private func takeOne(on queue: DispatchQueue, _ take: @escaping @Sendable (Int, Item) -> Void) {
        lock.lock()
        guard !turns.isEmpty else {
            draining = false
            lock.unlock()
            return
        }
        let id = turns.removeFirst()
        let item = items[id]!.removeFirst()
        if items[id]!.isEmpty { items[id] = nil } else { turns.append(id) }
        lock.unlock()
        take(id, item)
        queue.async { self.takeOne(on: queue, take) }
    }

    /// Items waiting, over all pages.
    var count: Int { lock.withLock { items.values.reduce(0) { $0 + $1.count } } }
}
