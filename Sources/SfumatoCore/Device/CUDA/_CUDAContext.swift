import Foundation

/// One NVIDIA GPU, opened once per process on first use (the driver's start costs about 0.3 s):
/// its primary context, one stream, device memory, and the modules loaded so far, cached by
/// their PTX text so that a new parameter value never compiles anything.
final class _CUDAContext: @unchecked Sendable {
    let driver: _CUDADriver
    let device: Int32
    let context: OpaquePointer?
    let stream: OpaquePointer?
    /// The device's name, e.g. `NVIDIA H200`.
    let name: String
    /// Compute capability, e.g. (9, 0).
    let capability: (major: Int, minor: Int)
    /// The driver's CUDA version, e.g. 12080 for 12.8.
    let driverVersion: Int
    /// Device memory in bytes.
    let totalMemory: Int
    /// Streaming multiprocessors (132 on an H200).
    let multiprocessors: Int

    private let lock = NSLock()
    /// Image buffers kept between renders (``imageBuffer(bytes:)``).
    let pool = _Locked<[_DeviceBuffer]>([])
    /// Small constant tables by their bytes (``_DeviceBuffer/table(_:_:)``).
    let constants = _Locked<[(hash: Int, key: [UInt8], buffer: _DeviceBuffer)]>([])
    /// Pinned host memory for transfers (``stagingBuffer(bytes:)``).
    let staging = _Locked<_PinnedBuffer?>(nil)
    /// Pinned host memory a render to a sink downloads into (``outputBuffer(bytes:)``).
    let output = _Locked<_PinnedBuffer?>(nil)
    /// Bitmaps whose pages are locked for transfers (``lockPages(of:)``).
    let locked = _Locked<Set<ObjectIdentifier>>([])
    /// Held for a whole GPU render: renders share the streams and the staging memory.
    let renderLock = NSLock()
    /// Streams for a render in bands (``_CUDARoute/renderInBands``), made on first use.
    private var bands: [OpaquePointer?] = []
    private let modules = _ModuleCache<OpaquePointer>()
    private var functions: [String: OpaquePointer] = [:]

    private init() throws {
        let d = try _CUDADriver.load()
        driver = d
        let started = d.cuInit(0)
        guard started == 0 else { throw _CUDADriver.LoadFailure.initFailed(started) }
        var count: Int32 = 0
        try d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount")
        guard count > 0 else { throw SfumatoError.unsupported("CUDA: the driver sees no GPU") }
        var dev: Int32 = 0
        try d.check(d.cuDeviceGet(&dev, 0), "cuDeviceGet")
        device = dev
        var chars = [CChar](repeating: 0, count: 256)
        try d.check(d.cuDeviceGetName(&chars, 255, dev), "cuDeviceGetName")
        name = Self.text(chars)
        var major: Int32 = 0, minor: Int32 = 0
        try d.check(d.cuDeviceGetAttribute(&major, 75, dev), "cuDeviceGetAttribute(major)")  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        try d.check(d.cuDeviceGetAttribute(&minor, 76, dev), "cuDeviceGetAttribute(minor)")
        capability = (Int(major), Int(minor))
        var sms: Int32 = 0
        try d.check(d.cuDeviceGetAttribute(&sms, 16, dev), "cuDeviceGetAttribute(multiprocessors)")  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
        multiprocessors = Int(max(sms, 1))
        var version: Int32 = 0
        try d.check(d.cuDriverGetVersion(&version), "cuDriverGetVersion")
        driverVersion = Int(version)
        var bytes = 0
        try d.check(d.cuDeviceTotalMem(&bytes, dev), "cuDeviceTotalMem")
        totalMemory = bytes
        var ctx: OpaquePointer?
        try d.check(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain")
        context = ctx
        try d.check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        var s: OpaquePointer?
        try d.check(d.cuStreamCreate(&s, 1), "cuStreamCreate")  // CU_STREAM_NON_BLOCKING
        stream = s
    }

    /// The process's GPU, or why there is none (tried once; the answer is kept).
    static let shared: Result<_CUDAContext, any Error> = Result { try _CUDAContext() }

    /// A C string the driver wrote into `chars` (up to its terminating zero).
    static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Makes the context current on the calling thread (each CUDA call needs it there).
    func enter() throws {
        try driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    }

    /// A one-line description, e.g. `NVIDIA H200 (sm_90, 139 GiB, driver CUDA 12.8)`.
    var summary: String {
        "\(name) (sm_\(capability.major)\(capability.minor), \(totalMemory >> 30) GiB, driver CUDA \(driverVersion / 1000).\(driverVersion % 1000 / 10))"
    }

    // MARK: - Modules

    /// The function `entry` of the module compiled from `ptx`, compiling it only the first time
    /// this text is seen in the process. `key` names the text cheaply (a kernel's shape, say):
    /// the lookup on every launch then hashes a few bytes, not the text (the gallery's is
    /// 565 KB), and the text is made only on a miss.
    func function(_ entry: String, key: String, in ptx: () -> String) throws -> OpaquePointer {
        let name = "\(key)/\(entry)"
        lock.lock()
        if let f = functions[name] {
            lock.unlock()
            return f
        }
        lock.unlock()
        let module = try modules.module(for: ptx()) { text in try load(text) }
        var f: OpaquePointer?
        try driver.check(driver.cuModuleGetFunction(&f, module, entry), "finding kernel \(entry)")
        lock.lock()
        functions[name] = f!
        lock.unlock()
        return f!
    }

    /// How many modules were compiled (JIT from PTX) in this process.
    var compiledModules: Int { modules.compiled }

    /// JIT-compiles PTX text into a module, with the driver's log in the error.
    private func load(_ ptx: String) throws -> OpaquePointer {
        try enter()
        var log = [CChar](repeating: 0, count: 8192)
        var options: [Int32] = [5, 6]  // CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
        var m: OpaquePointer?
        let result = log.withUnsafeMutableBytes { logBytes in
            var values: [UnsafeMutableRawPointer?] = [logBytes.baseAddress, UnsafeMutableRawPointer(bitPattern: 8191)]
            return ptx.withCString { text in driver.cuModuleLoadDataEx(&m, text, 2, &options, &values) }
        }
        if result != 0 {
            let detail = Self.text(log).trimmingCharacters(in: .whitespacesAndNewlines)
            try driver.check(result, "compiling a kernel module (\(detail.prefix(400)))")
        }
        return m!
    }

    // MARK: - Launching

    /// One kernel argument, passed by value.
    enum Argument {
        case pointer(UInt64)
        case int32(Int32)
        case float(Float)
    }

    /// Queues `function` on `stream` (the context's own by default) over a `grid` of
    /// `block`-sized thread blocks.
    func launch(
        _ function: OpaquePointer, grid: (Int, Int, Int), block: (Int, Int, Int), sharedBytes: Int = 0,
        _ arguments: [Argument], name: String, on stream: OpaquePointer? = nil
    ) throws {
        try enter()
        let storage = UnsafeMutableRawPointer.allocate(byteCount: 8 * max(arguments.count, 1), alignment: 8)
        defer { storage.deallocate() }
        var pointers: [UnsafeMutableRawPointer?] = []
        for (i, a) in arguments.enumerated() {
            let slot = storage + 8 * i
            switch a {
            case .pointer(let p): slot.storeBytes(of: p, as: UInt64.self)
            case .int32(let v): slot.storeBytes(of: v, as: Int32.self)
            case .float(let v): slot.storeBytes(of: v, as: Float.self)
            }
            pointers.append(slot)
        }
        guard grid.0 > 0, grid.1 > 0, grid.2 > 0 else { return }
        if sharedBytes > 48 * 1024 {
            // Above 48 KiB a kernel must opt in (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
            try driver.check(driver.cuFuncSetAttribute(function, 8, Int32(sharedBytes)), "allowing \(sharedBytes) bytes of shared memory")
        }
        try driver.check(
            driver.cuLaunchKernel(
                function, UInt32(grid.0), UInt32(grid.1), UInt32(grid.2), UInt32(block.0), UInt32(block.1), UInt32(block.2),
                UInt32(sharedBytes), stream ?? self.stream, &pointers, nil),
            "launching \(name)")
    }

    /// Waits for everything queued on `stream` (the context's own by default).
    func synchronize(_ stream: OpaquePointer? = nil) throws {
        try enter()
        try driver.check(driver.cuStreamSynchronize(stream ?? self.stream), "cuStreamSynchronize")
    }

    /// `count` streams of their own for bands of a render (made once, kept; callers hold
    /// ``renderLock``).
    func bandStreams(_ count: Int) throws -> [OpaquePointer?] {
        try enter()
        while bands.count < count {
            var s: OpaquePointer?
            try driver.check(driver.cuStreamCreate(&s, 1), "cuStreamCreate")  // CU_STREAM_NON_BLOCKING
            bands.append(s)
        }
        return Array(bands.prefix(count))
    }

    // MARK: - Timing

    /// Milliseconds the GPU spent on what `body` queues (CUDA events around it; waits for it).
    func time(_ body: () throws -> Void) throws -> Double {
        try enter()
        var start: OpaquePointer?, end: OpaquePointer?
        try driver.check(driver.cuEventCreate(&start, 0), "cuEventCreate")
        try driver.check(driver.cuEventCreate(&end, 0), "cuEventCreate")
        defer { _ = driver.cuEventDestroy(start); _ = driver.cuEventDestroy(end) }
        try driver.check(driver.cuEventRecord(start, stream), "cuEventRecord")
        try body()
        try driver.check(driver.cuEventRecord(end, stream), "cuEventRecord")
        try driver.check(driver.cuEventSynchronize(end), "cuEventSynchronize")
        var ms: Float = 0
        try driver.check(driver.cuEventElapsedTime(&ms, start, end), "cuEventElapsedTime")
        return Double(ms)
    }
}
