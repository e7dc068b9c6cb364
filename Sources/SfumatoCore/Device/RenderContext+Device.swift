import Foundation

extension RenderContext {
    /// Runs the render on the GPU when the context's device allows and the route exists; false
    /// when it stays on the CPU (`.auto` without a GPU or without a route). `.cuda` throws
    /// instead, saying why.
    func runOnDevice(_ image: Image, rect: Rect, destination: _Target) throws -> Bool {
        let route: _CUDARoute, context: _CUDAContext
        switch deviceRoute(image, rect: rect, destination: destination) {
        case .success(let found): (route, context) = found
        case .failure(let why):
            if options.device == .cuda { throw SfumatoError.unsupported("cannot render on the GPU: \(why)") }
            return false
        }
        // With .auto a failing GPU (out of memory, a driver error) leaves the render to the CPU:
        // nothing has reached a sink yet, and a bitmap is overwritten whole.
        func onGPU(_ body: () throws -> Void) throws -> Bool {
            do {
                try body()
                return true
            } catch is SfumatoError where options.device == .auto {
                return false
            }
        }
        context.renderLock.lock()
        defer { context.renderLock.unlock() }
        let budget = context.memoryBudget(limit: options.deviceMemoryLimit)
        switch destination {
        case .memory(let d):
            return try onGPU {
                try route.render(
                    on: context, into: d.base, rowBytes: d.rowBytes, straight: d.alpha == .straight, owner: d.owner, budget: budget)
                try redoTransparentBorder(image, route, into: d)
            }
        case .sink(let sink, _, _, let alpha):
            // The result comes down into the context's page-locked output memory (no copy through
            // staging), which the sink then reads.
            let rowBytes = route.width * 4
            let host = try context.outputBuffer(bytes: rowBytes * route.height).pointer
            // A long-running process keeps no more than 256 MiB of it locked after a large render.
            defer { context.releaseOutputBuffer(above: 256 << 20) }
            let d = _Destination(base: host, rowBytes: rowBytes, rect: rect, format: .rgba8, encoding: .srgb, alpha: alpha)
            guard
                try onGPU({
                    try route.render(on: context, into: host, rowBytes: rowBytes, straight: alpha == .straight, pinned: true, budget: budget)
                    try redoTransparentBorder(image, route, into: d)
                })
            else {
                return false
            }
            // A strip-encoding sink (a JPEG in bands) encodes on every core.
            try deliver(rows: host, rowBytes: rowBytes, height: route.height, to: sink)
            return true
        }
    }

    /// Renders the border of `d` whose pixels depend on a transparent outside
    /// (``_CUDARoute/transparentBorder``) again on the CPU, over the GPU's: the CPU computes them
    /// in float where its 8-bit kernels would lose precision at low alpha, so the whole result is
    /// the CPU's bytes. A thin frame on a photo; all of a very small image.
    func redoTransparentBorder(_ image: Image, _ route: _CUDARoute, into d: _Destination) throws {
        guard let (rows, columns) = route.transparentBorder else { return }
        var cpuOptions = options
        cpuOptions.device = .cpu
        let cpu = RenderContext(options: cpuOptions)
        let r = d.rect, top = min(rows, r.height), side = min(columns, r.width)
        let inner = max(r.height - 2 * top, 0)
        let strips = [
            Rect(x: r.x, y: r.y, width: r.width, height: top),
            Rect(x: r.x, y: r.maxY - min(top, r.height - top), width: r.width, height: min(top, r.height - top)),
            Rect(x: r.x, y: r.y + top, width: side, height: inner),
            Rect(x: r.maxX - min(side, r.width - side), y: r.y + top, width: min(side, r.width - side), height: inner)
        ]
        for strip in strips where !strip.isEmpty {
            var part = d
            part.base = d.row(strip.y) + (strip.x - r.x) * d.format.bytesPerPixel
            part.rect = strip
            try cpu.run(image, rect: strip, destination: .memory(part))
        }
    }

    /// The GPU route for a render, or why there is none.
    func deviceRoute(_ image: Image, rect: Rect, destination: _Target) -> Result<(_CUDARoute, _CUDAContext), _CUDARoute.Unsupported> {
        let (format, encoding): (PixelFormat, ColorEncoding) =
            switch destination {
            case .memory(let d): (d.format, d.encoding)
            case .sink(_, let f, let e, _): (f, e)
            }
        guard format == .rgba8, encoding == .srgb else {
            return .failure(.init("a \(format) destination (the GPU route writes 8-bit sRGB RGBA)"))
        }
        let context: _CUDAContext
        switch _CUDAContext.shared {
        case .success(let c): context = c
        case .failure(let e): return .failure(.init("\(e)"))
        }
        do {
            let plan = try _Plan(image, workingSpace: workingSpace, fuse: options.fusion, linearBytes: options.linearBytes, threads: options.threads)
            return .success((try _CUDARoute.lower(plan, rect: rect, tileWidth: tileWidth(plan, rect)), context))
        } catch let e as _CUDARoute.Unsupported {
            return .failure(e)
        } catch {
            return .failure(.init("\(error)"))
        }
    }

    /// The `--explain` lines naming the device and, for the GPU, its kernels and transfers (also
    /// where there is no GPU here: what the route would run).
    func deviceLine(_ plan: _Plan, _ rect: Rect, format: PixelFormat) -> String {
        guard options.device != .cpu else { return "device: CPU" }
        let fallback = options.device == .auto ? "CPU" : "none: the render fails"
        guard format == .rgba8 else { return "device: \(fallback) (a \(format) result; the GPU route writes RGBA8)" }
        let route: _CUDARoute
        do { route = try _CUDARoute.lower(plan, rect: rect, tileWidth: tileWidth(plan, rect)) } catch { return "device: \(fallback) (GPU route: \(error))" }
        let steps = route.explanation.map { "  gpu: " + $0 }
        switch _CUDAContext.shared {
        case .success(let c): return (["device: \(c.summary)"] + steps).joined(separator: "\n")
        case .failure(let e): return (["device: \(fallback) (\(e)); on a GPU the route would run:"] + steps).joined(separator: "\n")
        }
    }
}

/// GPU times of one render, measured with CUDA events (``RenderContext/deviceProfile(_:repeats:)``).
public struct DeviceProfile: Sendable {
    /// The device, e.g. `NVIDIA H200 (sm_90, 139 GiB, driver CUDA 13.0)`.
    public var device: String
    /// Milliseconds to copy the source to the device (pageable memory).
    public var uploadMilliseconds: Double
    /// Median milliseconds of all the render's kernels with the image resident, over the repeats.
    public var kernelMilliseconds: Double
    /// Milliseconds to copy the result back.
    public var downloadMilliseconds: Double
    /// Kernel modules compiled so far in the process (a repeated render compiles none).
    public var compiledModules: Int
}

extension RenderContext {
    /// Times a render of the whole image on the GPU: the upload, the kernels with the image
    /// resident (median of `repeats`, 1...1000), the download. Throws where the GPU route cannot
    /// run the image, saying why.
    public func deviceProfile(_ image: Image, repeats: Int = 20) throws -> DeviceProfile {
        let context = try _CUDAContext.shared.get()
        let plan = try _Plan(image, workingSpace: workingSpace, fuse: options.fusion, linearBytes: options.linearBytes, threads: options.threads)
        let route: _CUDARoute
        do { route = try _CUDARoute.lower(plan, rect: image.extent, tileWidth: tileWidth(plan, image.extent)) } catch {
            throw SfumatoError.unsupported("cannot render on the GPU: \(error)")
        }
        context.renderLock.lock()
        defer { context.renderLock.unlock() }
        try context.enter()
        let buffers = try _CUDARoute.Buffers(context, width: route.width, height: route.height)
        let upload = try context.time { try route.upload(into: buffers.current, pitch: buffers.pitch, context) }
        let bytes = buffers.pitch * route.height
        let source = try context.imageBuffer(bytes: bytes)
        defer { context.recycle(source) }
        try context.driver.check(
            context.driver.cuMemcpyDtoDAsync(source.address, buffers.current.address, bytes, context.stream),
            "copying on the GPU")
        var times: [Double] = []
        for _ in 0..<min(max(repeats, 1), 1000) + 2 {
            try context.driver.check(
                context.driver.cuMemcpyDtoDAsync(buffers.current.address, source.address, bytes, context.stream),
                "copying on the GPU")
            times.append(try context.time { try route.runSteps(buffers, context) })
        }
        times = Array(times.dropFirst(2)).sorted()
        let host = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { host.deallocate() }
        let packed = route.width * 4
        let download = try context.time {
            try context.download(buffers.current, into: host, rowBytes: packed, packed: packed, pitch: buffers.pitch, height: route.height)
        }
        return DeviceProfile(
            device: context.summary, uploadMilliseconds: upload, kernelMilliseconds: times[times.count / 2],
            downloadMilliseconds: download, compiledModules: context.compiledModules)
    }
}
