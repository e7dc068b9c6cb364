import Foundation

/// Files being written under temporary names, removed if the process is interrupted.
///
/// ``installSignalCleanup()`` makes SIGINT, SIGTERM, SIGHUP and SIGQUIT delete every registered
/// file and then end the process as the signal would have. The handler only reads a fixed table
/// of C strings and calls `unlink`, both safe in a signal handler.
public enum TemporaryFiles {
    static let capacity = 256
    /// Slots of `strdup`ed paths; a slot is written under `lock`, read by the handler without it.
    nonisolated(unsafe) static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        p.initialize(repeating: nil, count: capacity)
        return p
    }()
    static let lock = NSLock()

    /// Registers a path; returns its slot (nil when the table is full: the file is then only
    /// removed by normal error handling).
    public static func register(_ path: String) -> Int? {
        lock.withLock {
            for i in 0..<capacity where slots[i] == nil {
                slots[i] = strdup(path)
                return i
            }
            return nil
        }
    }

    /// Forgets a slot (the file was renamed into place or removed).
    public static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.withLock {
            let p = slots[slot]
            slots[slot] = nil
            // A handler running now on another thread may still read the old pointer: keep it
            // alive (a few bytes per file written is a small price for never unlinking garbage).
            _ = p
        }
    }

    /// Installs the handlers (once per process). The studio installs its own for a clean stop.
    public static func installSignalCleanup() {
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(s, _temporaryFilesSignalHandler) }
    }
}

/// Removes every registered temporary file, then dies of the signal (default action).
func _temporaryFilesSignalHandler(_ signalNumber: Int32) {
    for i in 0..<TemporaryFiles.capacity {
        if let p = TemporaryFiles.slots[i] { unlink(p) }
    }
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
