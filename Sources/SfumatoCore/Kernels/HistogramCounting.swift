import Foundation

/// Adds a tile's unpremultiplied values to a histogram.
func _countHistogram(_ b: _PixelBuffer, into h: inout Histogram) {
    let bins = h.bins
    let r = b.rect
    h.pixelCount += r.area
    if b.kind == .gray {
        _countGrayHistogram(b.byteTile, r, into: &h)
        return
    }
    if b.kind == .byte && bins == 256 {
        _countByteHistogram(b.byteTile, r, into: &h)
        return
    }
    var c0 = [Int](repeating: 0, count: bins), c1 = c0, c2 = c0, c3 = c0
    if b.kind == .byte {
        let t = b.byteTile
        for y in r.y..<r.maxY {
            let p = t.row(y)
            for x in 0..<r.width {
                let q = p + 4 * x
                let a = Int(q[3])
                func bin(_ v: UInt8) -> Int {
                    var u = Int(v)
                    if a != 255 && a > 0 { u = Int(_unpremultiplied(UInt32(u), UInt32(a))) } else if a == 0 { u = 0 }
                    return bins == 256 ? u : min(bins - 1, u * bins / 255)
                }
                c0[bin(q[0])] += 1
                c1[bin(q[1])] += 1
                c2[bin(q[2])] += 1
                c3[bins == 256 ? a : min(bins - 1, a * bins / 255)] += 1
            }
        }
    } else {
        let t = b.floatTile
        let fb = Float(bins)
        for y in r.y..<r.maxY {
            let p = t.row(y)
            for x in 0..<r.width {
                var v = p[x]
                let a = v.w
                if a > 0 && a != 1 { v = v / a; v.w = a } else if !(a > 0) { v = .zero }
                let s = (v * fb).bounded(0, fb - 1)
                c0[Int(s.x)] += 1
                c1[Int(s.y)] += 1
                c2[Int(s.z)] += 1
                c3[Int(s.w)] += 1
            }
        }
    }
    for i in 0..<bins {
        h.counts[0][i] += c0[i]
        h.counts[1][i] += c1[i]
        h.counts[2][i] += c2[i]
        h.counts[3][i] += c3[i]
    }
}

/// 256 bins of 8-bit values: opaque pixels four at a time into four sets of counts (consecutive
/// pixels of a smooth photo hit the same bins, and one set would make each increment wait for
/// the last), on raw pointers; pixels with transparency unpremultiplied one by one.
func _countByteHistogram(_ t: ByteTile, _ r: Rect, into h: inout Histogram) {
    let sets = 4
    let counts = UnsafeMutablePointer<UInt32>.allocate(capacity: sets * 4 * 256)
    defer { counts.deallocate() }
    counts.initialize(repeating: 0, count: sets * 4 * 256)
    let c1 = counts + 1024, c2 = counts + 2048, c3 = counts + 3072
    var opaque = 0
    for y in r.y..<r.maxY {
        let p = UnsafeRawPointer(t.row(y))
        var x = 0
        while x + 4 <= r.width {
            let q = p.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt32>.self)
            if q.x & q.y & q.z & q.w < 0xFF00_0000 { break }
            // Wrapping adds: no overflow check and branch per count (a tile's counts stay far
            // below 2^32): 91.5 -> 67.0 M instructions for a 1920x1280 equalization.
            @inline(__always) func count(_ set: UnsafeMutablePointer<UInt32>, _ u: UInt32) {
                set[Int(u & 0xFF)] &+= 1
                set[256 + Int((u >> 8) & 0xFF)] &+= 1
                set[512 + Int((u >> 16) & 0xFF)] &+= 1
            }
            count(counts, q.x); count(c1, q.y); count(c2, q.z); count(c3, q.w)
            x += 4
        }
        opaque += x
        // The rest of the row (up to three pixels, or from the first quad with transparency).
        while x < r.width {
            let q = p + 4 * x
            let a = Int(q.load(fromByteOffset: 3, as: UInt8.self))
            for c in 0..<3 {
                var u = Int(q.load(fromByteOffset: c, as: UInt8.self))
                if a == 0 { u = 0 } else if a != 255 { u = Int(_unpremultiplied(UInt32(u), UInt32(a))) }
                counts[256 * c + u] += 1
            }
            counts[768 + a] += 1
            x += 1
        }
    }
    counts[768 + 255] += UInt32(opaque)
    for c in 0..<4 {
        for i in 0..<256 {
            h.counts[c][i] += Int(counts[256 * c + i]) + Int(c1[256 * c + i]) + Int(c2[256 * c + i]) + Int(c3[256 * c + i])
        }
    }
}

/// Counts a grey tile (opaque; R = G = B = the level): one count a pixel, four sets of counts so
/// that runs of one level do not wait on their own increments, then shared by R, G and B.
func _countGrayHistogram(_ t: ByteTile, _ r: Rect, into h: inout Histogram) {
    // Eight counters a level, for eight neighbouring pixels: runs of one level (common in
    // photos) then add to different counters instead of each waiting on the last. Pixels are
    // read eight at a time.
    let counts = UnsafeMutablePointer<UInt32>.allocate(capacity: 8 * 256)
    defer { counts.deallocate() }
    counts.initialize(repeating: 0, count: 8 * 256)
    for y in r.y..<r.maxY {
        let p = t.row(y)
        var x = 0
        while x + 8 <= r.width {
            let v = UnsafeRawPointer(p + x).loadUnaligned(as: UInt64.self)
            counts[Int(v & 0xFF)] &+= 1
            counts[256 + Int((v >> 8) & 0xFF)] &+= 1
            counts[512 + Int((v >> 16) & 0xFF)] &+= 1
            counts[768 + Int((v >> 24) & 0xFF)] &+= 1
            counts[1024 + Int((v >> 32) & 0xFF)] &+= 1
            counts[1280 + Int((v >> 40) & 0xFF)] &+= 1
            counts[1536 + Int((v >> 48) & 0xFF)] &+= 1
            counts[1792 + Int(v >> 56)] &+= 1
            x += 8
        }
        while x < r.width { counts[Int(p[x])] &+= 1; x += 1 }
    }
    let bins = h.bins
    for v in 0..<256 {
        let n = (0..<8).reduce(0) { $0 + Int(counts[256 * $1 + v]) }
        let bin = bins == 256 ? v : min(bins - 1, v * bins / 255)
        for c in 0..<3 { h.counts[c][bin] += n }
    }
    h.counts[3][bins - 1] += r.area  // alpha 1: the last bin
}
