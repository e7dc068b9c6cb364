import CThreads
import Dispatch
import Foundation
import Synchronization

/// The render threads: one kept per core the process may run on, each bound to its core, so a
/// render after idle gets every core at once.
///
/// Why bound: a woken thread goes where the kernel puts it, and some kernels (virtual machines
/// that pack work onto few virtual CPUs) put it on the waker's core after a few milliseconds
/// of idle, where it waits until the waker blocks. Measured on this project's 2-core machine:
/// after 10 ms idle, an unbound thread started 0.84-1.0 ms after it was woken, most of a short
/// render; one bound to the other core, 40-80 µs. The caller works too, on its own core, and
/// wakes only the threads bound to the others.
///
/// One job at a time: a `run` while another runs (another thread's render, or one nested in a
/// job) answers `false`, and the caller uses Dispatch instead.
final class _WorkerPool: @unchecked Sendable {
    /// The pool, or nil on one core.
    static let shared: _WorkerPool? = {
        var cpus = [Int32](repeating: 0, count: 1024)
        let n = Int(sfumato_allowed_cpus(&cpus, Int32(cpus.count)))
        return n > 1 ? _WorkerPool(cpus: Array(cpus[0..<n])) : nil
    }()

    private let cpus: [Int32]
    private let workers: [_BoundWorker]
    /// Held by the thread whose job runs.
    private let gate = NSLock()

    private init(cpus: [Int32]) {
        self.cpus = cpus
        workers = cpus.map { _BoundWorker(cpu: $0) }
    }

    /// Runs `body(i)` for i in 0..<count on the caller and up to `width - 1` workers (each index
    /// once, taken in order as threads come free) and waits for all; false, having run nothing,
    /// when a job is already running.
    func run(_ count: Int, width: Int, _ body: (Int) -> Void) -> Bool {
        guard gate.try() else { return false }
        defer { gate.unlock() }
        let helpers = helpers(max(0, min(width, count) - 1))
        withoutActuallyEscaping(body) { body in
            let job = _PoolJob(count: count, helpers: helpers.count, body: body)
            for w in helpers { w.assign(job) }
            job.work()
            job.waitForHelpers()
            job.dropBody()
        }
        return true
    }

    /// `k` workers of cores other than the caller's, from the next core on, round the list (so
    /// callers on different cores, in different processes, do not all pick the lowest cores).
    private func helpers(_ k: Int) -> [_BoundWorker] {
        guard k > 0 else { return [] }
        let here = sfumato_current_cpu()
        let start = (workers.firstIndex { $0.cpu == here } ?? -1) + 1
        return (0..<workers.count).lazy.map { self.workers[(start + $0) % self.workers.count] }
            .filter { $0.cpu != here }.prefix(k).map { $0 }
    }
}

/// One `run`: indices handed out by a counter; the helpers count down when they finish.
final class _PoolJob: @unchecked Sendable {
    private let next = Atomic<Int>(0)
    private let helpersLeft: Atomic<Int>
    private let helpers: Int
    private let finished = DispatchSemaphore(value: 0)
    private let count: Int
    /// The caller's closure, dropped before `run` returns (a helper may keep the job a moment
    /// longer, never the closure).
    private var body: ((Int) -> Void)?

    init(count: Int, helpers: Int, body: @escaping (Int) -> Void) {
        self.count = count
        self.helpers = helpers
        helpersLeft = Atomic(helpers)
        self.body = body
    }

    /// Takes indices until none are left.
    func work() {
        guard let body else { return }
        while true {
            let i = next.add(1, ordering: .relaxed).oldValue
            if i >= count { return }
            body(i)
        }
    }

    /// A helper's part: its indices, then the count down (the last one wakes the caller).
    func helperWork() {
        work()
        if helpersLeft.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { finished.signal() }
    }

    /// Waits for the helpers: a short spin (the last index is usually in flight), then the
    /// semaphore, which the last helper signals once (a wait that finds it signalled is cheap).
    func waitForHelpers() {
        if helpers == 0 { return }
        var spins = 0
        while helpersLeft.load(ordering: .acquiring) > 0 && spins < _BoundWorker.spinLimit { spins += 1 }
        finished.wait()
        // The helpers' writes, seen through the count (the semaphore orders them too).
        _ = helpersLeft.load(ordering: .acquiring)
    }

    /// Called once every helper has counted down.
    func dropBody() { body = nil }
}
