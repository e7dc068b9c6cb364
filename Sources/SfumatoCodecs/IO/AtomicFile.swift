import Foundation
import SfumatoCore

/// A file written under a temporary name in the destination's folder and renamed into place
/// only when complete, so a failed or interrupted write never leaves a partial file behind.
final class _AtomicFile {
    let path: String
    let temporaryPath: String
    private(set) var handle: UnsafeMutablePointer<FILE>?
    private var committed = false
    /// Registered so that an interrupted process removes the temporary file.
    private var slot: Int?

    init(path: String) throws {
        self.path = path
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let made = TemporaryFiles.create(template: folder + "/." + url.lastPathComponent + ".XXXXXX")
        let fd = made.fd
        guard fd >= 0 else {
            throw SfumatoError.io("\(path): cannot create a file there (\(String(cString: strerror(errno))))")
        }
        temporaryPath = made.path
        slot = made.slot
        fchmod(fd, 0o644)
        guard let f = fdopen(fd, "wb") else {
            close(fd)
            unlink(temporaryPath)
            TemporaryFiles.unregister(slot)
            throw SfumatoError.io("\(path): cannot open for writing")
        }
        handle = f
    }

    /// Writes bytes; throws on a short write (disk full).
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let handle else { throw SfumatoError.io("\(path): already closed") }
        if bytes.count > 0 && fwrite(bytes.baseAddress, 1, bytes.count, handle) != bytes.count {
            throw SfumatoError.io("\(path): write failed (\(String(cString: strerror(errno))))")
        }
    }

    /// Flushes, closes and renames into place.
    func commit() throws {
        guard let handle else { throw SfumatoError.io("\(path): already closed") }
        self.handle = nil
        let ok = fflush(handle) == 0
        let closed = fclose(handle) == 0
        guard ok && closed else {
            unlink(temporaryPath)
            TemporaryFiles.unregister(slot)
            throw SfumatoError.io("\(path): write failed (\(String(cString: strerror(errno))))")
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            TemporaryFiles.unregister(slot)
            throw SfumatoError.io("\(path): cannot rename into place (\(reason))")
        }
        TemporaryFiles.unregister(slot)
        committed = true
    }

    /// Abandons the file.
    func discard() {
        if let handle { fclose(handle) }
        handle = nil
        if !committed {
            unlink(temporaryPath)
            TemporaryFiles.unregister(slot)
        }
        committed = true
    }

    deinit { if !committed { discard() } }
}

/// Writes `bytes` to `path` atomically; `-` writes to standard output.
public func writeFileAtomically(_ bytes: [UInt8], to path: String) throws {
    if path == "-" {
        var written = 0
        try bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let n = Glibc.write(1, buffer.baseAddress! + written, buffer.count - written)
                if n <= 0 { throw SfumatoError.io("standard output: write failed (\(String(cString: strerror(errno))))") }
                written += n
            }
        }
        return
    }
    let f = try _AtomicFile(path: path)
    try bytes.withUnsafeBytes { try f.write($0) }
    try f.commit()
}
