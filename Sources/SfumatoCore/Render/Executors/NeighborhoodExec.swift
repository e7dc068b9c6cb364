import Foundation

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
    /// How results going straight to an 8-bit sRGB destination are computed on 8-bit tiles where
    /// the kernel's own 8-bit variant is not the route (nil: float tiles). Other consumers read
    /// float tiles, except picked values of an infinite input (see ``sRGBBytes``).
    let destinationBytes: _DestinationBytes?

    init(_ input: _Exec, _ kernel: any NeighborhoodKernel, extent: Rect, ws: WorkingSpace, linearBytes: Bool) {
        self.input = input
        self.kernel = kernel
        useBytes = kernel.supportsBytes && (input.natural == .byte || input.natural == .gray)
        useGray = useBytes && kernel.supportsGray && input.natural == .gray
        inputKind = useGray ? .gray : (useBytes ? .byte : .float)
        destinationBytes = _DestinationBytes(kernel, ws: ws, linearBytes: linearBytes, input: input, useBytes: useBytes)
        super.init(extent: extent, natural: inputKind, children: [input])
    }

    /// Opaque where the kernel never reads past the input (an infinite one, clamped edges).
    override var opaqueWithin: Bool {
        input.extent.isInfinite && input.opaqueWithin && (useBytes && kernel.keepsOpaque || destinationBytes == .picked)
    }

    /// Picked values of an infinite input are the float route's, encoded: bytes for any reader.
    override var sRGBBytes: Bool { natural == .byte || destinationBytes == .picked && input.extent.isInfinite }

    override var explanation: String {
        let tiles =
            switch (useGray, useBytes, destinationBytes) {
            case (true, _, _): "8-bit grey"
            case (_, true, _): "8-bit"
            case (_, _, .picked): "8-bit sRGB (picked values: the float route's exactly) or float"
            case (_, _, .linearWords): "8-bit sRGB (linear light in 16-bit words) or float"
            case (_, _, .encoded): "8-bit (into the destination) or float"
            case (_, _, nil): "float"
            }
        return "\(kernel.name)\(kernel.detail.isEmpty ? "" : " (\(kernel.detail))") on \(tiles) tiles"
    }

    /// Pixels whose neighbourhood reaches past the input's edge (where the kernel meets
    /// transparent pixels and partial alpha appears) are computed in float when they go straight
    /// to the output: 8-bit premultiplied values would lose precision there. Only those pixels:
    /// a tile on the border is split into the part whose neighbourhood stays inside (8-bit) and
    /// the strips along the edge (float), so a border costs its few rows, not whole tiles.
    /// Grey into a grey destination needs no split: grey has no alpha, and transparent black
    /// beyond the edge stored as grey is black, what the grey kernel reads there.
    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let grayToGray = useGray && d.format == .gray8
        if useBytes || destinationBytes != nil, !grayToGray && !input.extent.isInfinite,
            case let safe = kernel.interior(of: rect, input: input.extent), safe != rect
        {
            // A tall tile across a slanted edge (a turned image's) has little interior over all
            // its rows: bands of rows each find their own.
            if let band = kernel.interiorBandRows, rect.height > 2 * band {
                var y = rect.y
                while y < rect.maxY {
                    try store(Rect(x: rect.x, y: y, width: rect.width, height: min(band, rect.maxY - y)), into: d, w)
                    y += band
                }
                return
            }
            if safe.isEmpty {
                try storeInFloat(rect, into: d, w)
                return
            }
            try storeBytes(safe, into: d, w)
            let strips = [
                Rect(x: rect.x, y: rect.y, width: rect.width, height: safe.y - rect.y),
                Rect(x: rect.x, y: safe.maxY, width: rect.width, height: rect.maxY - safe.maxY),
                Rect(x: rect.x, y: safe.y, width: safe.x - rect.x, height: safe.height),
                Rect(x: safe.maxX, y: safe.y, width: rect.maxX - safe.maxX, height: safe.height)
            ]
            for strip in strips where !strip.isEmpty { try storeInFloat(strip, into: d, w) }
            return
        }
        try storeBytes(rect, into: d, w)
    }

    /// 8-bit results for an 8-bit destination are computed in the destination's own rows (no
    /// tile to fill and copy out): premultiplied as the kernel leaves them, then made straight in
    /// place where the destination wants it (opaque pixels are the same either way).
    private func storeBytes(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        if d.format == .rgb8, d.encoding == .srgb, !useGray, useBytes || destinationBytes != nil {
            // Packed RGB: the 8-bit result in an RGBA tile (premultiplied: colour over black), packed.
            let tile = w.buffer(.byte, rect)
            let rows = _Destination(
                base: UnsafeMutableRawPointer(tile.byteTile.pointer(x: rect.x, y: rect.y)), rowBytes: 4 * tile.stride,
                rect: rect, format: .rgba8, encoding: .srgb, alpha: .premultiplied)
            try storeBytes(rect, into: rows, w)
            _Exec.write(tile, rows: rect, into: d, w)
            return
        }
        let kind: TileKind? = d.format == .gray8 ? .gray : d.format == .rgba8 ? .byte : nil
        let readKind = destinationBytes != nil ? .byte : inputKind
        guard useBytes || destinationBytes != nil, let kind, kind == readKind, d.encoding == .srgb, d.rowBytes % kind.bytesPerPixel == 0 else {
            return try super.store(rect, into: d, w)
        }
        let src = try input.produce(kernel.regionOfInterest(for: rect, bytes: true), kind, w)
        defer { w.scratch.releaseAll() }
        let bpp = kind.bytesPerPixel
        let base = (d.row(rect.y) + (rect.x - d.rect.x) * bpp).assumingMemoryBound(to: UInt8.self)
        let out = ByteTile(rect: rect, base: base, stride: d.rowBytes / bpp, channels: bpp)
        // Opaque in, opaque out: straight and premultiplied are the same bytes.
        switch destinationBytes {
        case .picked: return try kernel.apply(input: src.byteTile, output: out, scratch: w.scratch)
        case .linearWords: return try kernel.applyLinear(input: src.byteTile, output: out, scratch: w.scratch)
        case .encoded: return try kernel.applyEncodedBytes(input: src.byteTile, output: out, scratch: w.scratch)
        case nil: break
        }
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
        if kind == .byte && destinationBytes == .picked && input.extent.isInfinite {
            let src = try input.produce(kernel.regionOfInterest(for: rect, bytes: true), .byte, w)
            let out = w.buffer(.byte, rect)
            defer { w.scratch.releaseAll() }
            try kernel.apply(input: src.byteTile, output: out.byteTile, scratch: w.scratch)
            return out
        }
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

/// The 8-bit routes for results going straight to an 8-bit sRGB destination, where a kernel's own
/// 8-bit variant (on the tiles' natural bytes) is not taken. Each needs an opaque 8-bit sRGB input.
enum _DestinationBytes: Equatable {
    /// Linear light, a kernel that picks input values (``NeighborhoodKernel/picksInputValues``):
    /// its 8-bit variant on the sRGB bytes is the float route's result exactly, encoded.
    case picked
    /// Linear light on 16-bit words (``NeighborhoodKernel/applyLinear(input:output:scratch:)``):
    /// the float route's result within a level, at about the 8-bit kernel's speed.
    case linearWords
    /// Encoded values (the `.none` working space) for a kernel whose 8-bit results may go only to
    /// the destination (``NeighborhoodKernel/supportsEncodedBytes``).
    case encoded

    /// The route for `kernel` over `input`, or nil. `linearBytes` off keeps linear light on floats.
    init?(_ kernel: any NeighborhoodKernel, ws: WorkingSpace, linearBytes: Bool, input: _Exec, useBytes: Bool) {
        guard !useBytes, input.sRGBBytes, input.opaqueWithin else { return nil }
        if ws == .linear && linearBytes && kernel.picksInputValues && kernel.supportsBytes {
            self = .picked
        } else if ws == .linear && linearBytes && kernel.supportsLinearBytes {
            self = .linearWords
        } else if ws == .none && kernel.supportsEncodedBytes {
            self = .encoded
        } else {
            return nil
        }
    }
}
