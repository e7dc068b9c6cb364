import Foundation

/// Files being written under temporary names, removed if the process is interrupted.
///
/// ``installSignalCleanup()`` makes SIGINT, SIGTERM, SIGHUP and SIGQUIT delete every registered
/// file and then end the process as the signal would have. The handler only reads a fixed table
/// of path buffers (allocated once, never freed) and calls `unlink`, both safe in a signal handler.
public enum TemporaryFiles {
    /// Files that can be registered at once; more are only removed by ordinary error handling.
    static let capacity = 64
    /// Longest path kept (longer ones are not registered).
    static let pathBytes = 4096
    /// `capacity` buffers of `pathBytes`: a slot's path is valid while its flag is set.
    nonisolated(unsafe) static let buffers = UnsafeMutablePointer<CChar>.allocate(capacity: capacity * pathBytes)
    nonisolated(unsafe) static let inUse: UnsafeMutablePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        p.initialize(repeating: 0, count: capacity)
        return p
    }()
    /// An NSLock rather than Synchronization's Mutex: the Mutex waits on futexes directly, which
    /// ThreadSanitizer cannot see, so it reported the table's accesses under the lock as races.
    static let lock = NSLock()

    /// Registers a path; returns its slot, or nil (table full, or path too long).
    public static func register(_ path: String) -> Int? {
        let bytes = Array(path.utf8)
        guard bytes.count < pathBytes else { return nil }
        return lock.withLock {
            for i in 0..<capacity where inUse[i] == 0 {
                let slot = buffers + i * pathBytes
                _ = bytes.withUnsafeBytes { memcpy(slot, $0.baseAddress!, bytes.count) }
                slot[bytes.count] = 0
                inUse[i] = 1
                return i
            }
            return nil
        }
    }

    /// Creates a file from a `mkstemp` template (ending in XXXXXX), named inside a registered slot:
    /// the slot holds the final name before the file exists, so an interrupt at any moment removes
    /// it. Returns the descriptor, the path and the slot (nil when the table is full).
    public static func create(template: String) -> (fd: Int32, path: String, slot: Int?) {
        let bytes = Array(template.utf8)
        let slot: Int? =
            bytes.count < pathBytes
            ? lock.withLock {
                for i in 0..<capacity where inUse[i] == 0 {
                    let p = buffers + i * pathBytes
                    _ = bytes.withUnsafeBytes { memcpy(p, $0.baseAddress!, bytes.count) }
                    p[bytes.count] = 0
                    // The X's first: until mkstemp writes the name, the slot names no file.
                    inUse[i] = 1
                    return i
                }
                return nil
            } : nil
        if let slot {
            let p = buffers + slot * pathBytes
            let fd = mkstemp(p)
            if fd < 0 { unregister(slot); return (fd, template, nil) }
            return (fd, String(cString: p), slot)
        }
        var local = Array(template.utf8CString)
        let fd = local.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        return (fd, local.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, nil)
    }

    /// Forgets a slot (its file was renamed into place or removed).
    public static func unregister(_ slot: Int?) {
        guard let slot else { return }
        lock.withLock { inUse[slot] = 0 }
    }

    /// Installs the handlers (once per process). The studio installs its own for a clean stop.
    public static func installSignalCleanup() {
        _ = buffers
        _ = inUse
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { signal(s, _temporaryFilesSignalHandler) }
    }
}

/// Removes every registered temporary file, then dies of the signal (default action).
func _temporaryFilesSignalHandler(_ signalNumber: Int32) {
    for i in 0..<TemporaryFiles.capacity where TemporaryFiles.inUse[i] != 0 {
        unlink(TemporaryFiles.buffers + i * TemporaryFiles.pathBytes)
    }
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
