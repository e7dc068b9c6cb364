#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard output or standard error, written without ever trapping.
///
/// Foundation's `FileHandle.write(_:)` traps when the write fails, and a write fails with `EPIPE` as soon as
/// whoever read the stream has gone (a closed terminal, `sfumato studio | head -1`, a supervisor that stopped
/// reading). A log line must never take down a studio holding a user's document, so diagnostics go through
/// this type: it retries interrupted and partial writes and drops the text on any other failure.
///
/// ```swift
/// StandardStream.error.write("studio: page connected\n")
/// ```
public enum StandardStream: Int32, Sendable {
    /// File descriptor 1.
    case output = 1
    /// File descriptor 2.
    case error = 2

    /// Writes `text` (UTF-8) in full, or as much as the stream accepts before it fails.
    /// - Returns: `false` when some of the text could not be written (the reader is gone); nothing traps.
    @discardableResult
    public func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = _systemWrite(rawValue, buffer.baseAddress! + done, buffer.count - done)
                if n > 0 { done += n; continue }
                if n < 0 && errno == EINTR { continue }
                return false
            }
            return true
        }
    }
}

#if canImport(Glibc)
    private let _systemWrite = Glibc.write
#else
    private let _systemWrite = Darwin.write
#endif
