import Foundation

// A render in bands: the image goes up, through the kernels and back down in horizontal bands,
// each band on one of a few streams, so the bus carries band i + 1 up while band i is filtered
// and band i − 1 comes down (the bus runs both ways at once). A whole-image render waits for the
// upload, then the kernels, then the download: about twice as long.

extension _CUDARoute {
    /// Streams the bands take turns on (band i on stream i mod 4). On an H200, 6000x4000: 8 bands
    /// on 4 streams 3.0 ms for the PencilController chain + Gaussian + median, against 3.2–3.6
    /// for 4, 12 or 16 bands, 3.3 on 2 streams, 3.4 on 8, 5.4 whole.
    static let bandStreamCount = 4
    /// Bands of a render: enough to keep both directions of the bus busy, few enough that each
    /// copy is large (a copy of under a megabyte runs well below the bus's speed).
    static let maximumBands = 8
    /// The fewest rows a band has, and the fewest it has per row of halo (the halo is filtered
    /// twice, once in each band it borders).
    static let minimumBandRows = 128, bandRowsPerHaloRow = 8

    /// Rows above and below its own a band must hold so that its own come out as in a
    /// whole-image render: the sum of the steps' vertical reaches. Nil when a step needs the
    /// whole image at once (a histogram).
    var halo: Int? {
        var rows = 0
        for step in steps {
            switch step {
            case .point, .pixel: continue
            case .histogram: return nil
            case .neighborhood(let k, _, _): rows += k.verticalReach
            }
        }
        return rows
    }

    /// The bands' own rows, first to last: none when the render gains nothing from bands (a
    /// small image, a halo too large for its height, a step that needs the whole image).
    func bandRows() -> [Range<Int>] {
        guard let halo, !steps.isEmpty else { return [] }
        let rowsPerBand = max(Self.minimumBandRows, Self.bandRowsPerHaloRow * halo)
        let count = min(Self.maximumBands, height / rowsPerBand)
        guard count >= 2 else { return [] }
        // Band edges on even rows: an interpolating Gaussian filters the image's even rows.
        return (0..<count).map { i in (height * i / count) & ~1..<(i == count - 1 ? height : (height * (i + 1) / count) & ~1) }
    }

    /// The rows each band uploads: its own and ``halo`` more each side, clipped to the image,
    /// starting on an even row.
    func heldRows(_ bands: [Range<Int>]) -> [Range<Int>] {
        let halo = halo ?? 0
        return bands.map { max($0.lowerBound - halo, 0) & ~1..<min($0.upperBound + halo, height) }
    }

    /// Renders the whole image in `bands` (``bandRows()``) from the page-locked source to
    /// page-locked host rows at `base`, both packed (rows `width` × 4 bytes apart, a multiple of
    /// 16). Each band uploads its rows and `halo` more on each side (clipped to the image, so the
    /// kernels meet the image's own edges there), runs every step, and downloads its own rows.
    func renderInBands(_ bands: [Range<Int>], on context: _CUDAContext, into base: UnsafeMutableRawPointer) throws {
        let packed = width * 4, held = heldRows(bands)
        let streams = try context.bandStreams(min(Self.bandStreamCount, bands.count))
        let capacity = held.map(\.count).max() ?? 0
        let sets = try streams.map { try Buffers(context, width: width, height: capacity, stream: $0) }
        // On every way out, nothing may still be queued on these buffers when the pool takes
        // them back.
        defer { for s in streams { _ = try? context.synchronize(s) } }
        for (i, own) in bands.enumerated() {
            let buffers = sets[i % sets.count], rows = held[i]
            buffers.height = rows.count
            try buffers.current.upload(source.baseAddress + rows.lowerBound * packed, count: rows.count * packed, on: buffers.stream)
            try runSteps(buffers, context)
            try buffers.current.download(
                base + own.lowerBound * packed, count: own.count * packed, at: (own.lowerBound - rows.lowerBound) * packed, on: buffers.stream)
        }
        for s in streams { try context.synchronize(s) }
    }
}

extension DeviceKernel {
    /// Rows above or below an output pixel the kernel reads (an upper bound).
    var verticalReach: Int {
        switch self {
        // An interpolated row reads the filtered rows up to 3 away.
        case .gaussian(let weights, let interpolating): weights.count - 1 + (interpolating ? 4 : 0)
        case .median(let d): d / 2
        case .rectangle(_, let h, _): h / 2 + 1
        case .probe(let spans, _): spans.map { abs($0.dy) }.max() ?? 0
        case .convolution(_, let h, _, _, _, _): h / 2
        case .sobel: 1
        }
    }
}
