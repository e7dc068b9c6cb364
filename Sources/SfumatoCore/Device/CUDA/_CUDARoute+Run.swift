import Foundation

extension _CUDARoute {
    /// Device memory for one run: the two image buffers steps alternate between.
    final class Buffers {
        let context: _CUDAContext
        var current: _DeviceBuffer
        var spare: _DeviceBuffer
        let width: Int, height: Int

        init(_ context: _CUDAContext, width: Int, height: Int) throws {
            self.context = context
            self.width = width
            self.height = height
            current = try context.imageBuffer(bytes: width * height * 4)
            spare = try context.imageBuffer(bytes: width * height * 4)
        }

        func swap() { (current, spare) = (spare, current) }

        deinit {
            context.recycle(current)
            context.recycle(spare)
        }
    }

    /// Uploads the source, runs every step, leaves the result in `buffers.current`.
    func execute(on context: _CUDAContext) throws -> Buffers {
        try context.enter()
        let buffers = try Buffers(context, width: width, height: height)
        try upload(into: buffers.current, context)
        try runSteps(buffers, context)
        return buffers
    }

    /// Queues every step over the image in `buffers.current`.
    func runSteps(_ buffers: Buffers, _ context: _CUDAContext) throws {
        for step in steps { try run(step, buffers, context) }
    }

    /// Renders into host memory: rows of `rowBytes` from `base` (the destination's pixel 0, 0).
    func render(on context: _CUDAContext, into base: UnsafeMutableRawPointer, rowBytes: Int, straight: Bool) throws {
        let buffers = try execute(on: context)
        let packed = width * 4
        if rowBytes == packed {
            try buffers.current.download(base, count: packed * height)
        } else {
            for y in 0..<height { try buffers.current.download(base + y * rowBytes, count: packed, at: y * packed) }
        }
        try context.synchronize()
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

    func upload(into buffer: _DeviceBuffer, _ context: _CUDAContext) throws {
        let packed = width * 4
        if source.rowBytes == packed {
            try buffer.upload(source.row(0), count: packed * height)
        } else {
            for y in 0..<height { try buffer.upload(source.row(y), count: packed, at: y * packed) }
        }
    }

    private func run(_ step: Step, _ buffers: Buffers, _ context: _CUDAContext) throws {
        switch step {
        case .point(let p):
            try Self.point(p, buffers, context)
        case .neighborhood(let k, let clamp, let name):
            try _GalleryLaunch.run(
                k, clamp: clamp, from: buffers.current, to: buffers.spare, width: width, height: height,
                context: context, name: name)
            buffers.swap()
        case .histogram(let h, let references):
            var histograms = [try Self.histogram(of: buffers.current, width: width, height: height, context)]
            for r in references {
                let b = try r.execute(on: context)
                histograms.append(try Self.histogram(of: b.current, width: r.width, height: r.height, context))
            }
            h.install(histograms)
            guard h.lut != nil else { throw SfumatoError.unsupported("CUDA: \(h.mapping.name) gave no 8-bit table") }
            try Self.point(h, buffers, context)
        }
    }

    /// One fused point program over the current buffer, through its tables.
    static func point(_ p: _PointExec, _ buffers: Buffers, _ context: _CUDAContext) throws {
        let count = buffers.width * buffers.height
        var arguments: [_CUDAContext.Argument] = [.pointer(buffers.current.address), .pointer(buffers.spare.address), .int32(Int32(count))]
        var keep: [_DeviceBuffer] = []
        let shape: _PointKernelPTX.Step
        if let lut = p.lut {
            let t = try _DeviceBuffer.table(context, Array(UnsafeBufferPointer(start: lut, count: 3 * 256)))
            keep.append(t)
            arguments.append(.pointer(t.address))
            shape = .table
        } else if let fixed = p.tailFixed, let tail = p.matrixTail?.1 {
            let f = try _DeviceBuffer.table(context, Array(UnsafeBufferPointer(start: fixed, count: 9 * 256 + 3)))
            let t = try _DeviceBuffer.table(context, Array(UnsafeBufferPointer(start: tail, count: 3 * (_PointExec.tailSteps + 1))))
            keep += [f, t]
            arguments += [.pointer(f.address), .pointer(t.address)]
            shape = .matrixTail
        } else {
            throw SfumatoError.unsupported("CUDA: the point program has no 8-bit tables")
        }
        let f = try context.function(_PointKernelPTX.entry, in: _PointKernelPTX.text(for: [shape]))
        let blocks = (count + _PointKernelPTX.blockSize - 1) / _PointKernelPTX.blockSize
        try context.launch(f, grid: (blocks, 1, 1), block: (_PointKernelPTX.blockSize, 1, 1), arguments, name: "sfumato_point")
        buffers.swap()
        // The tables must outlive the kernel: wait before they are freed.
        try context.synchronize()
        withExtendedLifetime(keep) {}
    }

    /// 256-bin counts per channel of an opaque RGBA8 image on the device.
    static func histogram(of image: _DeviceBuffer, width: Int, height: Int, _ context: _CUDAContext) throws -> Histogram {
        let counts = try _DeviceBuffer(context, byteCount: 4 * 256 * 4)
        try context.driver.check(context.driver.cuMemsetD8Async(counts.address, 0, 4 * 256 * 4, context.stream), "clearing counts")
        try _GalleryLaunch.histogram(image, width: width, height: height, into: counts, context: context)
        var host = [UInt32](repeating: 0, count: 4 * 256)
        try host.withUnsafeMutableBytes { try counts.download($0.baseAddress!, count: $0.count) }
        try context.synchronize()
        var h = Histogram(bins: 256)
        for c in 0..<4 { for b in 0..<256 { h.counts[c][b] = Int(host[c * 256 + b]) } }
        h.pixelCount = width * height
        return h
    }
}

extension _CUDAContext {
    /// A device buffer of at least `bytes`, reusing one a previous render gave back (renders of
    /// the same size, as a studio's previews, then allocate nothing).
    func imageBuffer(bytes: Int) throws -> _DeviceBuffer {
        if let b = pool.withLock({ pool -> _DeviceBuffer? in
            guard let i = pool.firstIndex(where: { $0.byteCount == bytes }) else { return nil }
            return pool.remove(at: i)
        }) {
            return b
        }
        return try _DeviceBuffer(self, byteCount: bytes)
    }

    /// Keeps a buffer for the next render (at most four, the newest).
    func recycle(_ b: _DeviceBuffer) {
        pool.withLock { pool in
            pool.append(b)
            if pool.count > 4 { pool.removeFirst() }
        }
    }
}
