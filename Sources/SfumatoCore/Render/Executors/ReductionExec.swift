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
