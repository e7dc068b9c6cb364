import Foundation

extension _CUDARoute {
    /// Device memory for one run: the two image buffers steps alternate between, a scratch
    /// buffer for two-pass kernels, and the stream their work is queued on. Freed (given back
    /// to the context's pool) only once that work is done.
    final class Buffers {
        let context: _CUDAContext
        var current: _DeviceBuffer
        var spare: _DeviceBuffer
        let width: Int
        /// The image's rows (a band's, in a render in bands).
        var height: Int
        /// Bytes from one row to the next: a multiple of 16, as the gallery kernels need.
        let pitch: Int
        /// Where every step's kernels and copies go (nil: the context's own stream).
        let stream: OpaquePointer?
        private var scratchBuffers: [_DeviceBuffer] = []

        /// Rows the buffers hold: `height` may be set to fewer (a band's rows).
        let capacity: Int

        init(_ context: _CUDAContext, width: Int, height: Int, capacity: Int? = nil, stream: OpaquePointer? = nil) throws {
            self.context = context
            self.width = width
            self.height = height
            self.capacity = max(capacity ?? height, height)
            self.stream = stream
            pitch = (width * 4 + 15) & ~15
            current = try context.imageBuffer(bytes: pitch * self.capacity)
            spare = try context.imageBuffer(bytes: pitch * self.capacity)
        }

        func swap() { (current, spare) = (spare, current) }

        /// Device memory for a kernel's intermediate (16-bit rows, or a first pass) of at least
        /// `bytes`: two bytes per image byte, or more where a kernel asks (an interpolating
        /// Gaussian's anchor rows outnumber a very short image's rows), kept for the run, so
        /// steps on the stream reuse it in order and nothing waits to give it back.
        func scratch(bytes: Int) throws -> _DeviceBuffer {
            if let b = scratchBuffers.last, b.byteCount >= bytes { return b }
            // A larger one; the smaller stays held until the run ends (work queued may use it).
            let b = try context.imageBuffer(bytes: max(bytes, 2 * pitch * capacity))
            scratchBuffers.append(b)
            return b
        }

        deinit {
            context.recycle(current)
            context.recycle(spare)
            for b in scratchBuffers { context.recycle(b) }
        }
    }

    /// Uploads the source, runs every step, leaves the result in `buffers.current`.
    func execute(on context: _CUDAContext) throws -> Buffers {
        try context.enter()
        let buffers = try Buffers(context, width: width, height: height)
        try upload(into: buffers.current, pitch: buffers.pitch, context)
        try runSteps(buffers, context)
        return buffers
    }

    /// Queues every step over the image in `buffers.current`.
    func runSteps(_ buffers: Buffers, _ context: _CUDAContext) throws {
        for step in steps { try run(step, buffers, context) }
    }

    /// Renders into host memory: rows of `rowBytes` from `base` (the destination's pixel 0, 0),
    /// page-locked when `pinned` or when `owner`'s pages can be locked, holding at most `budget`
    /// bytes of device memory.
    func render(
        on context: _CUDAContext, into base: UnsafeMutableRawPointer, rowBytes: Int, straight: Bool, owner: Bitmap? = nil,
        pinned: Bool = false, budget: Int
    ) throws {
        let packed = width * 4
        guard let bands = bandRows(budget: budget) else {
            throw SfumatoError.unsupported(
                "CUDA: a \(width)x\(height) image needs \(deviceBytes(rows: height) >> 20) MiB of GPU memory whole, "
                    + "\(budget >> 20) MiB may be used\(halo == nil ? ", and a histogram takes the whole image" : ", and bands cannot hold their halos in less")"
            )
        }
        let direct = rowBytes == packed && packed % 16 == 0 && (pinned || owner.map { context.lockPages(of: $0) } == true)
        let locked = direct && source.rowBytes == packed && context.lockPages(of: source)
        if !bands.isEmpty && (locked || !wholeFits(budget: budget)) {
            try renderInBands(bands, on: context, into: base, rowBytes: rowBytes)
        } else {
            let buffers = try execute(on: context)
            if direct {
                try buffers.current.download(base, count: packed * height)
                try context.synchronize()
            } else {
                try context.download(buffers.current, into: base, rowBytes: rowBytes, packed: packed, pitch: buffers.pitch, height: height)
            }
        }
        // Steps with transparent edges leave partial alpha at the borders: premultiplied bytes,
        // made straight as the CPU's byte route stores them.
        if straight && steps.contains(where: { if case .neighborhood(_, false, _) = $0 { true } else { false } }) {
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: packed)
            defer { row.deallocate() }
            for y in 0..<height {
                let p = (base + y * rowBytes).assumingMemoryBound(to: UInt8.self)
                row.update(from: p, count: packed)
                _Convert.storeBytes(row, width, premultiplied: false, p)
            }
        }
    }

    func upload(into buffer: _DeviceBuffer, pitch: Int, _ context: _CUDAContext) throws {
        if source.rowBytes == width * 4, pitch == width * 4, context.lockPages(of: source) {
            try buffer.upload(source.baseAddress, count: width * 4 * height)
            return try context.synchronize()
        }
        try context.upload(rows: source.row(0), rowBytes: source.rowBytes, packed: width * 4, pitch: pitch, height: height, into: buffer)
    }

    private func run(_ step: Step, _ buffers: Buffers, _ context: _CUDAContext) throws {
        switch step {
        case .point(let p):
            try Self.point(p, buffers, context, tileWidth: tileWidth)
        case .pixel(let f, _):
            try _GalleryLaunch.pixel(f, buffers, context: context)
        case .neighborhood(let k, let clamp, _):
            try _GalleryLaunch.run(k, clamp: clamp, buffers, context: context)
        case .histogram(let h, let references):
            var histograms = [try Self.histogram(of: buffers, context)]
            for r in references {
                histograms.append(try Self.histogram(of: try r.execute(on: context), context))
            }
            h.install(histograms)
            guard h.lut != nil else { throw SfumatoError.unsupported("CUDA: \(h.mapping.name) gave no 8-bit table") }
            try Self.point(h, buffers, context, tileWidth: tileWidth)
        }
    }

    /// One fused point program over the current buffer, through its tables.
    static func point(_ p: _PointExec, _ buffers: Buffers, _ context: _CUDAContext, tileWidth: Int) throws {
        let count = buffers.pitch / 4 * buffers.height
        var arguments: [_CUDAContext.Argument] = [
            .pointer(buffers.current.address), .pointer(buffers.spare.address), .int32(Int32(count)),
            .int32(Int32(buffers.width)), .int32(Int32(tileWidth)),
            .int32(tileWidth % 4 != 0 || buffers.width % tileWidth % 4 != 0 ? 1 : 0), .int32(Int32(buffers.pitch / 4))
        ]
        let shape: _PointKernelPTX.Step
        if let lut = p.lut {
            arguments.append(.pointer(try _DeviceBuffer.table(context, bytes: UnsafeRawBufferPointer(start: lut, count: 3 * 256)).address))
            shape = .table
        } else if let fixed = p.tailFixed, let (m, tail) = p.matrixTail {
            // The coefficients exactly as mapMatrixTail computes them (in table steps).
            let n = Float(_PointExec.tailSteps)
            let toSteps = p.tailLinear ? n : n / 255
            let (c0, c1, c2, c3) = m.columns
            let rows: [Float] = [
                c0.x * toSteps, c1.x * toSteps, c2.x * toSteps, c3.x * n, c0.y * toSteps, c1.y * toSteps, c2.y * toSteps, c3.y * n,
                c0.z * toSteps, c1.z * toSteps, c2.z * toSteps, c3.z * n
            ]
            arguments += rows.map { .float($0) }
            let levels = p.tailLinear ? SRGB.decodedByte : UnsafePointer(_CUDARoute.byteValues)
            arguments.append(.pointer(try _DeviceBuffer.table(context, bytes: UnsafeRawBufferPointer(start: levels, count: 256 * 4)).address))
            arguments.append(.pointer(try _DeviceBuffer.table(context, bytes: UnsafeRawBufferPointer(start: fixed, count: (9 * 256 + 3) * 4)).address))
            // Padded to the kernel's shared copy (it copies whole words).
            var padded = [UInt8](repeating: 0, count: _PointKernelPTX.tailBytes)
            padded.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: tail, count: 3 * (_PointExec.tailSteps + 1)) }
            arguments.append(.pointer(try _DeviceBuffer.table(context, padded).address))
            arguments.append(.float(12_582_912 + n))
            shape = .matrixTail
        } else {
            throw SfumatoError.unsupported("CUDA: the point program has no 8-bit tables")
        }
        let f = try context.function(_PointKernelPTX.entry, key: "point-\(shape)") { _PointKernelPTX.text(for: [shape]) }
        let quads = max(count / 4, 1)
        let shared = _PointKernelPTX.sharedBytes(for: [shape])
        // A table in shared memory is copied by every block: then a few blocks a multiprocessor,
        // each looping over many pixels.
        let cap = context.multiprocessors * (shared > 0 ? 4 : 16)
        let blocks = min((quads + _PointKernelPTX.blockSize - 1) / _PointKernelPTX.blockSize, cap)
        try context.launch(
            f, grid: (blocks, 1, 1), block: (_PointKernelPTX.blockSize, 1, 1), sharedBytes: shared, arguments, name: "sfumato_point",
            on: buffers.stream)
        buffers.swap()
    }

    /// Byte values as floats, 0...255: what mapMatrixTail reads for encoded bytes.
    nonisolated(unsafe) static let byteValues: UnsafeMutablePointer<Float> = {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        for k in 0..<256 { p[k] = Float(k) }
        return p
    }()

    /// 256-bin counts per channel of the current image.
    static func histogram(of buffers: Buffers, _ context: _CUDAContext) throws -> Histogram {
        let counts = try _DeviceBuffer(context, byteCount: 4 * 256 * 4)
        try context.driver.check(context.driver.cuMemsetD8Async(counts.address, 0, 4 * 256 * 4, context.stream), "clearing counts")
        try _GalleryLaunch.histogram(buffers, into: counts, context: context)
        var host = [UInt32](repeating: 0, count: 4 * 256)
        try host.withUnsafeMutableBytes { try counts.download($0.baseAddress!, count: $0.count) }
        try context.synchronize()
        var h = Histogram(bins: 256)
        for c in 0..<4 { for b in 0..<256 { h.counts[c][b] = Int(host[c * 256 + b]) } }
        h.pixelCount = buffers.width * buffers.height
        return h
    }
}

extension _CUDAContext {
    /// A device buffer of exactly `bytes`, reusing one a previous render gave back (renders of
    /// the same size, as a studio's previews, then allocate nothing).
    func imageBuffer(bytes: Int) throws -> _DeviceBuffer {
        if let b = pool.withLock({ pool -> _DeviceBuffer? in
            guard let i = pool.firstIndex(where: { $0.byteCount == bytes }) else { return nil }
            return pool.remove(at: i)
        }) {
            return b
        }
        do {
            return try _DeviceBuffer(self, byteCount: bytes)
        } catch {
            // The pool's buffers of other sizes go back to the device before giving up.
            let released = pool.withLock { pool in
                let any = !pool.isEmpty
                pool.removeAll()
                return any
            }
            guard released else { throw error }
            return try _DeviceBuffer(self, byteCount: bytes)
        }
    }

    /// Bytes of device memory a render may hold: three quarters of what is free and of what the
    /// pool keeps (which it gives back first when short), at most `limit`.
    func memoryBudget(limit: Int?) -> Int {
        var free = 0, total = 0
        let pooled = pool.withLock { $0.reduce(0) { $0 + $1.byteCount } }
        let known = (try? enter()) != nil && driver.cuMemGetInfo(&free, &total) == 0
        return min(limit ?? .max, (known ? free + pooled : totalMemory / 2) / 4 * 3)
    }

    /// Keeps a buffer for the next render: the newest sixteen, up to 2 GiB in all (a render in
    /// bands holds a dozen buffers; a studio's previews then allocate nothing).
    func recycle(_ b: _DeviceBuffer) {
        pool.withLock { pool in
            pool.append(b)
            while pool.count > 16 || pool.reduce(0, { $0 + $1.byteCount }) > 2 << 30 { pool.removeFirst() }
        }
    }
}
