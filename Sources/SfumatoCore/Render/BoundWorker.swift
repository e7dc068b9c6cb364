import CThreads
import Dispatch
import Foundation
import Synchronization

/// A thread bound to one core that runs the pool's jobs given to it, one at a time.
///
/// After a job it watches for the next one a little while before it sleeps: a render's passes
/// and reductions follow one another within microseconds.
final class _BoundWorker: @unchecked Sendable {
    /// Checks before sleeping (tens of microseconds), for the worker and for a caller waiting
    /// on its helpers.
    static let spinLimit = 50_000

    /// The core it is bound to.
    let cpu: Int32
    /// Jobs assigned so far; the worker has taken as many as it has seen.
    private let assigned = Atomic<Int>(0)
    private let sleeping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    /// The job to take: written before `assigned` grows, read after the worker sees it grow.
    private var job: _PoolJob?

    init(cpu: Int32) {
        self.cpu = cpu
        let thread = Thread { [unowned self] in loop() }
        thread.name = "sfumato-render-\(cpu)"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Hands `job` to the worker (it must have finished its last one: the pool's gate and the
    /// job's wait for its helpers see to that).
    func assign(_ job: _PoolJob) {
        self.job = job
        assigned.add(1, ordering: .sequentiallyConsistent)
        if sleeping.exchange(false, ordering: .sequentiallyConsistent) { wake.signal() }
    }

    private func loop() {
        _ = sfumato_bind_current_thread(cpu)
        var taken = 0
        while true {
            waitForJob(after: taken)
            taken += 1
            let j = job!
            job = nil
            j.helperWork()
        }
    }

    /// Returns once a job beyond the first `taken` has been assigned: a spin, then sleep. The
    /// flag is raised before the last look, and lowered by whoever sees it first, so a job
    /// assigned meanwhile either is seen or wakes the worker, and each signal is taken once.
    /// An assigner held up between its two steps may signal after the worker has run the job
    /// and gone back to sleep: the loop's look at `assigned` then sends the worker back to
    /// sleep (it must stay a loop).
    private func waitForJob(after taken: Int) {
        var spins = 0
        while assigned.load(ordering: .acquiring) == taken {
            if spins < Self.spinLimit {
                spins += 1
                continue
            }
            sleeping.store(true, ordering: .sequentiallyConsistent)
            if assigned.load(ordering: .sequentiallyConsistent) != taken {
                if !sleeping.exchange(false, ordering: .sequentiallyConsistent) { wake.wait() }
                return
            }
            wake.wait()
        }
    }
}
