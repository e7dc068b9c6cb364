import Foundation

// The render's plan, strips and destinations: what `render` and `histogram` run.
extension RenderContext {
    enum _Target {
        case memory(_Destination)
        case sink(any RowSink, PixelFormat, ColorEncoding, AlphaMode)
    }

    struct _StripLayout {
        let height: Int
        let count: Int
    }

    /// Rows in a strip of a streamed render: one reading a streamed source or writing to a sink.
    ///
    /// Such a render holds a ring of source rows and the strips in flight, both counted in strips,
    /// so its memory scales with the strip's height: 6000x4000 JPEG, Gaussian 2, to JPEG peaks at
    /// 49 MiB with 64-row strips and 40 MiB with 32 (12240x8160: 64 and 48.5 MiB), in the same
    /// wall time (medians of 5 and 3), the kernels' extra halo rows costing no more than the
    /// smaller working set saves.
    static let streamedStripRows = 32

    /// `multiple`: what the height must be a multiple of (a strip-encoding sink's block rows).
    func stripLayout(_ r: Rect, streamed: Bool = false, multiple: Int = 1) -> _StripLayout {
        // At least four strips per thread when the image allows, so threads finish together.
        let wanted = max(8, (r.height + 4 * options.threads - 1) / (4 * options.threads))
        let tall = streamed ? min(options.tileHeight, Self.streamedStripRows) : options.tileHeight
        let m = min(64, max(1, multiple))
        let h = (max(1, min(tall, wanted)) + m - 1) / m * m
        return _StripLayout(height: h, count: (r.height + h - 1) / h)
    }

    /// The tile width for a render of `rect`: the option's, twice that on grey tiles; for plans
    /// that are pixel for pixel (with ``Options/fullWidthStrips``), the whole width, in equal
    /// parts of at most `widestStrip` pixels.
    func tileWidth(_ plan: _Plan, _ rect: Rect) -> Int {
        if options.fullWidthStrips && plan.isPixelForPixel {
            let parts = (rect.width + Self.widestStrip - 1) / Self.widestStrip
            return (rect.width + parts - 1) / parts
        }
        return min(options.tileWidth * (plan.root.natural == .gray ? 2 : 1), rect.width)
    }

    /// The widest tile of a full-width strip: a float tile of a point pass reading another pass
    /// holds 16 bytes a pixel, so 16,384 pixels by 64 rows is 16 MiB.
    static let widestStrip = 16384

    /// Strips allowed in flight beyond the oldest unfinished one.
    var window: Int { 2 * options.threads }

    func streamCapacity(_ plan: _Plan, _ s: _StreamExec, _ r: Rect, _ layout: _StripLayout) -> Int {
        // The rows one strip in the middle needs, times the strips that can be in flight.
        let midY = r.y + (layout.count / 2) * layout.height
        let strip = Rect(x: r.x, y: midY, width: r.width, height: layout.height)
        let need = plan.region(of: s, for: strip, from: plan.root)
        let span = need.isEmpty ? layout.height : need.height
        return span + (window + 1) * layout.height + 16
    }

    func prepare(_ plan: _Plan) throws {
        for h in plan.histograms {
            var results: [Histogram] = []
            for input in h.inputs { results.append(try count(input, plan: plan, bins: h.mapping.bins)) }
            h.install(results)
        }
    }

    /// Renders `exec` over its extent tile by tile and counts values.
    func count(_ exec: _Exec, plan: _Plan, bins: Int) throws -> Histogram {
        let r = exec.extent
        let layout = stripLayout(r, streamed: !plan.streams.isEmpty)
        for s in plan.streams { try s.beginPass(capacity: streamCapacity(plan, s, r, layout)) }
        let partials = _Locked<[Histogram]>([])
        try schedule(r, layout, plan: plan) { rect, w in
            let b = try exec.produce(rect, exec.natural, w)
            var h = Histogram(bins: bins)
            _countHistogram(b, into: &h)
            partials.withLock { $0.append(h) }
        } finish: { _ in
        }
        var total = Histogram(bins: bins)
        for p in partials.withLock({ $0 }) { total.merge(p) }
        return total
    }

    func run(_ image: Image, rect: Rect, destination: _Target) throws {
        if options.device != .cpu, try runOnDevice(image, rect: rect, destination: destination) { return }
        do {
            try run(image, rect: rect, destination: destination, materialized: [:])
        } catch let miss as _StreamWindowMiss {
            // A recipe read its streamed source out of order (a rotation, a huge kernel, or
            // strips finishing far apart on a machine this busy): decode the sources whole and
            // render again. A sink keeps what it already took; the retry gives it the rest
            // (the whole decode gives the streamed bytes, so the rows join up exactly).
            var decoded: [ObjectIdentifier: Bitmap] = [:]
            for s in _streamSources(image.node) {
                decoded[ObjectIdentifier(s)] = try _decodeWhole(s)
            }
            try run(image, rect: rect, destination: destination, materialized: decoded, skippingStrips: miss.stripsWritten)
        }
    }

    func run(
        _ image: Image, rect: Rect, destination: _Target,
        materialized: [ObjectIdentifier: Bitmap], skippingStrips skipped: Int = 0
    ) throws {
        let plan = try _Plan(
            image, workingSpace: workingSpace, fuse: options.fusion, linearBytes: options.linearBytes, threads: options.threads, materialized: materialized)
        let streamed = !plan.streams.isEmpty
        let layout: _StripLayout
        switch destination {
        case .sink(let sink, _, _, _):
            layout = stripLayout(rect, streamed: true, multiple: (sink as? any StripEncodingSink)?.stripRowMultiple ?? 1)
        case .memory: layout = stripLayout(rect, streamed: streamed)
        }
        try plan.checkReach(tile: Rect(x: rect.x, y: rect.y, width: tileWidth(plan, rect), height: layout.height))
        try prepare(plan)
        for s in plan.streams { try s.beginPass(capacity: streamCapacity(plan, s, rect, layout)) }
        defer { plan.streams.forEach { $0.endPass() } }
        let tileWidth = tileWidth(plan, rect)

        // A strip, tile by tile across.
        func store(_ strip: Rect, into d: _Destination, _ w: _Worker) throws {
            var x = strip.x
            while x < strip.maxX {
                let tw = min(tileWidth, strip.maxX - x)
                try plan.root.store(Rect(x: x, y: strip.y, width: tw, height: strip.height), into: d, w)
                x += tw
            }
        }

        switch destination {
        case .memory(let d):
            try schedule(rect, layout, plan: plan) { strip, w in
                try store(strip, into: d, w)
            } finish: { _ in
            }
        case .sink(let sink, let format, let encoding, let alpha):
            let rowBytes = rect.width * format.bytesPerPixel
            let writer = _OrderedWriter(sink: sink, rowBytes: rowBytes, skipping: skipped)
            let state = _ScheduleState(count: layout.count, window: window, first: skipped)
            // A strip counts as done once written, so unwritten strips are bounded by the window.
            writer.onWritten = { state.done($0) }
            let pool = _StripPool(byteCount: rowBytes * layout.height)
            writer.release = { pool.give($0) }
            let strips = _Locked<[Int: UnsafeMutableRawPointer]>([:])
            defer { strips.withLock { for (_, p) in $0 { pool.give(p) } } }
            do {
                try schedule(rect, layout, state: state) { strip, w in
                    let buffer = pool.take()
                    strips.withLock { $0[strip.y] = buffer }
                    let d = _Destination(
                        base: buffer, rowBytes: rowBytes, rect: strip, format: format,
                        encoding: encoding, alpha: alpha)
                    try store(strip, into: d, w)
                } finish: { strip in
                    guard let buffer = strips.withLock({ $0.removeValue(forKey: strip.y) }) else { return }
                    try writer.deliver(index: (strip.y - rect.y) / layout.height, rows: buffer, count: strip.height)
                }
            } catch is _StreamWindowMiss {
                throw _StreamWindowMiss(stripsWritten: writer.written)
            }
            try writer.flush()
        }
    }

    /// Runs `body` for each strip of `rect` on the context's threads, strips handed out top to
    /// bottom and never more than `window` ahead of the oldest unfinished one; `finish` runs
}
