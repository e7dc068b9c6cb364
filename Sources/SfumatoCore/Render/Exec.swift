import Foundation

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

    /// Whether each output pixel comes from the same pixels of the inputs (no neighbourhood, no
    /// resampling): a render made only of such passes streams whole rows (see
    /// ``RenderContext/Options/fullWidthStrips``).
    var isPixelForPixel: Bool { false }

    /// Whether 8-bit tiles from ``produce(_:_:_:)`` hold the image's own sRGB-encoded values in
    /// any working space: an opaque 8-bit sRGB source, through whole-pixel moves, crops and
    /// clamps. What kernels with a linear-light 8-bit variant read (``NeighborhoodKernel/supportsLinearBytes``).
    var sRGBBytes: Bool { natural == .byte }

    /// Renders `rect` into the destination. Executors that can fuse the final encoding into their
    /// own pass override this.
    func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let b = try produce(rect, _Exec.storeKind(natural, d), w)
        _Exec.write(b, rows: rect, into: d, w)
    }

    /// The tile kind to render in for a destination format: 8-bit tiles only where the
    /// destination keeps 8 bits (grey tiles go to grey or, expanded, to RGBA8 or packed RGB;
    /// RGBA bytes to RGBA8, packed RGB or, as their luminance, to grey). Bytes are sRGB-encoded: a
    /// destination that stores another encoding goes through floats.
    static func storeKind(_ natural: TileKind, _ d: _Destination) -> TileKind {
        if d.encoding != .srgb { return .float }
        return switch (natural, d.format) {
        case (.byte, .rgba8), (.gray, .rgba8), (.byte, .gray8), (.byte, .rgb8), (.gray, .rgb8): .byte
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
            } else if b.kind == .byte && d.format == .rgb8 {
                _Convert.packRGB(b.byteTile.pointer(x: rect.x, y: y), rect.width, out.assumingMemoryBound(to: UInt8.self))
            } else if b.kind == .byte {
                let src = b.byteTile.pointer(x: rect.x, y: y)
                _Convert.storeBytes(
                    src, rect.width, premultiplied: d.alpha == .premultiplied,
                    out.assumingMemoryBound(to: UInt8.self))
            } else {
                let src = b.floatTile.pointer(x: rect.x, y: y)
                _storeFloatRow(src, rect.width, into: d, out, w)
            }
        }
    }
}

/// Converts one row of working floats into a destination row.
func _storeFloatRow(
    _ src: UnsafePointer<SIMD4<Float>>, _ count: Int, into d: _Destination,
    _ out: UnsafeMutableRawPointer, _ w: _Worker
) {
    switch d.format {
    case .rgba8:
        _Convert.storeRGBA8(
            src, count, linear: w.linear, premultiplied: d.alpha == .premultiplied,
            out.assumingMemoryBound(to: UInt8.self))
    case .rgba16:
        _Convert.storeRGBA16(
            src, count, linear: w.linear, premultiplied: d.alpha == .premultiplied,
            out.assumingMemoryBound(to: UInt16.self))
    case .rgbaFloat32:
        _Convert.storeFloat(
            src, count, workingEncoding: w.workingSpace.encoding, encoding: d.encoding,
            premultiplied: d.alpha == .premultiplied, out.assumingMemoryBound(to: SIMD4<Float>.self))
    case .gray8:
        _Convert.storeGray8(
            src, count, workingEncoding: w.workingSpace.encoding, encoding: d.encoding,
            out.assumingMemoryBound(to: UInt8.self))
    case .rgb8:
        _Convert.storeRGB8(src, count, linear: w.linear, out.assumingMemoryBound(to: UInt8.self))
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
