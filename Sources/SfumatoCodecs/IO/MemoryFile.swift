import Foundation
import SfumatoCore

/// A C stream that writes into memory (the C library's `open_memstream`), for encoders whose
/// libraries write to a `FILE *`.
final class _MemoryFile {
    let handle: UnsafeMutablePointer<FILE>
    // open_memstream updates these until the stream is closed, so they need fixed addresses.
    private let buffer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let size: UnsafeMutablePointer<Int>
    private var closed = false

    init() throws {
        buffer = .allocate(capacity: 1)
        buffer.initialize(to: nil)
        size = .allocate(capacity: 1)
        size.initialize(to: 0)
        guard let handle = open_memstream(buffer, size) else {
            buffer.deallocate()
            size.deallocate()
            throw SfumatoError.io("cannot open a stream in memory (\(String(cString: strerror(errno))))")
        }
        self.handle = handle
    }

    /// Closes the stream and returns what was written.
    func close() throws -> [UInt8] {
        guard !closed else { throw SfumatoError.io("the stream in memory is already closed") }
        closed = true
        guard fclose(handle) == 0, let data = buffer.pointee else { throw SfumatoError.io("writing into memory failed") }
        return Array(UnsafeRawBufferPointer(start: data, count: size.pointee))
    }

    deinit {
        if !closed { fclose(handle) }
        free(buffer.pointee)
        buffer.deallocate()
        size.deallocate()
    }
}
