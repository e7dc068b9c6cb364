import SfumatoCore

/// Rectangular maximum or minimum (area max / area min): separable, each direction a window of
/// up to 16 taken directly (a load and a max per tap, two output rows sharing their rows in the
/// vertical pass) and a longer one as a running extreme by doubling (O(log length) per pixel).
/// Reads its input over the window; compose with `clampedToExtent()` for clamped edges.
struct _RectangleKernel: NeighborhoodKernel {
    let width: Int
    let height: Int
    let extreme: _Extreme

    /// Sides within the filters' declared range (the Swift API passes any whole number).
    init(width: Int, height: Int, extreme: _Extreme) {
        func side(_ n: Int, _ spec: ParameterSpec) -> Int { Int(spec.clamped(Double(n))) }
        (self.width, self.height, self.extreme) = (side(width, _Rectangle.width), side(height, _Rectangle.height), extreme)
    }
    /// Offset of the window's first column and row from the output pixel (centred: -(size/2)).
    var left: Int { -(width / 2) }
    var top: Int { -(height / 2) }

    var name: String { extreme == .max ? "area max \(width)x\(height)" : "area min \(width)x\(height)" }
    var detail: String {
        let how = max(width, height) <= _Running.directLength ? "direct windows" : "running extremes by doubling beyond \(_Running.directLength)"
        return "separable \(extreme == .max ? "max" : "min"), \(how)"
    }
    var supportsBytes: Bool { true }
    var picksInputValues: Bool { true }
    var supportsGray: Bool { true }
    var deviceKernel: DeviceKernel? { .rectangle(width: width, height: height, maximum: extreme == .max) }

    func outputExtent(forInput e: Rect) -> Rect {
        e.isInfinite ? e : Rect(x: e.x - (width - 1 + left), y: e.y - (height - 1 + top), width: e.width + width - 1, height: e.height + height - 1)
    }

    func regionOfInterest(for o: Rect) -> Rect {
        Rect(x: o.x + left, y: o.y + top, width: o.width + width - 1, height: o.height + height - 1)
    }

    func apply(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        let out = output.rect
        let rows = input.rect.height
        // Horizontal pass into a byte tile covering the ROI's rows and the output's columns.
        let mid = scratch.byteTile(Rect(x: out.x, y: input.rect.y, width: out.width, height: rows), channels: input.channels)
        let tmp = scratch.buffer(of: UInt8.self, count: input.channels * (input.rect.width + width) + 64)
        for y in input.rect.y..<input.rect.maxY {
            _Running.bytes(
                input.pointer(x: out.x + left, y: y), mid.row(y), count: out.width, length: width, pixelBytes: input.channels,
                scratch: tmp, extreme)
        }
        // Vertical pass: whole rows are the vector lanes.
        try _verticalBytes(mid, output, top: top, height: height, extreme, scratch)
    }

    func apply(input: FloatTile, output: FloatTile, scratch: TileScratch) throws {
        let out = output.rect
        let mid = scratch.floatTile(Rect(x: out.x, y: input.rect.y, width: out.width, height: input.rect.height))
        let tmp = scratch.buffer(of: SIMD4<Float>.self, count: input.rect.width + width + 4)
        for y in input.rect.y..<input.rect.maxY {
            _Running.floats(input.pointer(x: out.x + left, y: y), mid.row(y), count: out.width, length: width, scratch: tmp, extreme)
        }
        for y in out.y..<out.maxY {
            let d = output.row(y)
            d.update(from: mid.row(y + top), count: out.width)
            for k in 1..<height {
                let s = mid.row(y + top + k)
                for x in 0..<out.width { d[x] = extreme.pick(d[x], s[x]) }
            }
        }
    }
}

/// out row y = extreme over rows y+top ..< y+top+height of `mid`: directly up to
/// `_Running.directLength` rows (two output rows at a time), by doubling over rows beyond.
func _verticalBytes(_ mid: ByteTile, _ output: ByteTile, top: Int, height: Int, _ e: _Extreme, _ scratch: TileScratch) throws {
    let out = output.rect
    let n = out.width * output.channels
    if height == 1 {
        for y in out.y..<out.maxY { output.row(y).update(from: mid.row(y + top), count: n) }
        return
    }
    if height <= _Running.directLength {
        // Output rows two at a time (they share all but one of their rows), the last one alone.
        var y = out.y
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: height + 1) { rows in
            while y + 2 <= out.maxY {
                for k in 0...height { rows[k] = UnsafePointer(mid.row(y + top + k)) }
                _Running.combinePair(UnsafeBufferPointer(rows), output.row(y), output.row(y + 1), n, e)
                y += 2
            }
        }
        if y < out.maxY { _Running.direct(height, { UnsafePointer(mid.row(y + top + $0)) }, output.row(y), n, e) }
        return
    }
    // Levels of doubling: level s holds extremes of 2^s consecutive rows.
    let first = out.y + top, count = out.height + height - 1
    var level = scratch.byteTile(Rect(x: out.x, y: first, width: out.width, height: count), channels: output.channels)
    for y in first..<(first + count) { level.row(y).update(from: mid.row(y), count: n) }
    var span = 1
    while span * 2 <= height {
        let next = scratch.byteTile(level.rect, channels: output.channels)
        for y in first..<(first + count - span) {
            _Running.combine(level.row(y), level.row(y + span), next.row(y), n, e)
        }
        level = next
        span *= 2
    }
    let rest = height - span
    for y in out.y..<out.maxY {
        _Running.combine(level.row(y + top), level.row(y + top + rest), output.row(y), n, e)
    }
}
