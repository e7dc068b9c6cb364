import Foundation

/// Hands strips to a sink in order, whichever thread finishes them; one thread writes at a time
/// while the others keep computing.
final class _OrderedWriter: @unchecked Sendable {
    private let sink: any RowSink
    private let rowBytes: Int
    private let lock = NSLock()
    private let writing = NSLock()
    private var pending: [Int: (UnsafeMutableRawPointer, Int)] = [:]
    private var nextIndex: Int
    /// Called (by the writing thread) after strip `index` reached the sink.
    var onWritten: (Int) -> Void = { _ in }
    /// Takes each strip's rows once the sink has them (or the render stopped without them).
    var release: (UnsafeMutableRawPointer) -> Void = { $0.deallocate() }

    /// `skipping`: strips the sink already has (from a render that had to start again).
    init(sink: any RowSink, rowBytes: Int, skipping: Int = 0) {
        self.sink = sink
        self.rowBytes = rowBytes
        nextIndex = skipping
    }

    /// Strips still waiting when a render stops early (an error, a stream window miss that starts
    /// it again) are freed with the writer.
    deinit {
        for (_, (p, _)) in pending { release(p) }
    }

    /// Strips the sink has taken, counting skipped ones (read once the render's threads are done).
    var written: Int { writing.withLock { nextIndex } }

    func deliver(index: Int, rows: UnsafeMutableRawPointer, count: Int) throws {
        lock.lock()
        pending[index] = (rows, count)
        lock.unlock()
        try drain()
    }

    func drain() throws {
        while true {
            guard writing.try() else { return }
            do {
                while true {
                    lock.lock()
                    let item = pending.removeValue(forKey: nextIndex)
                    lock.unlock()
                    guard let (rows, count) = item else { break }
                    defer { release(rows) }
                    try sink.write(rows: rows, rowBytes: rowBytes, count: count)
                    onWritten(nextIndex)
                    nextIndex += 1
                }
            } catch {
                writing.unlock()
                throw error
            }
            writing.unlock()
            // A strip may have arrived between the last check and the unlock.
            lock.lock()
            let more = pending[nextIndex] != nil
            lock.unlock()
            if !more { return }
        }
    }

    func flush() throws {
        try drain()
        lock.lock()
        let left = pending.count
        for (_, (p, _)) in pending { release(p) }
        pending.removeAll()
        lock.unlock()
        if left > 0 { throw SfumatoError.io("render finished with \(left) strip(s) unwritten") }
    }
}
