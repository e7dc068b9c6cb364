import Foundation

/// A memory budget shared by the batch's jobs: a file starts once what it needs fits beside what
/// the running ones hold. A file larger than the whole budget runs alone rather than never.
final class BatchMemory: @unchecked Sendable {
    let budget: Int
    private var used = 0
    private var running = 0
    private let condition = NSCondition()

    init(budget: Int) { self.budget = budget }

    func acquire(_ bytes: Int) {
        condition.lock()
        while running > 0 && used + bytes > budget { condition.wait() }
        used += bytes
        running += 1
        condition.unlock()
    }

    func release(_ bytes: Int) {
        condition.lock()
        used -= bytes
        running -= 1
        condition.broadcast()
        condition.unlock()
    }
}

/// Runs a batch's files on `jobs` threads within a memory budget, records each result in the
/// manifest as it comes, and reports progress.
struct BatchRunner {
    let items: [BatchItem]
    let job: BatchJob
    let manifest: BatchManifest
    let jobs: Int
    let memory: BatchMemory
    let progress: BatchProgress

    /// Every file's record, in the items' order.
    func run() -> [BatchRecord] {
        // One image after another: what each file used goes back to the system.
        ProcessMemory.returnLargeBlocks()
        let next = NSLock()
        nonisolated(unsafe) var cursor = 0
        nonisolated(unsafe) var records = [BatchRecord?](repeating: nil, count: items.count)
        let group = DispatchGroup()
        let earlier = manifest.earlier
        for _ in 0..<max(1, min(jobs, items.count)) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                while true {
                    let i: Int = next.withLock {
                        defer { cursor += 1 }
                        return cursor
                    }
                    guard i < items.count else { return }
                    let item = items[i]
                    let need = job.memoryEstimate(item)
                    memory.acquire(need)
                    let record = job.run(item, earlier: earlier[item.relativeOutput])
                    memory.release(need)
                    // Skipped files were recorded by the run that wrote them.
                    if record.status != .skipped { manifest.append(record) }
                    next.withLock { records[i] = record }
                    progress.finished(record)
                }
            }
            // The renderer's own threads do the pixel work; this one mostly waits on them and the codecs.
            thread.stackSize = 1 << 22
            thread.start()
        }
        group.wait()
        return next.withLock { records.map { $0! } }
    }
}
