import Foundation
#if arch(x86_64)
    import SfumatoAVX512
#endif

/// Fused per-pixel filters: one pass over the pixels for any number of consecutive point
/// filters, and, when the source is 8-bit and every stage works per channel, one lookup table
/// per channel from stored byte to stored byte.
class _PointExec: _Exec, @unchecked Sendable {
    let input: _Exec
    var program: _PointProgram
    /// For per-channel programs: stored 8-bit sRGB level in -> stored level out, per channel
    /// (the working-space conversions are folded in).
    var lut: UnsafeMutablePointer<UInt8>?

    init(_ input: _Exec, program: _PointProgram, extent: Rect, ws: WorkingSpace, children: [_Exec]? = nil) {
        self.input = input
        self.program = program
        // Float even over 8-bit sources: an 8-bit intermediate would clip values outside 0...1
        // that later filters may bring back. The byte table is used when storing the output.
        super.init(extent: extent, natural: .float, children: children ?? [input])
        prepareTable(ws)
    }

    /// For programs of one matrix followed by per-channel curves: the matrix, and per channel a
    /// table of the curves and the 8-bit encoding over v = k / 16384, k = 0...16384 (steps
    /// small enough that even a power curve at 0.5 moves at most a level within one).
    var matrixTail: (Matrix4, UnsafeMutablePointer<UInt8>)?
    static let tailSteps = 16384

    /// The matrix in fixed point for `matrixTail`: per output channel and input channel, the
    /// product of the matrix entry and each level's working value, × 2^18 (`tailFixedShift`
    /// bits above the table's 1/16384 steps), then the three biases; for the working space
    /// `tailLinear` says.
    var tailFixed: UnsafeMutablePointer<Int32>?
    var tailLinear = false
    /// Whether the table is plain rounding, round(k x `tailLevelStep`) (a matrix alone in the
    /// encoded working space): opaque quads then compute the levels instead of looking them up
    /// (checked entry by entry against the table, so both give the same bytes).
    var tailIsRounding = false
    /// The matrix in integers for opaque quads when the table is plain rounding in the encoded
    /// working space (nil when its entries are too large for 15-bit weights).
    var tailWeights: _MatrixWeights?
    static let tailLevelStep: Float = 255 / Float(tailSteps)
    static let tailFixedShift: Int32 = 4

    deinit {
        lut?.deallocate()
        matrixTail?.1.deallocate()
        tailFixed?.deallocate()
    }

    /// Builds the per-channel tables when the program allows them.
    func prepareTable(_ ws: WorkingSpace) {
        prepareMatrixTail(ws)
        lut?.deallocate()
        lut = nil
        guard program.isPerChannel else { return }
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * 256)
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 256)
        let alpha = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { values.deallocate(); alpha.deallocate() }
        for k in 0..<256 {
            let v = ws == .linear ? SRGB.decodedByte[k] : Float(k) / 255
            values[k] = SIMD4(v, v, v, 1)
        }
        program.run(values, 256, alpha: alpha)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * 256)
        defer { out.deallocate() }
        _Convert.storeRGBA8(values, 256, linear: ws == .linear, premultiplied: false, out)
        for k in 0..<256 { for c in 0..<3 { t[c * 256 + k] = out[4 * k + c] } }
        lut = t
    }

    override var isPixelForPixel: Bool { true }

    override var explanation: String {
        var s = "fused point pass: \(program.summary)"
        if lut != nil {
            s += "; per-channel, so 8-bit sources map through one 256-entry table per channel"
        } else if matrixTail != nil {
            s += "; 8-bit sources: one 4x4 matrix, then the curves and encoding through one table per channel"
        } else if bytePixelFunction != nil, (input as? _RowReadable)?.hasStraightBytes == true {
            s += "; 8-bit pixels mapped byte to byte by the function itself"
        }
        return s
    }

    /// A program of one pixel function that maps 8-bit pixels itself (e.g. a threshold).
    var bytePixelFunction: (any PixelFunction)? {
        guard program.segments.count == 1, case .unpremultiplied(let ops) = program.segments[0], ops.count == 1,
            case .pixel(let f) = ops[0], f.mapsStraightBytes
        else { return nil }
        return f
    }

    /// What the float path reads for each stored level in the working space "none".
    nonisolated(unsafe) static let plainLevels: UnsafePointer<Float> = {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * 256)
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 256)
        defer { bytes.deallocate(); values.deallocate() }
        for k in 0..<256 { for c in 0..<4 { bytes[4 * k + c] = c == 3 ? 255 : UInt8(k) } }
        _Convert.loadRGBA8(bytes, 256, premultiplied: false, linear: false, values)
        let levels = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        for k in 0..<256 { levels[k] = values[k].x }
        return UnsafePointer(levels)
    }()

    /// Builds `matrixTail` for a program [matrix][curves...], when clamping the matrix output to
    /// 0...1 before the curves changes nothing (checked on values outside that range).
    private func prepareMatrixTail(_ ws: WorkingSpace) {
        matrixTail?.1.deallocate()
        matrixTail = nil
        guard case .matrix(let m)? = program.segments.first, m.keepsAlpha else { return }
        var tail = _PointProgram()
        for segment in program.segments.dropFirst() {
            guard case .unpremultiplied(let ops) = segment, ops.allSatisfy({ if case .curve = $0 { true } else { false } }) else { return }
            tail.segments.append(segment)
        }
        let n = _PointExec.tailSteps
        let count = n + 1 + 8
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count)
        let alpha = UnsafeMutablePointer<Float>.allocate(capacity: count)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * count)
        defer { values.deallocate(); alpha.deallocate(); out.deallocate() }
        for k in 0...n {
            let v = Float(Double(k) / Double(n))
            values[k] = SIMD4(v, v, v, 1)
        }
        let probes: [Float] = [-0.5, -4, -100, 1.5, 4, 100, 1e6, -1e-3]
        for (i, v) in probes.enumerated() { values[n + 1 + i] = SIMD4(v, v, v, 1) }
        // 16,393 values through the curves (a power curve's pow on each) take a quarter of a
        // millisecond on one core, before every render: spread over the cores in chunks.
        let chunk = 2048, chunks = (count + chunk - 1) / chunk
        let box = _UncheckedSendable((values, alpha, out))
        parallelFor(chunks, threads: min(chunks, defaultThreadCount)) { i in
            let (values, alpha, out) = box.value
            let start = i * chunk, length = min(chunk, count - start)
            tail.run(values + start, length, alpha: alpha + start)
            _Convert.storeRGBA8(values + start, length, linear: ws == .linear, premultiplied: false, out + 4 * start)
        }
        for (i, v) in probes.enumerated() {
            let expected = v < 0 ? out[0] : out[4 * n]
            for c in 0..<3 where out[4 * (n + 1 + i) + c] != (v < 0 ? out[c] : out[4 * n + c]) || expected != out[4 * (v < 0 ? 0 : n)] {
                return  // the curves do something outside 0...1: no table
            }
        }
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * (n + 1))
        for k in 0...n { for c in 0..<3 { t[c * (n + 1) + k] = out[4 * k + c] } }
        matrixTail = (m, t)
        tailIsRounding = (0...n).allSatisfy { k in
            let level = _roundedInts(_float(fromSmallInts: SIMD4(repeating: Int32(k))) * Self.tailLevelStep)[0]
            return (0..<3).allSatisfy { c in Int32(t[c * (n + 1) + k]) == level }
        }
        let (c0, c1, c2, c3) = m.columns
        let rows: [[Float]] = [[c0.x, c1.x, c2.x, c3.x], [c0.y, c1.y, c2.y, c3.y], [c0.z, c1.z, c2.z, c3.z]]
        tailWeights = tailIsRounding && ws == .none ? _MatrixWeights(rows: rows.map { $0.map(Double.init) }) : nil
        // The fixed-point matrix: 9 tables of 256 products and 3 biases (with the rounding half).
        tailFixed?.deallocate()
        tailFixed = nil
        // Sums stay far inside Int32 for entries up to 1000; larger ones (or NaN, which fails
        // the test too) keep the float route.
        guard rows.joined().allSatisfy({ abs($0) <= 1000 }) else { return }
        let unit = Double(n) * Double(1 << Self.tailFixedShift)
        let f = UnsafeMutablePointer<Int32>.allocate(capacity: 9 * 256 + 3)
        let levels = ws == .linear ? SRGB.decodedByte : _PointExec.plainLevels
        for o in 0..<3 {
            for i in 0..<3 {
                for v in 0..<256 {
                    f[(3 * o + i) * 256 + v] = Int32((Double(rows[o][i]) * Double(levels[v]) * unit).rounded())
                }
            }
            f[9 * 256 + o] = Int32((Double(rows[o][3]) * unit).rounded()) + (1 << (Self.tailFixedShift - 1))
        }
        tailFixed = f
        tailLinear = ws == .linear
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        if kind == .byte && natural == .byte {
            let src = try input.produce(rect, .byte, w)
            // Never in place: mapBytes stores a quad's alpha before its looked-up colours.
            let out = w.buffer(.byte, rect)
            let st = src.byteTile, ot = out.byteTile
            for y in rect.y..<rect.maxY {
                mapBytes(st.row(y), ot.row(y), rect.width, premultipliedInput: true, premultipliedOutput: true)
            }
            return out
        }
        let out: _PixelBuffer
        if let readable = input as? _RowReadable {
            out = w.buffer(.float, rect)
            let ot = out.floatTile
            let inside = rect.intersection(input.extent)
            if inside != rect { out.zero() }
            if !inside.isEmpty {
                try readable.withStoredRows(inside, w) { y, stored in
                    let bpp = readable.storedBytesPerPixel
                    var x = 0
                    while x < inside.width {
                        let n = min(_Worker.chunk, inside.width - x)
                        let dst = ot.pointer(x: inside.x + x, y: y)
                        readable.load(stored + (inside.x - input.extent.x + x) * bpp, n, into: dst, w)
                        program.run(dst, n, alpha: w.alphaBuffer)
                        x += n
                    }
                }
            }
        } else {
            let src = try input.produce(rect, .float, w)
            out = src.isWritable ? src : w.buffer(.float, rect)
            let st = src.floatTile, ot = out.floatTile
            for y in rect.y..<rect.maxY {
                var x = 0
                while x < rect.width {
                    let n = min(_Worker.chunk, rect.width - x)
                    let s = st.row(y) + x, d = ot.row(y) + x
                    if s != d { d.update(from: s, count: n) }
                    program.run(d, n, alpha: w.alphaBuffer)
                    x += n
                }
            }
        }
        return kind == .float ? out : _convert(out, to: kind, w)
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let inside = rect.intersection(input.extent)
        guard let readable = input as? _RowReadable, inside == rect else {
            return try super.store(rect, into: d, w)
        }
        let bpp = readable.storedBytesPerPixel
        let xOffset = (rect.x - input.extent.x) * bpp
        if readable.storedFormat == .gray8 && (d.format == .gray8 || d.format == .rgba8 || d.format == .rgb8) {
            return try storeGray(rect, readable, xOffset, into: d, w)
        }
        // The 8-bit routes (a table, a byte pixel function, a matrix tail) write RGBA8 rows; for a
        // grey destination in the none working space (where luminance is taken of the encoded
        // values) they write a row of premultiplied RGBA (colour over black) whose luminance is
        // then stored. In linear light, luminance needs the linear values: the float route.
        // Packed RGB goes through RGBA8 a block at a time, both ways; in linear light only from
        // opaque sources, as colour over black there is the float route's too.
        let toGray = d.format == .gray8 && d.encoding == .srgb && !w.linear
        let packedIn = readable.storedFormat == .rgb8
        let packedOut = d.format == .rgb8 && d.encoding == .srgb && (!w.linear || input.opaqueWithin)
        if (d.format == .rgba8 || toGray || packedOut) && readable.hasStraightBytes
            && (lut != nil || bytePixelFunction != nil || matrixTail != nil)
        {
            // Packed output of straight pixels is premultiplied as it is packed.
            let premultiplied = toGray || d.alpha == .premultiplied
            let levels = w.linear ? SRGB.decodedByte : _PointExec.plainLevels
            let block = packedIn || packedOut ? _Convert.packedBlock : rect.width
            let temp: UnsafeMutablePointer<UInt8>? = toGray || packedOut ? .allocate(capacity: 4 * block) : nil
            let expanded: UnsafeMutablePointer<UInt8>? = packedIn ? .allocate(capacity: 4 * block) : nil
            defer { temp?.deallocate(); expanded?.deallocate() }
            let inBytes = readable.storedBytesPerPixel, outBytes = d.format.bytesPerPixel
            try readable.withStoredRows(rect, w) { y, stored in
                let row = (d.row(y) + (rect.x - d.rect.x) * outBytes).assumingMemoryBound(to: UInt8.self)
                var x = 0
                if packedIn && packedOut && lut == nil && bytePixelFunction == nil, !w.linear, let weights = tailWeights {
                    // Packed to packed in one pass where the route has a packed kernel.
                    x = weights.mapPacked(stored + xOffset, row, count: rect.width)
                }
                while x < rect.width {
                    let n = min(block, rect.width - x)
                    var source = (stored + xOffset + x * inBytes).assumingMemoryBound(to: UInt8.self)
                    if let expanded {
                        _Convert.expandRGB(source, n, expanded)
                        source = UnsafePointer(expanded)
                    }
                    let out = temp ?? row + x * outBytes
                    if lut != nil {
                        mapBytes(source, out, n, premultipliedInput: false, premultipliedOutput: premultiplied)
                    } else if let f = bytePixelFunction {
                        f.apply(StraightBytes(source: source, destination: out, count: n, level: levels, linear: w.linear))
                        if premultiplied { _premultiplyBytes(out, n) }
                    } else {
                        mapMatrixTail(source, out, n, linear: w.linear, premultipliedOutput: premultiplied)
                    }
                    if packedOut {
                        let packed = row + x * outBytes
                        if premultiplied { _Convert.packRGB(out, n, packed) } else { _Convert.packStraightRGB(out, n, packed) }
                    } else if let temp {
                        _Convert.bytesToGray(temp, n, row + x)
                    }
                    x += n
                }
            }
            return
        }
        let chunk = w.chunkBuffer
        try readable.withStoredRows(rect, w) { y, stored in
            let out = d.row(y) + (rect.x - d.rect.x) * d.format.bytesPerPixel
            var x = 0
            while x < rect.width {
                let n = min(_Worker.chunk, rect.width - x)
                readable.load(stored + xOffset + x * bpp, n, into: chunk, w)
                program.run(chunk, n, alpha: w.alphaBuffer)
                _storeFloatRow(chunk, n, into: d, out + x * d.format.bytesPerPixel, w)
                x += n
            }
        }
    }
}

extension _PointExec {
    /// A grey pixel is (g, g, g, 1), so the whole program is a function of g: it runs once on the
    /// 256 levels, through the same loads and stores as the float path (so the bytes are the
    /// same), and every pixel is then one lookup.
    private func storeGray(_ rect: Rect, _ readable: _RowReadable, _ xOffset: Int, into d: _Destination, _ w: _Worker) throws {
        let chunk = w.chunkBuffer
        precondition(_Worker.chunk >= 256)
        let bpp = d.format.bytesPerPixel
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256 * 5) { buffer in
            // The grey levels, then the table: 256 entries of up to 4 bytes.
            let levels = buffer.baseAddress!, table = levels + 256
            for g in 0..<256 { levels[g] = UInt8(g) }
            readable.load(levels, 256, into: chunk, w)
            program.run(chunk, 256, alpha: w.alphaBuffer)
            _storeFloatRow(chunk, 256, into: d, table, w)
            try readable.withStoredRows(rect, w) { y, stored in
                let s = (stored + xOffset).assumingMemoryBound(to: UInt8.self)
                let out = (d.row(y) + (rect.x - d.rect.x) * bpp).assumingMemoryBound(to: UInt8.self)
                if bpp == 1 {
                    _lookupBytes(table, s, out, count: rect.width)
                } else if bpp == 3 {
                    for x in 0..<rect.width {
                        let e = table + 3 * Int(s[x]), o = out + 3 * x
                        o[0] = e[0]; o[1] = e[1]; o[2] = e[2]
                    }
                } else {
                    let t = UnsafeRawPointer(table), o = UnsafeMutableRawPointer(out)
                    for x in 0..<rect.width {
                        o.storeBytes(of: t.loadUnaligned(fromByteOffset: 4 * Int(s[x]), as: UInt32.self), toByteOffset: 4 * x, as: UInt32.self)
                    }
                }
            }
        }
    }
}

/// Straight 8-bit pixels to premultiplied, in place.
func _premultiplyBytes(_ p: UnsafeMutablePointer<UInt8>, _ count: Int) {
    // Opaque quads need nothing: four alphas checked at once.
    let raw = UnsafeRawPointer(p)
    var start = 0
    while start + 4 <= count {
        let q = raw.loadUnaligned(fromByteOffset: 4 * start, as: SIMD4<UInt32>.self)
        if q.x & q.y & q.z & q.w < 0xFF00_0000 { break }
        start += 4
    }
    for i in start..<count {
        let q = p + 4 * i
        let a = q[3]
        if a == 255 { continue }
        let a32 = UInt32(a)
        q[0] = _mul255(UInt32(q[0]), a32); q[1] = _mul255(UInt32(q[1]), a32); q[2] = _mul255(UInt32(q[2]), a32)
    }
}

extension _RowReadable {
    /// The stored pixel format (nil for rows that are not stored pixels).
    var storedFormat: PixelFormat? {
        if let b = self as? _BitmapExec { return b.bitmap.format }
        if let s = self as? _StreamExec { return s.source.format }
        return nil
    }

    var storedBytesPerPixel: Int {
        if let b = self as? _BitmapExec { return b.bitmap.format.bytesPerPixel }
        if let s = self as? _StreamExec { return s.source.format.bytesPerPixel }
        return 16
    }
}

@inline(__always)
func _withAlphaOne(_ v: SIMD4<Float>) -> SIMD4<Float> {
    var r = v
    r.w = 1
    return r
}
