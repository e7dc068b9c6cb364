import Foundation

/// The paper every pencil stroke lands on: a height field of its tooth, generated and seeded,
/// tileable (256 document pixels a side) and fixed in document space, so every stroke, in Shade or
/// Sketch and at any preview scale, meets the same fibres and overlapping passes build tone where
/// the tooth stands up, as graphite does.
///
/// The field is four octaves of smooth value noise whose cells are (but for the finest) half again
/// as wide as tall (the paper's fibres run along x), its values then spread evenly over 0...1 (rank by rank) so that a
/// pencil reaching depth `k` into the tooth touches a fraction `k` of the paper.
public final class PaperTooth: @unchecked Sendable {  // immutable after init
    /// Side of the repeating tile, in document pixels.
    public static let size = 256
    /// The one sheet every stroke shares (seed 1).
    public static let shared = PaperTooth(seed: 1)

    /// The heights, row by row (allocated once, never written after init).
    let tile: UnsafeMutablePointer<Float>
    /// A periodic 1-D profile across a stroke: the streaks a pencil's worn lead leaves along it.
    let streaks: UnsafeMutablePointer<Float>

    public init(seed: UInt64) {
        let n = PaperTooth.size
        // SplitMix64's output stage: a generator with weaker mixing (xorshift) drew visible
        // diagonal ridges into the finest octave, whose lattice is the pixel grid.
        var s = seed
        func next() -> Float {
            s &+= 0x9E37_79B9_7F4A_7C15
            var z = s
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Float(z >> 40) / Float(1 << 24)
        }
        var values = [Float](repeating: 0, count: n * n)
        // (lattice columns, lattice rows, weight) over the tile: cells half again as wide as tall (the
        // fibres), 8 x 5.3 pixels down to 1 x 1; the 2- and 4-pixel octaves carry most of the tooth.
        for (gx, gy, weight) in [(32, 48, Float(0.1)), (64, 96, 0.35), (128, 192, 0.4), (256, 256, 0.15)] {
            let lattice = (0..<(gx * gy)).map { _ in next() }
            for y in 0..<n {
                let fy = Float(y * gy) / Float(n)
                let y0 = Int(fy), ty = fy - Float(y0)
                let sy = ty * ty * (3 - 2 * ty)
                for x in 0..<n {
                    let fx = Float(x * gx) / Float(n)
                    let x0 = Int(fx), tx = fx - Float(x0)
                    let sx = tx * tx * (3 - 2 * tx)
                    func at(_ i: Int, _ j: Int) -> Float { lattice[(j % gy) * gx + (i % gx)] }
                    let top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * sx
                    let bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * sx
                    values[y * n + x] += weight * (top + (bottom - top) * sy)
                }
            }
        }
        // Rank by rank onto 0...1: the fraction of paper above level v is 1 - v.
        let order = values.indices.sorted { values[$0] < values[$1] }
        var even = [Float](repeating: 0, count: n * n)
        for (rank, i) in order.enumerated() { even[i] = (Float(rank) + 0.5) / Float(n * n) }
        tile = .allocate(capacity: n * n)
        tile.initialize(from: even, count: n * n)
        streaks = .allocate(capacity: n)
        for i in 0..<n { streaks[i] = next() }
    }

    deinit {
        tile.deallocate()
        streaks.deallocate()
    }

    /// The tooth's height at document pixel (x, y), 0...1.
    @inline(__always)
    public func height(x: Int, y: Int) -> Float {
        // The tile is 256 a side: masking wraps negative coordinates too (two's complement).
        tile[(y & 255) << 8 | (x & 255)]
    }

    /// The streak profile at `q` document pixels across a stroke (smooth, period 256 cells of 2 px).
    @inline(__always)
    public func streak(_ q: Float) -> Float {
        _PaperSampler(paper: self, scale: 1).streak(SIMD4(repeating: q))[0]
    }
}

/// The paper as a piece of a stroke reads it, four layer columns at a time: the tooth under layer
/// pixels (at `scale` layer pixels per document pixel) and the streak profile across the stroke.
/// The scalar tail of a row reads it through the same code, so a result never depends on where a
/// run of four starts.
struct _PaperSampler {
    let tile: UnsafePointer<Float>
    let streaks: UnsafePointer<Float>
    /// Document pixels per layer pixel.
    let toDocument: Float

    init(paper: PaperTooth, scale: Double) {
        tile = UnsafePointer(paper.tile)
        streaks = UnsafePointer(paper.streaks)
        toDocument = Float(1 / scale)
    }

    /// The document row under layer row `y` (layer pixels are never negative: strokes are clipped).
    @inline(__always)
    func documentRow(_ y: Int) -> Int { Int(Float(y) * toDocument) }

    /// Tooth heights under layer columns x...x+3 on document row `row` (lane by lane: four scalar
    /// conversions and loads cost less than the generic SIMD rounding).
    @inline(__always)
    func heights(x: Int, row: Int) -> SIMD4<Float> {
        let line = tile + ((row & 255) << 8)
        let f = Float(x) * toDocument, step = toDocument
        return SIMD4(
            line[Int(f) & 255], line[Int(f + step) & 255], line[Int(f + 2 * step) & 255], line[Int(f + 3 * step) & 255])
    }

    /// The streak profile at `q` layer pixels across a stroke: smooth steps between values 2
    /// document pixels apart, repeating every 512.
    @inline(__always)
    func streak(_ q: SIMD4<Float>) -> SIMD4<Float> {
        // Shifted by whole periods to be positive, so truncation is the floor.
        let f = q * (0.5 * toDocument) + 65_536
        var lo = SIMD4<Float>(), hi = SIMD4<Float>(), t = SIMD4<Float>()
        for l in 0..<4 {
            let cell = Int(f[l])
            t[l] = f[l] - Float(cell)
            lo[l] = streaks[cell & 255]
            hi[l] = streaks[(cell + 1) & 255]
        }
        return lo + (hi - lo) * (t * t * (3 - 2 * t))
    }
}
