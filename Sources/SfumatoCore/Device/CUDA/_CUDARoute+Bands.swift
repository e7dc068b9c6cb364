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

    /// Bytes from one row to the next in device buffers: a multiple of 16, as the gallery
    /// kernels need.
    var pitch: Int { (width * 4 + 15) & ~15 }

    /// Device memory a run over `rows` rows holds: two image buffers and a scratch buffer of two
    /// bytes an image byte (``Buffers``).
    func deviceBytes(rows: Int) -> Int { 4 * pitch * rows }

    /// Whether the whole image fits the kernels (32-bit offsets) and `budget` bytes of device memory.
    func wholeFits(budget: Int) -> Bool { pitch * height < 1 << 32 && deviceBytes(rows: height) <= budget }

    /// The bands' own rows, first to last, for a render allowed `budget` bytes of device memory:
    /// empty to run the image whole; nil when it fits neither whole nor in bands (a histogram
    /// needs the whole image, and a band holds its halo twice over). Bands are taken when they
    /// overlap the copies with the kernels (an image large enough for each band to be a large
    /// copy), and made smaller until four streams' worth of them fit `budget`.
    func bandRows(budget: Int = .max) -> [Range<Int>]? {
        let fits = wholeFits(budget: budget)
        guard let halo, !steps.isEmpty else { return fits ? [] : nil }
        var count = min(Self.maximumBands, height / max(Self.minimumBandRows, Self.bandRowsPerHaloRow * halo))
        if count < 2 {
            if fits { return [] }
            count = 2
        }
        while true {
            let bands = Self.split(height, into: count)
            let most = heldRows(bands).map(\.count).max() ?? height
            if pitch * most < 1 << 32 && min(Self.bandStreamCount, count) * deviceBytes(rows: most) <= budget { return bands }
            // Halve the bands while each keeps a few rows of its own.
            guard count * 8 <= height else { return nil }
            count *= 2
        }
    }

    /// `height` rows in `count` bands whose edges are on even rows (an interpolating Gaussian
    /// filters the image's even rows).
    static func split(_ height: Int, into count: Int) -> [Range<Int>] {
        (0..<count).map { i in (height * i / count) & ~1..<(i == count - 1 ? height : (height * (i + 1) / count) & ~1) }
    }

    /// The rows each band uploads: its own and ``halo`` more each side, clipped to the image,
    /// starting on an even row.
    func heldRows(_ bands: [Range<Int>]) -> [Range<Int>] {
        let halo = halo ?? 0
        return bands.map { max($0.lowerBound - halo, 0) & ~1..<min($0.upperBound + halo, height) }
    }

    /// Renders the whole image in `bands` (``bandRows(budget:)``) from the source to host rows
    /// at `base`, `rowBytes` apart. Each band uploads its rows and ``halo`` more on each side
    /// (clipped to the image, so the kernels meet the image's own edges there), runs every step,
    /// and downloads its own rows. Both ends page-locked, the copies overlap the kernels and each
    /// other; otherwise (an image too large for the device whole) they wait for the host.
    func renderInBands(_ bands: [Range<Int>], on context: _CUDAContext, into base: UnsafeMutableRawPointer, rowBytes: Int) throws {
        let packed = width * 4, held = heldRows(bands)
        let streams = try context.bandStreams(min(Self.bandStreamCount, bands.count))
        let capacity = held.map(\.count).max() ?? 0
        let sets = try streams.map { try Buffers(context, width: width, height: capacity, stream: $0) }
        // On every way out, nothing may still be queued on these buffers when the pool takes
        // them back.
        defer { for s in streams { _ = try? context.synchronize(s) } }
        for (i, own) in bands.enumerated() {
            let buffers = sets[i % sets.count], rows = held[i], pitch = buffers.pitch
            buffers.height = rows.count
            if source.rowBytes == pitch && pitch == packed {
                try buffers.current.upload(source.row(rows.lowerBound), count: rows.count * packed, on: buffers.stream)
            } else {
                for y in rows { try buffers.current.upload(source.row(y), count: packed, at: (y - rows.lowerBound) * pitch, on: buffers.stream) }
            }
            try runSteps(buffers, context)
            if rowBytes == pitch && pitch == packed {
                try buffers.current.download(
                    base + own.lowerBound * packed, count: own.count * packed, at: (own.lowerBound - rows.lowerBound) * packed,
                    on: buffers.stream)
            } else {
                for y in own {
                    try buffers.current.download(base + y * rowBytes, count: packed, at: (y - rows.lowerBound) * pitch, on: buffers.stream)
                }
            }
        }
        for s in streams { try context.synchronize(s) }
    }
}

extension _CUDARoute {
    /// Where a step has transparent edges, the depth of the result's border whose pixels depend
    /// on the transparent outside (rows top and bottom, columns left and right: each step's reach,
    /// summed), else nil. The CPU computes those pixels in float, since 8-bit premultiplied values
    /// lose precision where alpha is low; the GPU's are redone there on the CPU (see
    /// ``RenderContext/redoTransparentBorder``).
    var transparentBorder: (rows: Int, columns: Int)? {
        var rows = 0, columns = 0, transparent = false
        for step in steps {
            guard case .neighborhood(let k, let clamp, _) = step else { continue }
            rows += k.verticalReach
            columns += k.horizontalReach
            transparent = transparent || !clamp
        }
        return transparent ? (rows, columns) : nil
    }
}

extension DeviceKernel {
    /// Columns left or right of an output pixel the kernel reads (an upper bound).
    var horizontalReach: Int {
        switch self {
        case .gaussian(let weights, _): weights.count - 1
        case .median(let d): d / 2
        case .rectangle(let w, _, _): w / 2 + 1
        case .probe(let spans, _): spans.map { max(abs($0.x0), abs($0.x1)) }.max() ?? 0
        case .convolution(let w, _, _, _, _, _): w / 2
        case .sobel: 1
        }
    }

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
