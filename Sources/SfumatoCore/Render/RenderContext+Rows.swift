import Foundation

extension RenderContext {
    /// Hands `bitmap`'s rows to `sink`, top to bottom, in strips: a strip-encoding sink encodes
    /// them on the context's threads at once (a JPEG compressed in bands on every core; strips a
    /// multiple of its rows tall, as a render makes them) and takes them in order; another sink
    /// takes the rows in order on this thread.
    ///
    /// ```swift
    /// try RenderContext().write(decoded, to: writer)
    /// ```
    public func write(_ bitmap: Bitmap, to sink: any RowSink) throws {
        try deliver(rows: bitmap.baseAddress, rowBytes: bitmap.rowBytes, height: bitmap.height, to: sink)
    }

    /// `height` rows `rowBytes` apart from `rows` (which outlive the call) to `sink`, as above.
    func deliver(rows: UnsafeMutableRawPointer, rowBytes: Int, height: Int, to sink: any RowSink) throws {
        let encoder = sink as? any StripEncodingSink
        let layout = stripLayout(Rect(width: 1, height: height), multiple: encoder?.stripRowMultiple ?? 1)
        func strip(_ i: Int) -> (rows: UnsafeMutableRawPointer, count: Int) {
            (rows + i * layout.height * rowBytes, min(layout.height, height - i * layout.height))
        }
        guard encoder != nil else {
            for i in 0..<layout.count {
                let (first, count) = strip(i)
                try sink.write(rows: first, rowBytes: rowBytes, count: count)
            }
            return
        }
        // Threads take the next strip as they come free; the writer keeps finished strips until
        // the ones above them are written. The rows are the caller's: nothing to free.
        let writer = _OrderedWriter(sink: sink, rowBytes: rowBytes)
        writer.release = { _ in }
        let state = _Locked((next: 0, failure: nil as (any Error)?))
        let box = _UncheckedSendable(strip)
        parallelFor(min(options.threads, layout.count), threads: options.threads) { _ in
            while true {
                let index: Int? = state.withLock { s in
                    guard s.failure == nil, s.next < layout.count else { return nil }
                    s.next += 1
                    return s.next - 1
                }
                guard let index else { return }
                let (first, count) = box.value(index)
                do {
                    try writer.deliver(index: index, rows: first, count: count)
                } catch {
                    state.withLock { if $0.failure == nil { $0.failure = error } }
                    return
                }
            }
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        try writer.drain()
        guard writer.written == layout.count else {
            throw SfumatoError.io("the sink took \(writer.written) of \(layout.count) strips")
        }
    }
}
