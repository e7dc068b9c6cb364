import Foundation
import SfumatoCore

/// Memory for full renders (`/api/render`, `/api/export`), shared by every request.
///
/// A render takes its estimated bytes before it starts and gives them back when done; one that
/// does not fit waits, a few at most (more are refused at once), and gives up when its client
/// leaves. A render larger than the whole budget runs alone, so it can always run.
final class _RenderBudget: @unchecked Sendable {
    private let condition = NSCondition()
    private let total: Int
    private let maximumWaiting: Int
    private var used = 0
    private var running = 0
    private var waiting = 0

    init(bytes: Int, waiting: Int) {
        total = bytes
        maximumWaiting = waiting
    }

    /// Takes `bytes`, waiting while others hold too much; false when too many wait already or the
    /// client left while waiting.
    func acquire(_ bytes: Int, cancellation: CancellationToken) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        func fits() -> Bool { running == 0 || used + bytes <= total }
        if !fits() {
            guard waiting < maximumWaiting else { return false }
            waiting += 1
            defer { waiting -= 1 }
            while !fits() {
                if cancellation.isCancelled { return false }
                _ = condition.wait(until: Date().addingTimeInterval(0.25))
            }
        }
        if cancellation.isCancelled { return false }
        used += bytes
        running += 1
        return true
    }

    func release(_ bytes: Int) {
        condition.lock()
        used -= bytes
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}
