import Foundation

/// Raised when a render asks a streamed source for a row it has already let go of; the render
/// then falls back to decoding the whole source (see ``RenderContext``).
struct _StreamWindowMiss: Error {
    /// Strips a sink had already taken when the miss stopped its render (the retry skips them).
    var stripsWritten = 0
}

/// Rows of a ``RowSource``, decoded in order into a ring of recent rows as tiles ask for them.
/// The renderer hands out strips top to bottom and never lets a strip start while one far above
/// it is unfinished, so the ring holds every row still needed.
final class _StreamExec: _Exec, _RowReadable, @unchecked Sendable {
    let source: any RowSource
    let layout: _StoredLayout
    /// Guards the ring's state below; a worker decodes and copies rows without holding it.
    private let state = NSCondition()
    private var reader: (any RowReader)?
    private var ring: UnsafeMutableRawPointer?
    private(set) var capacity = 0
    /// Rows `firstRow ..< nextRow` are in the ring.
    private var firstRow = 0
    private var nextRow = 0
    /// Whether a worker is decoding (one at a time: the reader is sequential).
    private var decoding = false
    /// The first rows of the copies in progress: decoding never overwrites them.
    private var pinned: [Int] = []
    private let rowBytes: Int
    /// Rows decoded per turn.
    private static let batch = 16

    init(_ source: any RowSource, _ ws: WorkingSpace) {
        self.source = source
        layout = _StoredLayout(
            format: source.format, encoding: .srgb, alpha: .straight, opaque: source.isOpaque || source.format.isAlwaysOpaque)
        rowBytes = source.width * source.format.bytesPerPixel
        super.init(
            extent: Rect(width: source.width, height: source.height),
            natural: ws != .none
                ? .float
                : source.format == .gray8
                    ? .gray : (source.format == .rgb8 || source.format == .rgba8 && source.isOpaque ? .byte : .float),
            children: [])
    }

    deinit { ring?.deallocate() }

    var hasStraightBytes: Bool { source.format == .rgba8 || source.format == .rgb8 }

    override var opaqueWithin: Bool { layout.opaque }

    override var sRGBBytes: Bool { (source.format == .rgba8 || source.format == .rgb8) && layout.opaque }

    override var isPixelForPixel: Bool { true }

    override var explanation: String { "read \(source.summary) sequentially, row by row" }

    /// Sets the number of rows kept and restarts decoding at the top.
    func beginPass(capacity rows: Int) throws {
        state.lock()
        defer { state.unlock() }
        let rows = min(max(rows, StreamExecMinimum.rows), source.height)
        if rows != capacity || ring == nil {
            ring?.deallocate()
            ring = .allocate(byteCount: rows * rowBytes, alignment: 64)
            capacity = rows
        }
        reader = try source.makeReader()
        firstRow = 0
        nextRow = 0
        decoding = false
        pinned = []
    }

    /// Frees the ring after the last pass.
    func endPass() {
        state.lock()
        ring?.deallocate()
        ring = nil
        reader = nil
        capacity = 0
        state.unlock()
    }

    private func slot(_ y: Int) -> UnsafeMutableRawPointer { ring! + (y % capacity) * rowBytes }

    /// Copies rows `rect.y ..< rect.maxY`, columns of `rect`, into `local`, decoding as needed.
    ///
    /// One worker decodes at a time, the others copying rows already decoded meanwhile: the
    /// state lock is held only to take a turn and to pin or unpin a copy, never across decoding
    /// or copying. Decoding stops short of the ring slots of pinned rows.
    private func fetch(_ rect: Rect, into local: UnsafeMutableRawPointer, stride: Int) throws {
        let bpp = source.format.bytesPerPixel
        state.lock()
        defer { state.unlock() }
        guard let reader else { throw SfumatoError.io("stream read outside a render pass") }
        if rect.y < firstRow || rect.height > capacity { throw _StreamWindowMiss() }
        // Pinned from here: rows decoded for this fetch never take its own slots.
        pinned.append(rect.y)
        defer {
            pinned.remove(at: pinned.firstIndex(of: rect.y)!)
            state.broadcast()
        }
        while nextRow < rect.maxY {
            // Rows up to the oldest pinned row's slot may be decoded.
            let room = (pinned.min() ?? nextRow) + capacity - nextRow
            if decoding || room <= 0 {
                state.wait()
                if rect.y < firstRow { throw _StreamWindowMiss() }
                continue
            }
            let first = nextRow
            let n = min(_StreamExec.batch, room, capacity - first % capacity, source.height - first)
            decoding = true
            state.unlock()
            let got = Result { try reader.read(into: slot(first), rowBytes: rowBytes, count: n) }
            state.lock()
            decoding = false
            state.broadcast()
            let rows = try got.get()
            if rows <= 0 { throw SfumatoError.truncated("\(source.summary): image data ended at row \(first) of \(source.height)") }
            nextRow = first + rows
            firstRow = max(firstRow, nextRow - capacity)
        }
        if rect.y < firstRow { throw _StreamWindowMiss() }
        state.unlock()
        for y in rect.y..<rect.maxY {
            memcpy(local + (y - rect.y) * stride, slot(y) + rect.x * bpp, rect.width * bpp)
        }
        state.lock()
    }

    func withStoredRows(_ rect: Rect, _ w: _Worker, _ body: (Int, UnsafeRawPointer) throws -> Void) throws {
        let bpp = source.format.bytesPerPixel
        let stride = rect.width * bpp
        // Fetch in bands so the local copy stays small.
        let band = 16
        let local = UnsafeMutableRawPointer.allocate(byteCount: band * stride, alignment: 64)
        defer { local.deallocate() }
        var y = rect.y
        while y < rect.maxY {
            let n = min(band, rect.maxY - y)
            try fetch(Rect(x: rect.x - extent.x, y: y, width: rect.width, height: n), into: local, stride: stride)
            for r in 0..<n {
                // Callers index from the start of the stored row.
                try body(y + r, UnsafeRawPointer(local + r * stride - (rect.x - extent.x) * bpp))
            }
            y += n
        }
    }

    func load(_ stored: UnsafeRawPointer, _ count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker) {
        layout.loadFloats(stored, count, dst, w)
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let out = w.buffer(kind, rect)
        try layout.fill(out, extent: extent, w) { inside, body in
            try withStoredRows(inside, w, body)
        }
        return out
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if !(try _storeStoredRows(self, layout, rect, into: d, w)) { try super.store(rect, into: d, w) }
    }
}

enum StreamExecMinimum {
    static let rows = 32
}
