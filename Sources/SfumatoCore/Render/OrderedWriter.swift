import Foundation

/// Hands strips to a sink in order, whichever thread finishes them; one thread writes at a time
/// while the others keep computing. A strip-encoding sink encodes each strip first, on the
/// thread that finished it, and its rows go back at once.
final class _OrderedWriter: @unchecked Sendable {
    private enum Strip {
        case rows(UnsafeMutableRawPointer, count: Int)
        case encoded([UInt8], count: Int)
    }

    private let sink: any RowSink
    private let encoder: (any StripEncodingSink)?
    private let rowBytes: Int
    private let lock = NSLock()
    private let writing = NSLock()
    private var pending: [Int: Strip] = [:]
    private var nextIndex: Int
    /// Called (by the writing thread) after strip `index` reached the sink.
    var onWritten: (Int) -> Void = { _ in }
    /// Takes each strip's rows once the sink has them (or the render stopped without them).
    var release: (UnsafeMutableRawPointer) -> Void = { $0.deallocate() }

    /// `skipping`: strips the sink already has (from a render that had to start again).
    init(sink: any RowSink, rowBytes: Int, skipping: Int = 0) {
        self.sink = sink
        encoder = sink as? any StripEncodingSink
        self.rowBytes = rowBytes
        nextIndex = skipping
    }

    /// Strips still waiting when a render stops early (an error, a stream window miss that starts
    /// it again) are freed with the writer.
    deinit {
        for case .rows(let p, _) in pending.values { release(p) }
    }

    /// Strips the sink has taken, counting skipped ones (read once the render's threads are done).
    var written: Int { writing.withLock { nextIndex } }

    func deliver(index: Int, rows: UnsafeMutableRawPointer, count: Int) throws {
        var strip = Strip.rows(rows, count: count)
        if let encoder {
            defer { release(rows) }
            strip = .encoded(try encoder.encode(strip: index, rows: rows, rowBytes: rowBytes, count: count), count: count)
        }
        lock.lock()
        pending[index] = strip
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
                    guard let item else { break }
                    switch item {
                    case .rows(let rows, let count):
                        defer { release(rows) }
                        try sink.write(rows: rows, rowBytes: rowBytes, count: count)
                    case .encoded(let bytes, let count):
                        try encoder?.write(encoded: bytes, strip: nextIndex, count: count)
                    }
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
        for case .rows(let p, _) in pending.values { release(p) }
        pending.removeAll()
        lock.unlock()
        if left > 0 { throw SfumatoError.io("render finished with \(left) strip(s) unwritten") }
    }
}
