import Foundation

// Strips handed to the context's threads, in order and within a window.
extension RenderContext {
    func schedule(
        _ rect: Rect, _ layout: _StripLayout, plan: _Plan,
        _ body: (Rect, _Worker) throws -> Void,
        finish: (Rect) throws -> Void
    ) throws {
        let state = _ScheduleState(count: layout.count, window: window)
        try schedule(
            rect, layout, state: state, body,
            finish: { strip in
                state.done((strip.y - rect.y) / layout.height)
                try finish(strip)
            })
    }

    /// The same, with `finish` responsible for marking strips done in `state`.
    func schedule(
        _ rect: Rect, _ layout: _StripLayout, state: _ScheduleState,
        _ body: (Rect, _Worker) throws -> Void,
        finish: (Rect) throws -> Void
    ) throws {
        let threads = min(options.threads, layout.count)
        let ws = workingSpace
        let cancellation = options.cancellation
        parallelFor(threads, threads: threads) { _ in
            let w = _Worker(workingSpace: ws)
            while let k = state.next() {
                if let cancellation, cancellation.isCancelled {
                    state.fail(SfumatoError.cancelled("the render was cancelled"))
                    break
                }
                let y = rect.y + k * layout.height
                let strip = Rect(x: rect.x, y: y, width: rect.width, height: min(layout.height, rect.maxY - y))
                do {
                    try body(strip, w)
                    try finish(strip)
                } catch {
                    state.fail(error)
                }
            }
        }
        if let e = state.error { throw e }
    }
}

/// Strip hand-out with a bounded window and first-error capture.
final class _ScheduleState: @unchecked Sendable {
    private let condition = NSCondition()
    private var nextIndex = 0
    private var finished: [Bool]
    private var oldestUnfinished = 0
    private let count: Int
    private let window: Int
    private(set) var error: Error?

    init(count: Int, window: Int) {
        self.count = count
        self.window = window
        finished = Array(repeating: false, count: count)
    }

    /// Strips from `first` on (the earlier ones count as finished: a sink already has them).
    convenience init(count: Int, window: Int, first: Int) {
        self.init(count: count, window: window)
        let skip = min(max(first, 0), count)
        for k in 0..<skip { finished[k] = true }
        nextIndex = skip
        oldestUnfinished = skip
    }

    func next() -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while error == nil && nextIndex < count && nextIndex > oldestUnfinished + window { condition.wait() }
        if error != nil || nextIndex >= count { return nil }
        nextIndex += 1
        return nextIndex - 1
    }

    func done(_ k: Int) {
        condition.lock()
        finished[k] = true
        while oldestUnfinished < count && finished[oldestUnfinished] { oldestUnfinished += 1 }
        condition.broadcast()
        condition.unlock()
    }

    func fail(_ e: Error) {
        condition.lock()
        if error == nil || (error is _StreamWindowMiss && !(e is _StreamWindowMiss)) { error = e }
        condition.broadcast()
        condition.unlock()
    }
}
