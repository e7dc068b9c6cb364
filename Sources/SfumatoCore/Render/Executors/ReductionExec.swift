import Foundation

/// A reduction over an area of its input, computed once per render by the first tile that
/// needs it (the others wait for it), in strips from the top so a streamed source reads in order.
final class _ReductionExec: _Exec, @unchecked Sendable {
    let input: _Exec
    let reduction: any AreaReduction
    let area: Rect
    /// Rows per strip: a strip of the widest image stays a few megabytes.
    static let stripRows = 16
    private let result = _Locked<[SIMD4<Float>]?>(nil)

    init(_ input: _Exec, _ reduction: any AreaReduction, area: Rect, extent: Rect) {
        self.input = input
        self.reduction = reduction
        self.area = area
        super.init(extent: extent, natural: .float, children: [input])
    }

    override var explanation: String { "\(reduction.name) over \(area) (one pass, in strips)" }

    /// The first strip (what a tile of this pass asks its input for at once).
    var firstStrip: Rect { Rect(x: area.x, y: area.y, width: area.width, height: min(Self.stripRows, area.height)) }

    private func computed(_ w: _Worker) throws -> [SIMD4<Float>] {
        try result.withLock { cached in
            if let c = cached { return c }
            if input.natural == .byte && input.opaqueWithin && input.extent.contains(area),
                let fromCounts = reduction.stateFromLevelCounts
            {
                let out = reduction.finish(try countedState(fromCounts, w), pixels: area.area)
                cached = out
                return out
            }
            var state = reduction.initialState()
            var y = area.y
            while y < area.maxY {
                let strip = Rect(x: area.x, y: y, width: area.width, height: min(Self.stripRows, area.maxY - y))
                let b = try input.produce(strip, .float, w)
                let t = b.floatTile
                for row in strip.y..<strip.maxY { reduction.accumulate(t.pointer(x: strip.x, y: row), count: strip.width, into: &state) }
                y = strip.maxY
            }
            let out = reduction.finish(state, pixels: area.area)
            cached = out
            return out
        }
    }

    /// An opaque 8-bit area: count each channel's levels in byte strips, and let the reduction
    /// work from the counts. The levels' working values come from the same conversion float
    /// tiles use, so both routes see the same numbers.
    private func countedState(_ fromCounts: LevelCountState, _ w: _Worker) throws -> [Double] {
        let ramp = w.buffer(.byte, Rect(x: 0, y: 0, width: 256, height: 1))
        let bytes = ramp.byteTile.row(0)
        for v in 0..<256 { for c in 0..<4 { bytes[4 * v + c] = c == 3 ? 255 : UInt8(v) } }
        let converted = _convert(ramp, to: .float, w).floatTile.row(0)
        // A grey ramp, opaque: the colour channels convert alike, and alpha 255 is 1.
        let values = (0..<256).map { converted[$0].x }
        var counts = [Int](repeating: 0, count: 4 * 256)
        var strip = [UInt32](repeating: 0, count: 4 * 256)
        var y = area.y
        while y < area.maxY {
            let rect = Rect(x: area.x, y: y, width: area.width, height: min(Self.stripRows, area.maxY - y))
            let tile = try input.produce(rect, .byte, w).byteTile
            strip.withUnsafeMutableBufferPointer { n in
                n.update(repeating: 0)
                for row in rect.y..<rect.maxY {
                    let p = tile.pointer(x: rect.x, y: row)
                    for i in 0..<rect.width {
                        let q = p + 4 * i
                        n[4 * Int(q[0])] &+= 1
                        n[4 * Int(q[1]) + 1] &+= 1
                        n[4 * Int(q[2]) + 2] &+= 1
                        n[4 * Int(q[3]) + 3] &+= 1
                    }
                }
            }
            for i in 0..<(4 * 256) { counts[i] += Int(strip[i]) }
            y = rect.maxY
        }
        return counts.withUnsafeBufferPointer { c in
            values.withUnsafeBufferPointer { v in fromCounts(c.baseAddress!, v.baseAddress!) }
        }
    }

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        let values = try computed(w)
        let out = w.buffer(.float, rect)
        out.zero()
        let inside = rect.intersection(extent)
        if !inside.isEmpty {
            let p = out.floatTile.pointer(x: inside.x, y: inside.y)
            for x in inside.x..<inside.maxX { p[x - inside.x] = values[x - extent.x] }
        }
        return _convert(out, to: kind, w)
    }
}
