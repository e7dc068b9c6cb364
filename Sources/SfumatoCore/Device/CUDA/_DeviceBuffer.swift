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

    /// Queues a copy of `count` bytes from host memory at `source` to `offset` bytes in.
    func upload(_ source: UnsafeRawPointer, count: Int, at offset: Int = 0) throws {
        precondition(offset >= 0 && offset + count <= byteCount, "upload outside the buffer")
        try context.driver.check(
            context.driver.cuMemcpyHtoDAsync(address + UInt64(offset), source, count, context.stream), "copying to the GPU")
    }

    /// Queues a copy of `count` bytes from `offset` bytes in to host memory at `destination`.
    func download(_ destination: UnsafeMutableRawPointer, count: Int, at offset: Int = 0) throws {
        precondition(offset >= 0 && offset + count <= byteCount, "download outside the buffer")
        try context.driver.check(
            context.driver.cuMemcpyDtoHAsync(destination, address + UInt64(offset), count, context.stream), "copying from the GPU")
    }

    /// A small table of plain values on the device, found by its bytes among the last 64
    /// uploaded (a Gaussian's weights, a probe's spans, a point program's tables), so a repeated
    /// render allocates and copies nothing.
    static func table<T>(_ context: _CUDAContext, _ values: [T]) throws -> _DeviceBuffer {
        try values.withUnsafeBytes { try table(context, bytes: $0) }
    }

    /// ``table(_:_:)`` for raw bytes.
    static func table(_ context: _CUDAContext, bytes: UnsafeRawBufferPointer) throws -> _DeviceBuffer {
        let key = [UInt8](bytes), hash = key.hashValue
        if let b = context.constants.withLock({ $0.first { $0.hash == hash && $0.key == key }?.buffer }) { return b }
        let b = try _DeviceBuffer(context, byteCount: key.count)
        // The stream copies from pageable memory synchronously with respect to the host, so the
        // bytes may go once this returns.
        try key.withUnsafeBytes { try b.upload($0.baseAddress!, count: $0.count) }
        context.constants.withLock { list in
            list.append((hash, key, b))
            if list.count > 64 { list.removeFirst() }
        }
        return b
    }
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
