import Foundation
import SfumatoCore

/// One stroke's coverage, kept sparse in 64x64 tiles: each pixel holds the premultiplied colour
/// of the piece that covers it most (max, not sum, so overlapping pieces of one stroke never
/// darken into beads). Composited onto a layer once, when the stroke ends.
final class _CoverageMask {
    static let tileSize = 64
    private(set) var tiles: [Int: UnsafeMutablePointer<SIMD4<Float>>] = [:]
    /// Bounds of everything drawn, in layer pixels.
    private(set) var bounds = Rect.zero
    let grain: PencilGrain
    /// Layer pixels per document pixel (the grain stays fixed in document space).
    let scale: Double

    init(scale: Double, grain: PencilGrain = .shared) {
        self.scale = scale
        self.grain = grain
    }

    deinit { clear() }

    func clear() {
        _TilePool.shared.give(Array(tiles.values))
        tiles.removeAll(keepingCapacity: true)
        bounds = .zero
    }

    @inline(__always) static func key(_ tx: Int, _ ty: Int) -> Int { (ty &<< 24) ^ (tx & 0xFF_FFFF) }

    private func tile(_ tx: Int, _ ty: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        let k = _CoverageMask.key(tx, ty)
        if let t = tiles[k] { return t }
        let t = _TilePool.shared.take()
        tiles[k] = t
        return t
    }

    /// The mask's value at a layer pixel (premultiplied RGBA).
    func value(x: Int, y: Int) -> SIMD4<Float> {
        let s = _CoverageMask.tileSize
        let tx = x >= 0 ? x / s : (x - s + 1) / s, ty = y >= 0 ? y / s : (y - s + 1) / s
        guard let t = tiles[_CoverageMask.key(tx, ty)] else { return .zero }
        return t[(y - ty * s) * s + (x - tx * s)]
    }

    /// Draws a piece with analytic anti-aliasing (coverage = clamp(r - d + 0.5), d the distance
    /// to the piece's axis, r its radius there), keeping the stronger value per pixel. Returns the
    /// pixels touched, clipped to `clip`.
    @discardableResult
    func draw(_ p: _Piece, clip: Rect) -> Rect {
        let bb = p.bounds
        let area = Rect(x: bb.x0, y: bb.y0, width: bb.x1 - bb.x0, height: bb.y1 - bb.y0).intersection(clip)
        if area.isEmpty { return .zero }
        let s = _CoverageMask.tileSize
        let dx = p.bx - p.ax, dy = p.by - p.ay
        let len2 = dx * dx + dy * dy
        let inv = len2 > 1e-12 ? 1 / len2 : 0
        let dr = p.br - p.ar, dopacity = p.ob - p.oa
        let dc = p.cb - p.ca
        // The most this piece can give a pixel: pixels already holding that much are skipped
        // (inside a wide opaque stroke most of a piece's box is), which changes nothing because
        // a tie never replaces the value already there.
        let ceiling = max(p.oa, p.ob)
        var ty = area.y >= 0 ? area.y / s : (area.y - s + 1) / s
        while ty * s < area.maxY {
            var tx = area.x >= 0 ? area.x / s : (area.x - s + 1) / s
            while tx * s < area.maxX {
                let cell = Rect(x: tx * s, y: ty * s, width: s, height: s).intersection(area)
                let t = tile(tx, ty)
                for y in cell.y..<cell.maxY {
                    let py = Float(y) + 0.5 - p.ay
                    let row = t + (y - ty * s) * s - tx * s
                    for x in cell.x..<cell.maxX {
                        if row[x].w >= ceiling { continue }
                        let px = Float(x) + 0.5 - p.ax
                        let u = min(max((px * dx + py * dy) * inv, 0), 1)
                        let ex = px - u * dx, ey = py - u * dy
                        let d = (ex * ex + ey * ey).squareRoot()
                        let r = p.ar + u * dr
                        var c: Float
                        if r >= 0.5 {
                            c = min(max(r - d + 0.5, 0), 1)
                        } else {
                            // Hairlines: coverage proportional to width, fading over a pixel.
                            c = 2 * r * min(max(1 - d, 0), 1)
                        }
                        if c <= 0 { continue }
                        c *= p.oa + u * dopacity
                        if p.textured {
                            c *= grain.value(x: Int((Double(x) / scale).rounded(.down)), y: Int((Double(y) / scale).rounded(.down)))
                        }
                        if c > row[x].w {
                            let col = p.ca + u * dc
                            row[x] = SIMD4(col.x * c, col.y * c, col.z * c, c)
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

    /// The tile covering (tx, ty), if drawn.
    func existingTile(_ tx: Int, _ ty: Int) -> UnsafeMutablePointer<SIMD4<Float>>? { tiles[_CoverageMask.key(tx, ty)] }

    /// Tile coordinates of every drawn tile.
    var tileCoordinates: [(Int, Int)] { tiles.keys.map { (($0 << 40) >> 40, $0 >> 24) } }

    /// Keeps, per pixel, the stronger of this mask and `other` (into this one).
    func merge(_ other: _CoverageMask) {
        let s = _CoverageMask.tileSize
        for (k, o) in other.tiles {
            let ty = k >> 24, tx = (k << 40) >> 40
            let t = tile(tx, ty)
            for i in 0..<(s * s) where o[i].w > t[i].w { t[i] = o[i] }
        }
        bounds = bounds.union(other.bounds)
    }
}

/// Recycled mask tiles: strokes come and go many times a second, and fresh pages cost a fault
/// each. Keeps up to 1024 free tiles (64 MB).
final class _TilePool: @unchecked Sendable {
    static let shared = _TilePool()
    private let lock = NSLock()
    private var free: [UnsafeMutablePointer<SIMD4<Float>>] = []
    private let count = _CoverageMask.tileSize * _CoverageMask.tileSize

    /// A zeroed tile.
    func take() -> UnsafeMutablePointer<SIMD4<Float>> {
        lock.lock()
        let t = free.popLast()
        lock.unlock()
        let tile = t ?? .allocate(capacity: count)
        tile.initialize(repeating: .zero, count: count)
        return tile
    }

    func give(_ tiles: [UnsafeMutablePointer<SIMD4<Float>>]) {
        lock.lock()
        for t in tiles {
            if free.count < 1024 { free.append(t) } else { t.deallocate() }
        }
        lock.unlock()
    }
}
