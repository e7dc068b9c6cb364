import Foundation

/// Per-thread state of one render: the buffer pool, a scratch allocator for kernels, and a chunk
/// of floats for fused point passes. Never shared between threads.
final class _Worker {
    let pool = _BufferPool()
    let scratch: TileScratch
    let workingSpace: WorkingSpace
    /// Pixels processed per step of a fused point pass: 256 floats x 4 = 4 KB, stays in L1.
    static let chunk = 256
    let chunkBuffer: UnsafeMutablePointer<SIMD4<Float>>
    let alphaBuffer: UnsafeMutablePointer<Float>

    init(workingSpace: WorkingSpace) {
        self.workingSpace = workingSpace
        scratch = TileScratch(pool: pool)
        chunkBuffer = .allocate(capacity: _Worker.chunk)
        alphaBuffer = .allocate(capacity: _Worker.chunk)
    }

    deinit {
        chunkBuffer.deallocate()
        alphaBuffer.deallocate()
    }

    var linear: Bool { workingSpace == .linear }

    func buffer(_ kind: TileKind, _ rect: Rect) -> _PixelBuffer {
        _PixelBuffer(kind: kind, rect: rect, pool: pool)
    }
}

/// Where the final pixels of a render go: rows of a bitmap-like block in a stored format.
struct _Destination: @unchecked Sendable {
    /// Pixel (rect.x, rect.y) of the render lands here.
    var base: UnsafeMutableRawPointer
    var rowBytes: Int
    /// The rectangle of the image being rendered (image coordinates).
    var rect: Rect
    var format: PixelFormat
    var encoding: ColorEncoding
    var alpha: AlphaMode

    func row(_ y: Int) -> UnsafeMutableRawPointer { base + (y - rect.y) * rowBytes }
}

/// The schedule side of a recipe: an executable form of one node (or of several fused nodes),
/// made fresh for each render. Executors are shared by the render's threads and must not keep
/// per-tile state.
class _Exec: @unchecked Sendable {
    let extent: Rect
    /// The tile kind this executor produces without conversion.
    let natural: TileKind
    /// Executors this one reads from.
    let children: [_Exec]

    init(extent: Rect, natural: TileKind, children: [_Exec]) {
        self.extent = extent
        self.natural = natural
        self.children = children
    }

    /// Pixels of `rect` (which may extend past the extent: transparent there) as `kind`.
    /// The result may be a read-only view; check `isWritable` before writing into it.
    func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        fatalError("subclass")
    }

    /// One line for `--explain`.
    var explanation: String { "?" }

    /// Whether every pixel inside the extent is known to be opaque (alpha exactly 1).
    var opaqueWithin: Bool { false }

    /// Renders `rect` into the destination. Executors that can fuse the final encoding into their
    /// own pass override this.
    func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let b = try produce(rect, _Exec.storeKind(natural, d), w)
        _Exec.write(b, rows: rect, into: d, w)
    }

    /// The tile kind to render in for a destination format: 8-bit tiles only where the
    /// destination keeps 8 bits (grey tiles go to grey or, expanded, to RGBA8; RGBA bytes to
    /// RGBA8 or, as their luminance, to grey). Bytes are sRGB-encoded: a destination that stores
    /// another encoding goes through floats.
    static func storeKind(_ natural: TileKind, _ d: _Destination) -> TileKind {
        if d.encoding != .srgb { return .float }
        return switch (natural, d.format) {
        case (.byte, .rgba8), (.gray, .rgba8), (.byte, .gray8): .byte
        case (.gray, .gray8): .gray
        default: .float
        }
    }

    /// Converts a working tile's rows into the destination.
    static func write(_ b: _PixelBuffer, rows rect: Rect, into d: _Destination, _ w: _Worker) {
        for y in rect.y..<rect.maxY {
            let out = d.row(y) + (rect.x - d.rect.x) * d.format.bytesPerPixel
            if b.kind == .gray {
                precondition(d.format == .gray8, "grey tiles are written only to grey")
                memcpy(out, b.byteTile.pointer(x: rect.x, y: y), rect.width)
            } else if b.kind == .byte && d.format == .gray8 {
                _Convert.bytesToGray(b.byteTile.pointer(x: rect.x, y: y), rect.width, out.assumingMemoryBound(to: UInt8.self))
            } else if b.kind == .byte {
                let src = b.byteTile.pointer(x: rect.x, y: y)
                _Convert.storeBytes(src, rect.width, premultiplied: d.alpha == .premultiplied,
                                    out.assumingMemoryBound(to: UInt8.self))
            } else {
                let src = b.floatTile.pointer(x: rect.x, y: y)
                _storeFloatRow(src, rect.width, into: d, out, w)
            }
        }
    }
}

/// Converts one row of working floats into a destination row.
func _storeFloatRow(_ src: UnsafePointer<SIMD4<Float>>, _ count: Int, into d: _Destination,
                    _ out: UnsafeMutableRawPointer, _ w: _Worker) {
    switch d.format {
    case .rgba8:
        _Convert.storeRGBA8(src, count, linear: w.linear, premultiplied: d.alpha == .premultiplied,
                            out.assumingMemoryBound(to: UInt8.self))
    case .rgba16:
        _Convert.storeRGBA16(src, count, linear: w.linear, premultiplied: d.alpha == .premultiplied,
                             out.assumingMemoryBound(to: UInt16.self))
    case .rgbaFloat32:
        _Convert.storeFloat(src, count, workingEncoding: w.workingSpace.encoding, encoding: d.encoding,
                            premultiplied: d.alpha == .premultiplied, out.assumingMemoryBound(to: SIMD4<Float>.self))
    case .gray8:
        _Convert.storeGray8(src, count, workingEncoding: w.workingSpace.encoding, encoding: d.encoding,
                            out.assumingMemoryBound(to: UInt8.self))
    }
}

/// Converts between tile kinds (only in the `.none` working space, where bytes are meaningful).
func _convert(_ b: _PixelBuffer, to kind: TileKind, _ w: _Worker) -> _PixelBuffer {
    if b.kind == kind { return b }
    let out = w.buffer(kind, b.rect)
    let n = b.rect.width
    for y in b.rect.y..<b.rect.maxY {
        switch (b.kind, kind) {
        case (.byte, .float): _Convert.bytesToFloats(b.byteTile.row(y), n, out.floatTile.row(y))
        case (.float, .byte): _Convert.floatsToBytes(b.floatTile.row(y), n, out.byteTile.row(y))
        case (.gray, .byte): _Convert.grayToBytes(b.byteTile.row(y), n, out.byteTile.row(y))
        case (.gray, .float): _Convert.loadGray8(b.byteTile.row(y), n, encoding: .srgb, workingEncoding: .srgb, out.floatTile.row(y))
        case (.byte, .gray): _Convert.bytesToGray(b.byteTile.row(y), n, out.byteTile.row(y))
        case (.float, .gray): _Convert.storeGray8(b.floatTile.row(y), n, workingEncoding: .srgb, encoding: .srgb, out.byteTile.row(y))
        default: preconditionFailure("no conversion from \(b.kind) to \(kind)")
        }
    }
    return out
}

/// Copies `rect` (inside both) from one tile to another of the same kind.
func _copy(_ from: _PixelBuffer, _ to: _PixelBuffer, _ rect: Rect) {
    precondition(from.kind == to.kind)
    let bpp = from.kind.bytesPerPixel
    for y in rect.y..<rect.maxY {
        let s: UnsafeMutableRawPointer, d: UnsafeMutableRawPointer
        if from.kind == .float {
            s = UnsafeMutableRawPointer(from.floatTile.pointer(x: rect.x, y: y))
            d = UnsafeMutableRawPointer(to.floatTile.pointer(x: rect.x, y: y))
        } else {
            s = UnsafeMutableRawPointer(from.byteTile.pointer(x: rect.x, y: y))
            d = UnsafeMutableRawPointer(to.byteTile.pointer(x: rect.x, y: y))
        }
        memcpy(d, s, rect.width * bpp)
    }
}

/// Executors that read rows straight from stored pixels, so a fused point pass can convert
/// source rows into its chunk buffer without an intermediate tile.
protocol _RowReadable: _Exec {
    /// Whether rows come as 8-bit straight (or opaque) sRGB, for lookup-table passes.
    var hasStraightBytes: Bool { get }
    /// Calls `body` with pointers to the stored pixels of `rect` (inside the extent), row by row.
    func withStoredRows(_ rect: Rect, _ w: _Worker, _ body: (Int, UnsafeRawPointer) throws -> Void) throws
    /// Converts `count` stored pixels into working floats.
    func load(_ stored: UnsafeRawPointer, _ count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker)
}

/// Reading stored pixels of a given layout into tiles (shared by bitmaps and streams).
struct _StoredLayout {
    let format: PixelFormat
    let encoding: ColorEncoding
    let alpha: AlphaMode
    let opaque: Bool

    func loadFloats(_ p: UnsafeRawPointer, _ count: Int, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker) {
        switch format {
        case .rgba8:
            _Convert.loadRGBA8(p.assumingMemoryBound(to: UInt8.self), count, premultiplied: alpha == .premultiplied,
                               linear: w.linear, dst)
        case .rgba16:
            _Convert.loadRGBA16(p.assumingMemoryBound(to: UInt16.self), count, premultiplied: alpha == .premultiplied,
                                linear: w.linear, dst)
        case .rgbaFloat32:
            _Convert.loadFloat(p.assumingMemoryBound(to: SIMD4<Float>.self), count, encoding: encoding,
                               premultiplied: alpha == .premultiplied, workingEncoding: w.workingSpace.encoding, dst)
        case .gray8:
            _Convert.loadGray8(p.assumingMemoryBound(to: UInt8.self), count, encoding: encoding,
                               workingEncoding: w.workingSpace.encoding, dst)
        }
    }

    /// Fills tile `out` (covering `rect`) from stored rows, transparent outside `extent`. A grey
    /// tile comes only from grey rows; 8-bit RGBA tiles from RGBA8 or grey rows.
    func fill(_ out: _PixelBuffer, extent: Rect, _ w: _Worker,
              rows: (Rect, (Int, UnsafeRawPointer) throws -> Void) throws -> Void) throws {
        let rect = out.rect
        let inside = rect.intersection(extent)
        if inside != rect { out.zero() }
        if inside.isEmpty { return }
        let offset = (inside.x - extent.x) * format.bytesPerPixel
        precondition(out.kind != .gray || format == .gray8, "grey tiles come from grey rows")
        try rows(inside) { y, p in
            if out.kind == .gray {
                memcpy(out.byteTile.pointer(x: inside.x, y: y), p + offset, inside.width)
            } else if out.kind == .byte && format == .gray8 {
                _Convert.grayToBytes((p + offset).assumingMemoryBound(to: UInt8.self), inside.width,
                                     out.byteTile.pointer(x: inside.x, y: y))
            } else if out.kind == .byte {
                _Convert.loadBytes((p + offset).assumingMemoryBound(to: UInt8.self), inside.width,
                                   premultiplied: alpha == .premultiplied, opaque: opaque,
                                   out.byteTile.pointer(x: inside.x, y: y))
            } else {
                loadFloats(p + offset, inside.width, out.floatTile.pointer(x: inside.x, y: y), w)
            }
        }
    }
}

/// A bitmap's pixels.
final class _BitmapExec: _Exec, _RowReadable, @unchecked Sendable {
    let bitmap: Bitmap
    let layout: _StoredLayout

    init(_ bitmap: Bitmap, _ ws: WorkingSpace, threads: Int) {
        self.bitmap = bitmap
        let opaque = bitmap.format == .gray8
            || (bitmap.format == .rgba8 && bitmap.alpha == .straight ? bitmap._isOpaque(threads: threads) : false)
        layout = _StoredLayout(format: bitmap.format, encoding: bitmap.encoding, alpha: bitmap.alpha, opaque: opaque)
        // 8-bit tiles only for opaque (or already premultiplied) data: premultiplying straight
        // 8-bit colour would round away precision that the float path keeps.
        let byte = ws == .none && bitmap.format == .rgba8 && (opaque || bitmap.alpha == .premultiplied)
        let gray = ws == .none && bitmap.format == .gray8 && bitmap.encoding == .srgb
        super.init(extent: bitmap.bounds, natural: gray ? .gray : (byte ? .byte : .float), children: [])
    }

    var hasStraightBytes: Bool { bitmap.format == .rgba8 && (bitmap.alpha == .straight || layout.opaque) }

    override var opaqueWithin: Bool { layout.opaque }

    override var explanation: String {
        "read bitmap \(bitmap.width)x\(bitmap.height) \(bitmap.format) \(bitmap.encoding)\(layout.opaque ? ", opaque" : "")"
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        if kind == .byte && natural == .byte && extent.contains(rect)
            && (bitmap.alpha == .premultiplied || layout.opaque) {
            let p = bitmap.row(rect.y) + rect.x * 4
            return _PixelBuffer(kind: .byte, rect: rect, view: p, stride: bitmap.width, keepAlive: bitmap)
        }
        if kind == .gray && natural == .gray && extent.contains(rect) {
            return _PixelBuffer(kind: .gray, rect: rect, view: bitmap.row(rect.y) + rect.x, stride: bitmap.width, keepAlive: bitmap)
        }
        if kind == .gray && bitmap.format != .gray8 {
            return _convert(try produce(rect, .float, w), to: .gray, w)
        }
        if kind == .float && bitmap.format == .rgbaFloat32 && bitmap.alpha == .premultiplied
            && bitmap.encoding == w.workingSpace.encoding && extent.contains(rect) {
            let p = bitmap.row(rect.y) + rect.x * 16
            return _PixelBuffer(kind: .float, rect: rect, view: p, stride: bitmap.width, keepAlive: bitmap)
        }
        let out = w.buffer(kind, rect)
        try layout.fill(out, extent: extent, w) { inside, body in
            try withStoredRows(inside, w, body)
        }
        return out
    }

    func withStoredRows(_ rect: Rect, _ w: _Worker, _ body: (Int, UnsafeRawPointer) throws -> Void) throws {
        for y in rect.y..<rect.maxY { try body(y, UnsafeRawPointer(bitmap.row(y))) }
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if !(try _storeStoredRows(self, layout, rect, into: d, w)) { try super.store(rect, into: d, w) }
    }

    func load(_ stored: UnsafeRawPointer, _ count: Int, into dst: UnsafeMutablePointer<SIMD4<Float>>, _ w: _Worker) {
        layout.loadFloats(stored, count, dst, w)
    }
}

/// An infinite plane of one colour.
final class _ConstantExec: _Exec, @unchecked Sendable {
    let color: SIMD4<Float>  // premultiplied, working encoding
    let summary: String

    init(_ straight: SIMD4<Float>, _ encoding: ColorEncoding, extent: Rect, _ ws: WorkingSpace) {
        var c = straight
        if encoding != ws.encoding {
            c = encoding == .srgb ? SRGB.decode(c) : SRGB.encode(c)
            c.w = straight.w
        }
        color = SIMD4(c.x * c.w, c.y * c.w, c.z * c.w, c.w)
        summary = "\(straight)"
        super.init(extent: extent, natural: .float, children: [])
    }

    override var explanation: String { "constant colour \(summary)" }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let out = w.buffer(.float, rect)
        let inside = rect.intersection(extent)
        if inside != rect { out.zero() }
        if !inside.isEmpty {
            let t = out.floatTile
            for y in inside.y..<inside.maxY {
                t.pointer(x: inside.x, y: y).update(repeating: color, count: inside.width)
            }
        }
        return _convert(out, to: kind, w)
    }
}

/// A crop: transparent outside the crop rectangle.
final class _CropExec: _Exec, @unchecked Sendable {
    let input: _Exec
    init(_ input: _Exec, extent: Rect) {
        self.input = input
        super.init(extent: extent, natural: input.natural, children: [input])
    }

    override var explanation: String { "crop to \(extent)" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let inside = rect.intersection(extent)
        if inside == rect { return try input.produce(rect, kind, w) }
        let out = w.buffer(kind, rect)
        out.zero()
        if !inside.isEmpty {
            let b = try input.produce(inside, kind, w)
            _copy(b, out, inside)
        }
        return out
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if extent.contains(rect) { return try input.store(rect, into: d, w) }
        try super.store(rect, into: d, w)
    }
}

/// Edge pixels repeated outward.
final class _ClampExec: _Exec, @unchecked Sendable {
    let input: _Exec
    init(_ input: _Exec) {
        self.input = input
        super.init(extent: .infinite, natural: input.natural, children: [input])
    }

    override var explanation: String { "clamp to extent \(input.extent) (edge pixels repeat)" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let e = input.extent
        if e.contains(rect) { return try input.produce(rect, kind, w) }
        func cx(_ x: Int) -> Int { min(max(x, e.x), e.maxX - 1) }
        func cy(_ y: Int) -> Int { min(max(y, e.y), e.maxY - 1) }
        let x0 = cx(rect.x), x1 = cx(rect.maxX - 1), y0 = cy(rect.y), y1 = cy(rect.maxY - 1)
        let src = try input.produce(Rect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1), kind, w)
        let out = w.buffer(kind, rect)
        let bpp = kind.bytesPerPixel
        // Columns of the output that fall inside the input's x range copy directly.
        let midX0 = max(rect.x, e.x), midX1 = min(rect.maxX, e.maxX)
        for y in rect.y..<rect.maxY {
            let sy = cy(y)
            let srow: UnsafeMutableRawPointer = kind == .float
                ? UnsafeMutableRawPointer(src.floatTile.row(sy)) : UnsafeMutableRawPointer(src.byteTile.row(sy))
            let drow: UnsafeMutableRawPointer = kind == .float
                ? UnsafeMutableRawPointer(out.floatTile.row(y)) : UnsafeMutableRawPointer(out.byteTile.row(y))
            // srow starts at column x0; drow at rect.x.
            if midX1 > midX0 {
                memcpy(drow + (midX0 - rect.x) * bpp, srow + (midX0 - x0) * bpp, (midX1 - midX0) * bpp)
            }
            let leftEnd = min(rect.maxX, e.x)
            if rect.x < leftEnd {
                for x in rect.x..<leftEnd { memcpy(drow + (x - rect.x) * bpp, srow, bpp) }
            }
            let rightStart = max(rect.x, e.maxX)
            if rightStart < rect.maxX {
                let last = srow + (x1 - x0) * bpp
                for x in rightStart..<rect.maxX { memcpy(drow + (x - rect.x) * bpp, last, bpp) }
            }
        }
        return out
    }
}

/// A whole-pixel move: free, the tile is relabelled.
final class _TranslateExec: _Exec, @unchecked Sendable {
    let input: _Exec
    let dx: Int, dy: Int
    init(_ input: _Exec, dx: Int, dy: Int, extent: Rect) {
        self.input = input
        self.dx = dx
        self.dy = dy
        super.init(extent: extent, natural: input.natural, children: [input])
    }

    override var explanation: String { "translate by (\(dx), \(dy))" }

    override var opaqueWithin: Bool { input.opaqueWithin }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let b = try input.produce(Rect(x: rect.x - dx, y: rect.y - dy, width: rect.width, height: rect.height), kind, w)
        if b.isWritable {
            b.relabel(rect)
            return b
        }
        let view = _PixelBuffer(kind: b.kind, rect: rect, view: b.raw, stride: b.stride, keepAlive: b)
        return view
    }
}

/// A neighbourhood kernel over its region of interest.
final class _NeighborhoodExec: _Exec, @unchecked Sendable {
    let input: _Exec
    let kernel: any NeighborhoodKernel
    /// Whether the kernel runs on 8-bit tiles (RGBA, or grey when `useGray`).
    let useBytes: Bool
    /// Whether it runs on grey tiles, a byte a pixel (a grey source and a kernel that takes grey);
    /// a grey source through a kernel without grey runs on RGBA bytes, expanded exactly.
    let useGray: Bool
    /// The kind the input is read as.
    let inputKind: TileKind

    init(_ input: _Exec, _ kernel: any NeighborhoodKernel, extent: Rect) {
        self.input = input
        self.kernel = kernel
        useBytes = kernel.supportsBytes && (input.natural == .byte || input.natural == .gray)
        useGray = useBytes && kernel.supportsGray && input.natural == .gray
        inputKind = useGray ? .gray : (useBytes ? .byte : .float)
        super.init(extent: extent, natural: inputKind, children: [input])
    }

    /// Opaque where the kernel never reads past the input (an infinite one, clamped edges).
    override var opaqueWithin: Bool { input.extent.isInfinite && useBytes && input.opaqueWithin && kernel.keepsOpaque }

    override var explanation: String {
        "\(kernel.name)\(kernel.detail.isEmpty ? "" : " (\(kernel.detail))") on \(useGray ? "8-bit grey" : useBytes ? "8-bit" : "float") tiles"
    }

    /// Pixels whose neighbourhood reaches past the input's edge (where the kernel meets
    /// transparent pixels and partial alpha appears) are computed in float when they go straight
    /// to the output: 8-bit premultiplied values would lose precision there. Only those pixels:
    /// a tile on the border is split into the part whose neighbourhood stays inside (8-bit) and
    /// the strips along the edge (float), so a border costs its few rows, not whole tiles.
    /// Grey into a grey destination needs no split: grey has no alpha, and transparent black
    /// beyond the edge stored as grey is black, what the grey kernel reads there.
    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let roi = kernel.regionOfInterest(for: rect, bytes: useBytes)
        let grayToGray = useGray && d.format == .gray8
        if useBytes && !grayToGray && !input.extent.isInfinite && !input.extent.contains(roi) {
            // Outputs whose neighbourhood lies inside the input: the input inset by the margins
            // the kernel reads beyond an output rectangle.
            let e = input.extent
            let left = rect.x - roi.x, top = rect.y - roi.y, right = roi.maxX - rect.maxX, bottom = roi.maxY - rect.maxY
            let safe = Rect(x: e.x + left, y: e.y + top, width: e.width - left - right, height: e.height - top - bottom)
                .intersection(rect)
            if safe.isEmpty {
                try storeInFloat(rect, into: d, w)
                return
            }
            try storeBytes(safe, into: d, w)
            let strips = [Rect(x: rect.x, y: rect.y, width: rect.width, height: safe.y - rect.y),
                          Rect(x: rect.x, y: safe.maxY, width: rect.width, height: rect.maxY - safe.maxY),
                          Rect(x: rect.x, y: safe.y, width: safe.x - rect.x, height: safe.height),
                          Rect(x: safe.maxX, y: safe.y, width: rect.maxX - safe.maxX, height: safe.height)]
            for strip in strips where !strip.isEmpty { try storeInFloat(strip, into: d, w) }
            return
        }
        try storeBytes(rect, into: d, w)
    }

    /// 8-bit results for an 8-bit destination are computed in the destination's own rows (no
    /// tile to fill and copy out): premultiplied as the kernel leaves them, then made straight in
    /// place where the destination wants it (opaque pixels are the same either way).
    private func storeBytes(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let kind: TileKind? = d.format == .gray8 ? .gray : d.format == .rgba8 ? .byte : nil
        guard useBytes, let kind, kind == inputKind, d.encoding == .srgb, d.rowBytes % kind.bytesPerPixel == 0 else {
            return try super.store(rect, into: d, w)
        }
        let src = try input.produce(kernel.regionOfInterest(for: rect, bytes: true), kind, w)
        defer { w.scratch.releaseAll() }
        let bpp = kind.bytesPerPixel
        let base = (d.row(rect.y) + (rect.x - d.rect.x) * bpp).assumingMemoryBound(to: UInt8.self)
        let out = ByteTile(rect: rect, base: base, stride: d.rowBytes / bpp, channels: bpp)
        if kind == .gray { return try kernel.apply(input: src.byteTile, output: out, scratch: w.scratch) }
        try kernel.apply(input: src.byteTile, output: out, scratch: w.scratch)
        // Opaque results are straight already (this runs only where the neighbourhood lies inside the input).
        if d.alpha == .premultiplied || (input.opaqueWithin && kernel.keepsOpaque) { return }
        for y in rect.y..<rect.maxY {
            let row = out.row(y)
            _Convert.storeBytes(row, rect.width, premultiplied: false, row)
        }
    }

    private func storeInFloat(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let src = try input.produce(kernel.regionOfInterest(for: rect, bytes: false), .float, w)
        let out = w.buffer(.float, rect)
        defer { w.scratch.releaseAll() }
        try kernel.apply(input: src.floatTile, output: out.floatTile, scratch: w.scratch)
        _Exec.write(out, rows: rect, into: d, w)
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let roi = kernel.regionOfInterest(for: rect, bytes: useBytes)
        let src = try input.produce(roi, inputKind, w)
        let out = w.buffer(natural, rect)
        defer { w.scratch.releaseAll() }
        if useBytes {
            try kernel.apply(input: src.byteTile, output: out.byteTile, scratch: w.scratch)
        } else {
            try kernel.apply(input: src.floatTile, output: out.floatTile, scratch: w.scratch)
        }
        return _convert(out, to: kind, w)
    }
}

/// Two images combined pixel by pixel.
final class _BlendExec: _Exec, @unchecked Sendable {
    let foreground: _Exec, background: _Exec
    let kernel: any BlendKernel

    init(_ fg: _Exec, _ bg: _Exec, _ kernel: any BlendKernel, extent: Rect) {
        foreground = fg
        background = bg
        self.kernel = kernel
        super.init(extent: extent, natural: .float, children: [fg, bg])
    }

    override var explanation: String { "\(kernel.name) (per pixel, float)" }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let f = try foreground.produce(rect, .float, w)
        let b = try background.produce(rect, .float, w)
        let out = b.isWritable ? b : (f.isWritable ? f : w.buffer(.float, rect))
        let ft = f.floatTile, bt = b.floatTile, ot = out.floatTile
        for y in rect.y..<rect.maxY {
            kernel.apply(foreground: ft.row(y), background: bt.row(y), output: ot.row(y), count: rect.width)
        }
        return _convert(out, to: kind, w)
    }
}

/// Copies stored 8-bit rows straight into an 8-bit destination when nothing needs converting
/// (no filter between source and output). Returns false when a conversion is needed.
func _storeStoredRows(_ source: _RowReadable, _ layout: _StoredLayout, _ rect: Rect, into d: _Destination,
                      _ w: _Worker) throws -> Bool {
    let same = (layout.format == .rgba8 && d.format == .rgba8 && (layout.opaque || layout.alpha == d.alpha) && layout.encoding == d.encoding)
        || (layout.format == .gray8 && d.format == .gray8 && layout.encoding == d.encoding)
    guard same, source.extent.contains(rect) else { return false }
    let bpp = d.format.bytesPerPixel
    let offset = (rect.x - source.extent.x) * bpp
    try source.withStoredRows(rect, w) { y, p in
        memcpy(d.row(y) + (rect.x - d.rect.x) * bpp, p + offset, rect.width * bpp)
    }
    return true
}
