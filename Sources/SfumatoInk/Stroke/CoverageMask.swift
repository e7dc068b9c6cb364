import Foundation
import SfumatoCore

/// One stroke's coverage, kept sparse in 64x64 tiles. Each pixel holds the strongest coverage any
/// piece gave it (max, not sum, so overlapping pieces of one stroke never darken into beads) and
/// a key to that piece's colour there; composited onto a layer once, when the stroke ends.
///
/// A tile is two planes of 64x64 (struct of arrays, so four pixels are one vector load): the
/// coverage (0 = no ink) and the colour key, `piece << 12 | u * 4095` (the piece's index in
/// `palette` and the fraction along it, colour = start + u * (end - start), to 1/8190 of a piece's
/// colour change). Half the bytes of a premultiplied RGBA float per pixel: a wide stroke's
/// mask stays in the L2 cache.
final class _CoverageMask {
    static let tileSize = 64
    /// Pieces a colour key can tell apart: keys live in the float plane as bit patterns, so they
    /// stay below 0x7F80_0000, where Float's infinities and NaNs begin (a copy keeps any pattern,
    /// but nothing should have to rely on that).
    static let maxPieces = 0x7F80_0000 >> 12
    private(set) var tiles: [Int: UnsafeMutablePointer<Float>] = [:]
    /// Bounds of everything drawn, in layer pixels.
    private(set) var bounds = Rect.zero
    let paper: PaperTooth
    /// Layer pixels per document pixel (the paper stays fixed in document space).
    let scale: Double
    /// Per piece drawn: its start colour and its colour change along it (w unused).
    private(set) var palette: [SIMD4<Float>] = []

    /// Per-row column spans of the piece being drawn (x0, x1 pairs), grown as needed.
    private var spans = UnsafeMutablePointer<Int>.allocate(capacity: 2 * 256)
    private var spanCapacity = 256

    init(scale: Double, paper: PaperTooth = .shared) {
        self.scale = scale
        self.paper = paper
    }

    deinit {
        clear()
        spans.deallocate()
    }

    func clear() {
        _TilePool.shared.give(Array(tiles.values))
        tiles.removeAll(keepingCapacity: true)
        palette.removeAll(keepingCapacity: true)
        bounds = .zero
    }

    @inline(__always) static func key(_ tx: Int, _ ty: Int) -> Int { (ty &<< 24) ^ (tx & 0xFF_FFFF) }

    private func tile(_ tx: Int, _ ty: Int) -> UnsafeMutablePointer<Float> {
        let k = _CoverageMask.key(tx, ty)
        if let t = tiles[k] { return t }
        let t = _TilePool.shared.take()
        tiles[k] = t
        return t
    }

    /// The premultiplied colour of coverage `c` with colour key `key`, from `palette`.
    @inline(__always)
    static func color(_ c: Float, key: Float, palette: UnsafePointer<SIMD4<Float>>) -> SIMD4<Float> {
        let k = Int(Int32(bitPattern: key.bitPattern))
        let u = Float(k & 4095) * (1 / 4095)
        var v = (palette[2 * (k >> 12)] + u * palette[2 * (k >> 12) + 1]) * c
        v.w = c
        return v
    }

    /// How far passes of the piece a key names may take a layer's alpha (1, or graphite's sheen).
    @inline(__always)
    static func limit(key: Float, palette: UnsafePointer<SIMD4<Float>>) -> Float {
        palette[2 * (Int(Int32(bitPattern: key.bitPattern)) >> 12)].w
    }

    /// The mask's value at a layer pixel (premultiplied RGBA).
    func value(x: Int, y: Int) -> SIMD4<Float> {
        let s = _CoverageMask.tileSize
        let tx = x >= 0 ? x / s : (x - s + 1) / s, ty = y >= 0 ? y / s : (y - s + 1) / s
        guard let t = tiles[_CoverageMask.key(tx, ty)] else { return .zero }
        let i = (y - ty * s) * s + (x - tx * s)
        if t[i] <= 0 { return .zero }
        return palette.withUnsafeBufferPointer { _CoverageMask.color(t[i], key: t[s * s + i], palette: $0.baseAddress!) }
    }

    /// Draws a piece with analytic anti-aliasing (coverage = clamp(r - d + 0.5), d the distance
    /// to the piece's axis, r its radius there), keeping the stronger value per pixel. Returns the
    /// pixels touched, clipped to `clip`.
    ///
    /// A textured piece (graphite, whose coverage is the same function of distance for every
    /// piece) evaluates only the pixels it is nearest to: its body, the wedge outside the bend at
    /// its start (`previous`: the direction of the piece before it; nil for a stroke's first
    /// piece, which draws its whole start cap) and its end cap if `endCap` (the stroke's last
    /// piece). A chain of short pieces then evaluates each pixel about once, not once per piece
    /// whose cap reaches it.
    @discardableResult
    func draw(_ p: _Piece, clip: Rect, previous: SIMD2<Float>? = nil, endCap: Bool = true) -> Rect {
        let bb = p.bounds
        let area = Rect(x: bb.x0, y: bb.y0, width: bb.x1 - bb.x0, height: bb.y1 - bb.y0).intersection(clip)
        if area.isEmpty { return .zero }
        let s = _CoverageMask.tileSize
        let dx = p.bx - p.ax, dy = p.by - p.ay
        let len2 = dx * dx + dy * dy
        let inv = len2 > 1e-12 ? 1 / len2 : 0
        let dr = p.br - p.ar, dopacity = p.ob - p.oa
        // Keys hold piece indices below maxPieces. A stroke of more pieces (hundreds of thousands of
        // samples) reuses the last slot: a colour slip on some of its pixels, never a read past
        // the palette.
        if palette.count / 2 >= _CoverageMask.maxPieces { palette.removeLast(2) }
        let keyBase = Int32(palette.count / 2) &<< 12
        // The colour's w carries how far passes of this piece may take the layer's alpha (graphite's sheen).
        palette.append(SIMD4(p.ca, p.textured ? _Graphite.sheen : 1))
        palette.append(SIMD4(p.cb - p.ca, 0))
        // The most this piece can give a pixel: pixels already holding that much are skipped
        // (inside a wide opaque stroke most of a piece's box is), which changes nothing because
        // a tie never replaces the value already there.
        let ceiling = max(p.oa, p.ob)
        // Beyond this distance from the axis no pixel centre gets coverage (hairlines reach 1 px).
        let textured = p.textured
        let reach = max(p.ar, p.br, 0.5) + 1 + (textured ? _Graphite.reach(max(p.ar, p.br)) : 0)
        let lanes = SIMD4<Float>(0.5, 1.5, 2.5, 3.5)  // pixel centres of four columns (a local: no lazy-global check per use)
        // Graphite's streaks run along the stroke: the streak profile at the signed distance from its
        // axis (document pixels), the same on both sides of a joint, as the ridges of a worn lead.
        let length = len2.squareRoot()
        let (nx, ny): (Float, Float) = length > 1e-6 ? (-dy / length, dx / length) : (0, 1)
        let paper = _PaperSampler(paper: self.paper, scale: scale)
        let graphiteReach = _Graphite.reach(max(p.ar, p.br))
        let startCap = previous == nil || previous! == .zero
        let before = previous ?? .zero
        /// Whether this piece is the one a textured pixel is evaluated by (see above).
        @inline(__always) func mine(_ projection: SIMD4<Float>, _ px: SIMD4<Float>, _ py: Float) -> SIMDMask<SIMD4<Int32>> {
            let behind = projection .< 0, ahead = projection .> 1
            var m = .!(behind .| ahead)
            m = m .| (startCap ? behind : behind .& ((px * before.x + py * before.y) .>= 0))
            return endCap ? m .| ahead : m
        }
        // Each row's columns within reach of the piece (its capsule crosses a row in one
        // interval; a diagonal piece's box is mostly empty), computed once for all tiles.
        if spanCapacity < area.height {
            spans.deallocate()
            spanCapacity = max(area.height, 2 * spanCapacity)
            spans = .allocate(capacity: 2 * spanCapacity)
        }
        for j in 0..<area.height {
            let py = Float(area.y + j) + 0.5 - p.ay
            let (lo, hi) = _CoverageMask.reach(py, dx: dx, dy: dy, len2: len2, radius: reach)
            var x0 = area.maxX, x1 = area.x
            if lo <= hi {
                x0 = max(area.x, _floorInt(p.ax + lo - 0.5))
                x1 = min(area.maxX, _floorInt(p.ax + hi - 0.5) + 2)
            }
            spans[2 * j] = x0
            spans[2 * j + 1] = x1
        }
        var ty = area.y >= 0 ? area.y / s : (area.y - s + 1) / s
        while ty * s < area.maxY {
            var tx = area.x >= 0 ? area.x / s : (area.x - s + 1) / s
            while tx * s < area.maxX {
                let cell = Rect(x: tx * s, y: ty * s, width: s, height: s).intersection(area)
                // No tile for a cell that no row reaches into.
                var touched = false
                for y in cell.y..<cell.maxY {
                    let j = y - area.y
                    if spans[2 * j] < cell.maxX && spans[2 * j + 1] > cell.x { touched = true; break }
                }
                if !touched { tx += 1; continue }
                let t = tile(tx, ty)
                for y in cell.y..<cell.maxY {
                    let py = Float(y) + 0.5 - p.ay
                    let paperRow = paper.documentRow(y)
                    // Coverage and key planes, indexed by layer column.
                    let row = t + (y - ty * s) * s - tx * s
                    let keys = row + s * s
                    let j = y - area.y
                    let x0 = max(cell.x, spans[2 * j]), x1 = min(cell.maxX, spans[2 * j + 1])
                    if x0 >= x1 { continue }
                    _TilePool.widen(t, row: y - ty * s, x0 - tx * s, x1 - tx * s)
                    // Four pixels at a time (the same arithmetic per lane as the scalar tail, so
                    // the result does not depend on where a run starts).
                    var x = x0
                    while x + 4 <= x1 {
                        let held = UnsafeRawPointer(row + x).loadUnaligned(as: SIMD4<Float>.self)
                        if all(held .>= ceiling) { x += 4; continue }
                        let px = (SIMD4<Float>(repeating: Float(x)) + lanes) - p.ax
                        let projection = (px * dx + py * dy) * inv
                        let u = _clamp01(projection)
                        let ex = px - u * dx, ey = py - u * dy
                        let d = (ex * ex + ey * ey).squareRoot()
                        let r = p.ar + u * dr
                        var c: SIMD4<Float>
                        if textured {
                            // Graphite on the paper (its edge reaches past r).
                            let open = (held .< ceiling) .& (d .< r + graphiteReach) .& mine(projection, px, py)
                            if !any(open) { x += 4; continue }
                            c = _Graphite.coverage(
                                d: d, r: r, opacity: p.oa + u * dopacity, tooth: paper.heights(x: x, row: paperRow),
                                streak: paper.streak(ex * nx + ey * ny))
                            c.replace(with: 0, where: .!open)
                        } else {
                            c = _clamp01(r - d + 0.5)
                            c.replace(with: 2 * r * _clamp01(1 - d), where: r .< 0.5)
                            if all(c .<= 0) { x += 4; continue }
                            c *= p.oa + u * dopacity
                            // Only lanes that beat what is held change (c <= ceiling).
                            if !any(c .> held) { x += 4; continue }
                        }
                        let better = c .> held
                        if any(better) {
                            let key = keyBase | _roundedInts(u * 4095)
                            let heldKey = UnsafeRawPointer(keys + x).loadUnaligned(as: SIMD4<Int32>.self)
                            UnsafeMutableRawPointer(row + x).storeBytes(of: _select(better, c, held), as: SIMD4<Float>.self)
                            UnsafeMutableRawPointer(keys + x).storeBytes(of: _select(better, key, heldKey), as: SIMD4<Int32>.self)
                        }
                        x += 4
                    }
                    while x < x1 {
                        defer { x += 1 }
                        if row[x] >= ceiling { continue }
                        let px = (Float(x) + 0.5) - p.ax
                        let projection = (px * dx + py * dy) * inv
                        if textured && !mine(SIMD4(repeating: projection), SIMD4(repeating: px), py)[0] { continue }
                        let u = projection.bounded(0, 1)
                        let ex = px - u * dx, ey = py - u * dy
                        let d = (ex * ex + ey * ey).squareRoot()
                        let r = p.ar + u * dr
                        var c: Float
                        if textured {
                            // The same arithmetic as four lanes (lane 0 of a run starting here).
                            c =
                                _Graphite.coverage(
                                    d: SIMD4(repeating: d), r: SIMD4(repeating: r), opacity: SIMD4(repeating: p.oa + u * dopacity),
                                    tooth: paper.heights(x: x, row: paperRow), streak: paper.streak(SIMD4(repeating: ex * nx + ey * ny)))[0]
                        } else if r >= 0.5 {
                            c = (r - d + 0.5).bounded(0, 1)
                        } else {
                            // Hairlines: coverage proportional to width, fading over a pixel.
                            c = 2 * r * (1 - d).bounded(0, 1)
                        }
                        if c <= 0 { continue }
                        if !textured { c *= p.oa + u * dopacity }
                        if c > row[x] {
                            row[x] = c
                            keys[x] = Float(bitPattern: UInt32(bitPattern: keyBase | _roundedInts(SIMD4(repeating: u * 4095))[0]))
                        }
                    }
                }
                tx += 1
            }
            ty += 1
        }
        bounds = bounds.union(area)
        return area
    }

    /// The interval of x (relative to the piece's start) within `radius` of the segment from
    /// (0, 0) to (dx, dy) on the row at `py`: the union of the end discs and the band between them,
    /// one interval since the capsule is convex; widened by a pixel against rounding. Empty when
    /// lo > hi.
    @inline(__always)
    static func reach(_ py: Float, dx: Float, dy: Float, len2: Float, radius r: Float) -> (Float, Float) {
        var lo = Float.infinity, hi = -Float.infinity
        let ha = r * r - py * py
        if ha >= 0 { let h = ha.squareRoot(); lo = -h; hi = h }
        let qy = py - dy
        let hb = r * r - qy * qy
        if hb >= 0 { let h = hb.squareRoot(); lo = min(lo, dx - h); hi = max(hi, dx + h) }
        if len2 > 1e-12 {
            // 0 <= px·dx + py·dy <= len2 and |px·dy − py·dx| <= r·|d|, each an interval of px.
            var blo = -Float.infinity, bhi = Float.infinity
            let along = py * dy
            if dx != 0 {
                let a = -along / dx, b = (len2 - along) / dx
                blo = max(blo, min(a, b)); bhi = min(bhi, max(a, b))
            } else if along < 0 || along > len2 {
                bhi = -Float.infinity
            }
            let across = py * dx, w = r * len2.squareRoot()
            if dy != 0 {
                let a = (across - w) / dy, b = (across + w) / dy
                blo = max(blo, min(a, b)); bhi = min(bhi, max(a, b))
            } else if abs(across) > w {
                bhi = -Float.infinity
            }
            if blo <= bhi { lo = min(lo, blo); hi = max(hi, bhi) }
        }
        return (lo - 1, hi + 1)
    }

    /// The tile covering (tx, ty), if drawn.
    func existingTile(_ tx: Int, _ ty: Int) -> UnsafeMutablePointer<Float>? { tiles[_CoverageMask.key(tx, ty)] }
}

/// Lanes of `a` where `m` is set, of `b` elsewhere, as bitwise operations (the standard
/// library's `replacing(with:where:)` can compile to a branch per lane).
@inline(__always)
func _select<T: SIMD>(_ m: SIMDMask<SIMD4<Int32>>, _ a: T, _ b: T) -> T where T.Scalar: BitwiseCopyable {
    let bits = unsafeBitCast(m, to: SIMD4<Int32>.self)
    let x = unsafeBitCast(a, to: SIMD4<Int32>.self), y = unsafeBitCast(b, to: SIMD4<Int32>.self)
    return unsafeBitCast((x & bits) | (y & ~bits), to: T.self)
}

/// min(max(v, 0), 1) per lane, inlined (the generic `clamped` is a call per use).
@inline(__always)
func _clamp01(_ v: SIMD4<Float>) -> SIMD4<Float> {
    var r = v
    r.replace(with: 0, where: v .< 0)
    r.replace(with: 1, where: r .> 1)
    return r
}

/// Recycled mask tiles: strokes come and go many times a second, and fresh pages cost a fault
/// each. Keeps up to 1024 free tiles (32 MB).
///
/// Each tile records, per row, the columns that may hold ink (`widen` / `extent`, kept in 128
/// bytes after the two planes): a tile is cleaned by zeroing only those, and composited over only
/// those, so a stroke's cost follows its area, not the area of the tiles it touches.
final class _TilePool: @unchecked Sendable {
    static let shared = _TilePool()
    private let lock = NSLock()
    private var free: [UnsafeMutablePointer<Float>] = []
    private static let pixels = _CoverageMask.tileSize * _CoverageMask.tileSize
    /// Coverage and key planes plus 128 bytes of row extents (lo[64], hi[64] as bytes).
    private static let capacity = 2 * pixels + 32

    // The extents live in raw bytes after the planes (the allocation is bound to Float, so they
    // are read and written as raw memory, never through a typed UInt8 pointer).
    @inline(__always)
    private static func extents(_ t: UnsafeMutablePointer<Float>) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(t + 2 * pixels)
    }

    /// Columns lo ..< hi of tile row `row` may hold ink (lo >= hi: none).
    @inline(__always)
    static func extent(_ t: UnsafePointer<Float>, row: Int) -> (Int, Int) {
        let e = extents(UnsafeMutablePointer(mutating: t))
        return (Int(e.load(fromByteOffset: row, as: UInt8.self)), Int(e.load(fromByteOffset: 64 + row, as: UInt8.self)))
    }

    /// Marks columns lo ..< hi of tile row `row` as possibly inked.
    @inline(__always)
    static func widen(_ t: UnsafeMutablePointer<Float>, row: Int, _ lo: Int, _ hi: Int) {
        let e = extents(t)
        if lo < Int(e.load(fromByteOffset: row, as: UInt8.self)) { e.storeBytes(of: UInt8(lo), toByteOffset: row, as: UInt8.self) }
        if hi > Int(e.load(fromByteOffset: 64 + row, as: UInt8.self)) { e.storeBytes(of: UInt8(hi), toByteOffset: 64 + row, as: UInt8.self) }
    }

    private static func resetExtents(_ t: UnsafeMutablePointer<Float>) {
        let e = extents(t)
        for row in 0..<64 {
            e.storeBytes(of: 64, toByteOffset: row, as: UInt8.self)
            e.storeBytes(of: 0, toByteOffset: 64 + row, as: UInt8.self)
        }
    }

    /// A clean tile: zero coverage everywhere (keys are read only where coverage is > 0), no
    /// row inked.
    func take() -> UnsafeMutablePointer<Float> {
        lock.lock()
        let t = free.popLast()
        lock.unlock()
        if let t { return t }
        let tile = UnsafeMutablePointer<Float>.allocate(capacity: Self.capacity)
        tile.initialize(repeating: 0, count: 2 * Self.pixels)
        Self.resetExtents(tile)
        return tile
    }

    /// Takes tiles back, zeroing only the coverage of their inked rows.
    func give(_ tiles: [UnsafeMutablePointer<Float>]) {
        let s = _CoverageMask.tileSize
        var kept: [UnsafeMutablePointer<Float>] = []
        for t in tiles {
            for row in 0..<s {
                let (lo, hi) = Self.extent(t, row: row)
                if lo < hi { (t + row * s + lo).update(repeating: 0, count: hi - lo) }
            }
            Self.resetExtents(t)
            kept.append(t)
        }
        lock.lock()
        for t in kept {
            if free.count < 1024 { free.append(t) } else { t.deallocate() }
        }
        lock.unlock()
    }
}
