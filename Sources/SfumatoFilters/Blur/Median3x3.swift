import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

// The 3x3 median from sorted columns: with each column of the window sorted into
// low <= middle <= high, the median of the nine values is
//     median3(max of the three lows, median3 of the three middles, min of the three highs)
// (the classic sorted-columns identity; the median test checks it against sorting). A column is sorted once and serves the
// three windows that contain it, so a pixel costs 18 min/max operations instead of the 38 of
// the 19-exchange network.

extension _MedianKernel {
    /// 3x3 medians of 8-bit tiles, 16 bytes (4 pixels) per step.
    func median3x3(input: ByteTile, output: ByteTile, scratch: TileScratch) {
        let out = output.rect
        let w = out.width
        #if arch(x86_64)
            if CPUFeatures.wideVectors {
                let sorted = UnsafeMutableRawPointer(scratch.buffer(of: UInt8.self, count: 3 * (4 * w + 136)))
                for y in out.y..<out.maxY {
                    _median3x3RowAVX512(
                        above: input.pointer(x: out.x - 1, y: y - 1), row: input.pointer(x: out.x - 1, y: y),
                        below: input.pointer(x: out.x - 1, y: y + 1), pixels: w, sorted: sorted, into: output.row(y))
                }
                return
            }
        #endif
        let columns = w + 2  // input pixels out.x - 1 ... out.maxX
        let stride = (4 * columns + 15) & ~15
        let sorted = scratch.buffer(of: UInt8.self, count: 3 * stride + 16)
        let low = UnsafeMutableRawPointer(sorted), middle = low + stride, high = middle + stride
        for y in out.y..<out.maxY {
            let a = UnsafeRawPointer(input.pointer(x: out.x - 1, y: y - 1))
            let b = UnsafeRawPointer(input.pointer(x: out.x - 1, y: y))
            let c = UnsafeRawPointer(input.pointer(x: out.x - 1, y: y + 1))
            // Sort the three rows column by column.
            var i = 0
            while i + 16 <= 4 * columns {
                _sortColumn(
                    a.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self),
                    b.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self),
                    c.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self), low + i, middle + i, high + i)
                i += 16
            }
            while i < 4 * columns {
                _sortColumn(
                    _widen(a.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self)),
                    _widen(b.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self)),
                    _widen(c.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self)), low + i, middle + i, high + i,
                    bytes: 4)
                i += 4
            }
            // Combine three neighbouring columns per output pixel.
            let d = UnsafeMutableRawPointer(output.row(y))
            var x = 0
            while x + 4 <= w {
                d.storeBytes(of: _combine(low, middle, high, 4 * x), toByteOffset: 4 * x, as: SIMD16<UInt8>.self)
                x += 4
            }
            while x < w {
                let m = _combine(low, middle, high, 4 * x)
                d.storeBytes(of: SIMD4(m[0], m[1], m[2], m[3]), toByteOffset: 4 * x, as: SIMD4<UInt8>.self)
                x += 1
            }
        }
    }
}

/// Sorts three values lane by lane and stores them (16 bytes, or the first `bytes`).
@inline(__always)
private func _sortColumn(
    _ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>, _ c: SIMD16<UInt8>,
    _ low: UnsafeMutableRawPointer, _ middle: UnsafeMutableRawPointer,
    _ high: UnsafeMutableRawPointer, bytes: Int = 16
) {
    let ab = _umin(a, b), AB = _umax(a, b)
    let lo = _umin(ab, c), t = _umax(ab, c)
    let mid = _umin(t, AB), hi = _umax(t, AB)
    if bytes == 16 {
        low.storeBytes(of: lo, as: SIMD16<UInt8>.self)
        middle.storeBytes(of: mid, as: SIMD16<UInt8>.self)
        high.storeBytes(of: hi, as: SIMD16<UInt8>.self)
    } else {
        low.storeBytes(of: SIMD4(lo[0], lo[1], lo[2], lo[3]), as: SIMD4<UInt8>.self)
        middle.storeBytes(of: SIMD4(mid[0], mid[1], mid[2], mid[3]), as: SIMD4<UInt8>.self)
        high.storeBytes(of: SIMD4(hi[0], hi[1], hi[2], hi[3]), as: SIMD4<UInt8>.self)
    }
}

/// The medians of the windows whose left columns start at byte `i` of the sorted rows
/// (lanes past a row's end hold leftovers and are not stored whole).
@inline(__always)
private func _combine(
    _ low: UnsafeMutableRawPointer, _ middle: UnsafeMutableRawPointer,
    _ high: UnsafeMutableRawPointer, _ i: Int
) -> SIMD16<UInt8> {
    let l = UnsafeRawPointer(low), m = UnsafeRawPointer(middle), h = UnsafeRawPointer(high)
    let l0 = l.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
    let l1 = l.loadUnaligned(fromByteOffset: i + 4, as: SIMD16<UInt8>.self)
    let l2 = l.loadUnaligned(fromByteOffset: i + 8, as: SIMD16<UInt8>.self)
    let m0 = m.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
    let m1 = m.loadUnaligned(fromByteOffset: i + 4, as: SIMD16<UInt8>.self)
    let m2 = m.loadUnaligned(fromByteOffset: i + 8, as: SIMD16<UInt8>.self)
    let h0 = h.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
    let h1 = h.loadUnaligned(fromByteOffset: i + 4, as: SIMD16<UInt8>.self)
    let h2 = h.loadUnaligned(fromByteOffset: i + 8, as: SIMD16<UInt8>.self)
    let maxLow = _umax(_umax(l0, l1), l2)
    let minHigh = _umin(_umin(h0, h1), h2)
    let midMiddle = _umax(_umin(m0, m1), _umin(_umax(m0, m1), m2))
    return _umax(_umin(maxLow, midMiddle), _umin(_umax(maxLow, midMiddle), minHigh))
}
