import Foundation

/// Device memory, freed when the last reference goes.
final class _DeviceBuffer: @unchecked Sendable {
    let context: _CUDAContext
    let address: UInt64
    let byteCount: Int

    init(_ context: _CUDAContext, byteCount: Int) throws {
        self.context = context
        self.byteCount = byteCount
        var p: UInt64 = 0
        try context.enter()
        try context.driver.check(context.driver.cuMemAlloc(&p, max(byteCount, 16)), "allocating \(byteCount) bytes on the GPU")
        address = p
    }

    deinit {
        _ = try? context.enter()
        _ = context.driver.cuMemFree(address)
    }

    /// Queues a copy of `count` bytes from host memory at `source` to `offset` bytes in, on
    /// `stream` (the context's own by default).
    func upload(_ source: UnsafeRawPointer, count: Int, at offset: Int = 0, on stream: OpaquePointer? = nil) throws {
        precondition(offset >= 0 && offset + count <= byteCount, "upload outside the buffer")
        try context.driver.check(
            context.driver.cuMemcpyHtoDAsync(address + UInt64(offset), source, count, stream ?? context.stream), "copying to the GPU")
    }

    /// Queues a copy of `count` bytes from `offset` bytes in to host memory at `destination`,
    /// on `stream` (the context's own by default).
    func download(_ destination: UnsafeMutableRawPointer, count: Int, at offset: Int = 0, on stream: OpaquePointer? = nil) throws {
        precondition(offset >= 0 && offset + count <= byteCount, "download outside the buffer")
        try context.driver.check(
            context.driver.cuMemcpyDtoHAsync(destination, address + UInt64(offset), count, stream ?? context.stream),
            "copying from the GPU")
    }

    /// A small table of plain values on the device, found by its bytes among the last 64
    /// uploaded (a Gaussian's weights, a probe's spans, a point program's tables), so a repeated
    /// render allocates and copies nothing.
    static func table<T>(_ context: _CUDAContext, _ values: [T]) throws -> _DeviceBuffer {
        try values.withUnsafeBytes { try table(context, bytes: $0) }
    }

    /// ``table(_:_:)`` for raw bytes.
    static func table(_ context: _CUDAContext, bytes: UnsafeRawBufferPointer) throws -> _DeviceBuffer {
        // A point program's tables are 60 KB: hashed eight bytes a step and compared with memcmp,
        // not through an array's element-by-element Hasher (that took 0.4 ms a launch).
        let hash = _fastHash(bytes)
        let found = context.constants.withLock { list in
            list.first {
                $0.hash == hash && $0.key.count == bytes.count && $0.key.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            }?
            .buffer
        }
        if let found { return found }
        let key = [UInt8](bytes)
        let b = try _DeviceBuffer(context, byteCount: key.count)
        // A copy from pageable memory returns once the bytes are staged, before they reach the
        // device: waited for, so that kernels on any stream (a render's bands) find them there.
        try key.withUnsafeBytes { try b.upload($0.baseAddress!, count: $0.count) }
        try context.synchronize()
        context.constants.withLock { list in
            list.append((hash, key, b))
            if list.count > 64 { list.removeFirst() }
        }
        return b
    }
}

/// A 64-bit hash of a table's bytes, eight at a time (multiply and rotate; a filter for the
/// exact comparison that follows, not a defence against chosen collisions).
func _fastHash(_ bytes: UnsafeRawBufferPointer) -> Int {
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    var i = 0
    while i + 8 <= bytes.count {
        let v = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        h = ((h ^ v) &* 0xBF58_476D_1CE4_E5B9)
        h = (h << 31) | (h >> 33)
        i += 8
    }
    while i < bytes.count {
        h = (h ^ UInt64(bytes[i])) &* 0x94D0_49BB_1331_11EB
        i += 1
    }
    return Int(truncatingIfNeeded: h ^ (h >> 29))
}

/// Page-locked host memory, for copies that run at the bus's full speed (pageable copies are
/// about eight times slower) and that can overlap kernels.
final class _PinnedBuffer: @unchecked Sendable {
    let context: _CUDAContext
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int

    init(_ context: _CUDAContext, byteCount: Int) throws {
        self.context = context
        self.byteCount = byteCount
        var p: UnsafeMutableRawPointer?
        try context.enter()
        try context.driver.check(context.driver.cuMemAllocHost(&p, max(byteCount, 16)), "allocating \(byteCount) bytes of pinned memory")
        pointer = p!
    }

    deinit {
        _ = try? context.enter()
        _ = context.driver.cuMemFreeHost(pointer)
    }
}
