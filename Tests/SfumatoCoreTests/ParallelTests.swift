import Foundation
import SfumatoCore
import Synchronization
import Testing

/// `parallelFor`: every index once, on the render threads or Dispatch's, whatever else runs.
/// One at a time (other suites' renders still run meanwhile), and a pool that loses a wake-up
/// hangs: the time limit turns that into a failure.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ParallelTests {
    /// Counts how often each index ran.
    final class Tally: @unchecked Sendable {
        let counts: UnsafeMutablePointer<Atomic<Int>>
        let size: Int
        init(_ size: Int) {
            self.size = max(size, 0)  // no indices for a negative count
            counts = .allocate(capacity: max(size, 1))
            for i in 0..<max(size, 1) { (counts + i).initialize(to: Atomic(0)) }
        }
        deinit { counts.deallocate() }
        func hit(_ i: Int) { counts[i].add(1, ordering: .relaxed) }
        var eachOnce: Bool { (0..<size).allSatisfy { counts[$0].load(ordering: .relaxed) == 1 } }
    }

    @Test(arguments: [Int.min, -5, 0, 1, 2, 3, 7, 64, 1000])
    func everyIndexOnce(count: Int) {
        // Hostile widths too: none, negative, and far more threads than cores or indices.
        for threads in [Int.min, -1, 0, 1, 2, 3, 8, 4096, Int.max] {
            let tally = Tally(count)
            parallelFor(count, threads: threads) { tally.hit($0) }
            #expect(tally.eachOnce, "count \(count), threads \(threads)")
        }
    }

    /// Thousands of jobs in a row, and jobs after the threads have gone to sleep: a job handed to
    /// a thread as it falls asleep must neither be lost (a hang) nor run twice.
    @Test func manyJobsAndJobsAfterSleep() {
        for round in 0..<5000 {
            let tally = Tally(4)
            parallelFor(4, threads: 2) { tally.hit($0) }
            #expect(tally.eachOnce, "round \(round)")
        }
        for pause in [0.0001, 0.001, 0.02] {
            for _ in 0..<5 {
                Thread.sleep(forTimeInterval: pause)
                let tally = Tally(16)
                parallelFor(16) { tally.hit($0) }
                #expect(tally.eachOnce, "after \(pause) s")
            }
        }
    }

    /// A call inside a call, and calls from several threads at once (the renders of a server):
    /// one of them has the render threads, the others run on Dispatch's.
    @Test func nestedAndConcurrentCalls() {
        let outer = Tally(8)
        let inner = (0..<8).map { _ in Tally(50) }
        parallelFor(8) { i in
            outer.hit(i)
            parallelFor(50) { inner[i].hit($0) }
        }
        #expect(outer.eachOnce && inner.allSatisfy(\.eachOnce))

        let tallies = (0..<6).map { _ in Tally(300) }
        DispatchQueue.concurrentPerform(iterations: 6) { k in
            for _ in 0..<20 { parallelFor(300) { tallies[k].hit($0) } }
        }
        // 20 jobs each: every index 20 times.
        #expect(tallies.allSatisfy { t in (0..<300).allSatisfy { t.counts[$0].load(ordering: .relaxed) == 20 } })
    }

    /// With more than one core, a second thread joins: index 0 waits (up to 20 s) for another
    /// index to start on a thread other than its own, which only a second thread can do.
    @Test func aSecondThreadJoins() {
        guard defaultThreadCount > 1 else { return }
        for pause in [0.0, 0.03] {
            Thread.sleep(forTimeInterval: pause)
            let started = Atomic<Int>(0)
            let joined = Atomic<Bool>(false)
            parallelFor(2, threads: 2) { i in
                if i == 0 {
                    let deadline = Date().addingTimeInterval(20)
                    while started.load(ordering: .acquiring) == 0 && Date() < deadline {}
                    joined.store(started.load(ordering: .acquiring) == 1, ordering: .releasing)
                } else {
                    started.store(1, ordering: .releasing)
                }
            }
            let didJoin = joined.load(ordering: .acquiring)
            #expect(didJoin, "after \(pause) s idle")
        }
    }
}
