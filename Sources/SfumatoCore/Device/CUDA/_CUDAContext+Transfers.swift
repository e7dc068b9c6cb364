import Foundation

extension _CUDAContext {
    /// Copies a host image of `height` rows (`rowBytes` apart, `packed` bytes used each) to
    /// `buffer` through pinned memory, in chunks: the cores copy a chunk into pinned memory while
    /// the bus carries the chunk before (a pageable copy is several times slower than a pinned
    /// one, and a host copy on every core is faster still).
    func upload(rows base: UnsafeRawPointer, rowBytes: Int, packed: Int, pitch: Int, height: Int, into buffer: _DeviceBuffer) throws {
        let staging = try stagingBuffer(bytes: pitch * height)
        let chunks = Self.chunks(height)
        let box = _UncheckedSendable((base, staging.pointer))
        for (y0, y1) in chunks {
            // Rows in bands, one band a thread.
            let rows = y1 - y0, bands = min(rows, defaultThreadCount)
            parallelFor(bands, threads: bands) { band in
                let (src, dst) = box.value
                for y in (y0 + band * rows / bands)..<(y0 + (band + 1) * rows / bands) {
                    (dst + y * pitch).copyMemory(from: src + y * rowBytes, byteCount: packed)
                }
            }
            try buffer.upload(staging.pointer + y0 * pitch, count: (y1 - y0) * pitch, at: y0 * pitch)
        }
        try synchronize()
    }

    /// Copies `buffer`'s image back to host rows, chunk by chunk: the bus carries a chunk into
    /// pinned memory while the cores copy the one before to its place.
    func download(
        _ buffer: _DeviceBuffer, into base: UnsafeMutableRawPointer, rowBytes: Int, packed: Int, pitch: Int, height: Int
    ) throws {
        let staging = try stagingBuffer(bytes: pitch * height)
        let chunks = Self.chunks(height)
        var events: [OpaquePointer?] = []
        defer { for e in events { _ = driver.cuEventDestroy(e) } }
        for (y0, y1) in chunks {
            try buffer.download(staging.pointer + y0 * pitch, count: (y1 - y0) * pitch, at: y0 * pitch)
            var e: OpaquePointer?
            try driver.check(driver.cuEventCreate(&e, 2), "cuEventCreate")  // CU_EVENT_DISABLE_TIMING
            events.append(e)
            try driver.check(driver.cuEventRecord(e, stream), "cuEventRecord")
        }
        let box = _UncheckedSendable((staging.pointer, base))
        for (i, (y0, y1)) in chunks.enumerated() {
            try driver.check(driver.cuEventSynchronize(events[i]), "cuEventSynchronize")
            let rows = y1 - y0, bands = min(rows, defaultThreadCount)
            parallelFor(bands, threads: bands) { band in
                let (src, dst) = box.value
                for y in (y0 + band * rows / bands)..<(y0 + (band + 1) * rows / bands) {
                    (dst + y * rowBytes).copyMemory(from: src + y * pitch, byteCount: packed)
                }
            }
        }
    }

    /// Row ranges for chunked copies: at least 64 rows each, at most 16 of them.
    static func chunks(_ height: Int) -> [(Int, Int)] {
        let n = min(max(height / 64, 1), 16)
        return (0..<n).map { (height * $0 / n, height * ($0 + 1) / n) }
    }

    /// The context's pinned staging memory, grown to `bytes` when smaller (kept between renders:
    /// page-locking memory costs more than the copies it speeds up).
    func stagingBuffer(bytes: Int) throws -> _PinnedBuffer {
        try Self.pinned(staging, bytes: bytes, self)
    }

    /// Page-locked memory a render's result comes down into before a sink reads it (apart from
    /// the staging memory, which the transfers use for themselves); kept as the staging is.
    func outputBuffer(bytes: Int) throws -> _PinnedBuffer {
        try Self.pinned(output, bytes: bytes, self)
    }

    /// Frees the output memory when it is larger than `bytes` (page-locked memory is the
    /// machine's, not only the process's).
    func releaseOutputBuffer(above bytes: Int) {
        output.withLock { held in
            if let b = held, b.byteCount > bytes { held = nil }
        }
    }

    private static func pinned(_ slot: _Locked<_PinnedBuffer?>, bytes: Int, _ context: _CUDAContext) throws -> _PinnedBuffer {
        try slot.withLock { held in
            if let b = held, b.byteCount >= bytes { return b }
            held = nil
            let b = try _PinnedBuffer(context, byteCount: bytes)
            held = b
            return b
        }
    }
}

extension _CUDAContext {
    /// Locks a bitmap's pages for the GPU's copy engines (once per bitmap: the lock is kept
    /// until the bitmap is freed), so its rows go over the bus straight, at the bus's full speed,
    /// with no copy through staging memory. False where the driver refuses (the caller then
    /// stages) or the bitmap is too small to be worth it.
    func lockPages(of bitmap: Bitmap) -> Bool {
        guard bitmap.byteCount >= 1 << 20 else { return false }
        let key = ObjectIdentifier(bitmap)
        if locked.withLock({ $0.contains(key) }) { return true }
        guard (try? enter()) != nil, driver.cuMemHostRegister(bitmap.baseAddress, bitmap.byteCount, 0) == 0 else { return false }
        locked.withLock { _ = $0.insert(key) }
        let base = _UncheckedSendable(bitmap.baseAddress)
        _BitmapFreeObserver.observe(bitmap.baseAddress) { [self] in
            _ = try? enter()
            _ = driver.cuMemHostUnregister(base.value)
            locked.withLock { _ = $0.remove(key) }
        }
        return true
    }
}
