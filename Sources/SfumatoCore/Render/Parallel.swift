import Dispatch
import Foundation

/// Wraps a value that the caller promises is used safely across threads (each thread touching
/// distinct parts, or only reading). Swift 6 cannot see that for raw pointers.
struct _UncheckedSendable<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// Runs `body(i)` for i in 0..<count on up to `threads` threads and waits for all: the render
/// threads (one bound to each core) when they are free, else Dispatch's.
///
/// ```swift
/// parallelFor(rows, threads: 2) { y in process(row: y) }
/// ```
public func parallelFor(
    _ count: Int, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
    _ body: (Int) -> Void
) {
    if count <= 0 { return }
    if count == 1 || threads <= 1 {
        for i in 0..<count { body(i) }
        return
    }
    if let pool = _WorkerPool.shared, pool.run(count, width: threads, body) { return }
    withoutActuallyEscaping(body) { body in
        let box = _UncheckedSendable(body)
        DispatchQueue.concurrentPerform(iterations: count) { i in box.value(i) }
    }
}

/// The number of threads renders use by default: every core the process may run on.
public var defaultThreadCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
