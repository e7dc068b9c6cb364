import SfumatoCore

/// Whether a running window keeps the largest or the smallest value.
enum _Extreme: Sendable {
    case max, min

    @inline(__always) func pick(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
        self == .max ? _umax(a, b) : _umin(a, b)
    }

    @inline(__always) func pick(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        self == .max ? a.replacing(with: b, where: b .> a) : a.replacing(with: b, where: b .< a)
    }

    @inline(__always) func pick(_ a: UInt8, _ b: UInt8) -> UInt8 { self == .max ? Swift.max(a, b) : Swift.min(a, b) }
}

/// Running maximum or minimum of `length` consecutive elements, by doubling: after step s each
/// element holds the extreme of 2^s neighbours, and a last step combines two overlapping spans.
/// O(log length) vector operations per element, every one across whole rows (no serial scan),
/// so it vectorises across pixels in both directions.
enum _Running {
    /// out[i] = extreme of in[i ..< i + length] (elements `stride` apart), for i in 0..<count.
    /// `scratch` holds `count + length` elements. In and out may be the same row for `length` 1.
    static func bytes(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, count: Int, length: Int,
                      pixelBytes: Int, scratch: UnsafeMutablePointer<UInt8>, _ e: _Extreme) {
        // Work in bytes: an element is one pixel (4 bytes) and the window moves a pixel at a time.
        let n = count * pixelBytes
        if length == 1 {
            if UnsafePointer(dst) != src { dst.update(from: src, count: n) }
            return
        }
        let total = (count + length - 1) * pixelBytes
        // span 1: copy of the input.
        scratch.update(from: src, count: total)
        var span = 1
        while span * 2 <= length {
            // scratch[i] = e(scratch[i], scratch[i + span]) for the elements still needed.
            let shift = span * pixelBytes
            let valid = total - shift
            combine(scratch, scratch + shift, scratch, valid, e)
            span *= 2
        }
        // Window of `length`: two spans of `span` starting at i and i + length - span.
        let rest = (length - span) * pixelBytes
        combine(scratch, scratch + rest, dst, n, e)
    }

    @inline(__always)
    static func combine(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>,
                        _ n: Int, _ e: _Extreme) {
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b), ro = UnsafeMutableRawPointer(out)
        if e == .max {
            while i + 16 <= n {
                ro.storeBytes(of: _umax(ra.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self),
                                               rb.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)),
                              toByteOffset: i, as: SIMD16<UInt8>.self)
                i += 16
            }
        } else {
            while i + 16 <= n {
                ro.storeBytes(of: _umin(ra.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self),
                                               rb.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)),
                              toByteOffset: i, as: SIMD16<UInt8>.self)
                i += 16
            }
        }
        while i < n {
            out[i] = e.pick(a[i], b[i])
            i += 1
        }
    }

    /// out[i] = extreme of rows[0][i], rows[1][i], ... (at least one row): sixteen bytes at a
    /// time through every row, so the partial result stays in a register instead of making a
    /// round trip through memory per row.
    static func combineAll(_ rows: [UnsafePointer<UInt8>], _ out: UnsafeMutablePointer<UInt8>, _ n: Int, _ e: _Extreme) {
        rows.withUnsafeBufferPointer { r in
            let count = r.count
            var i = 0
            while i + 16 <= n {
                var v = UnsafeRawPointer(r[0]).loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                var k = 1
                if e == .max {
                    while k < count { v = _umax(v, UnsafeRawPointer(r[k]).loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)); k += 1 }
                } else {
                    while k < count { v = _umin(v, UnsafeRawPointer(r[k]).loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)); k += 1 }
                }
                UnsafeMutableRawPointer(out).storeBytes(of: v, toByteOffset: i, as: SIMD16<UInt8>.self)
                i += 16
            }
            while i < n {
                var v = r[0][i]
                for k in 1..<count { v = e.pick(v, r[k][i]) }
                out[i] = v
                i += 1
            }
        }
    }

    /// Float version: out[i] = extreme of in[i ..< i + length] (pixels).
    static func floats(_ src: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
                       length: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>, _ e: _Extreme) {
        if length == 1 {
            if UnsafePointer(dst) != src { dst.update(from: src, count: count) }
            return
        }
        let total = count + length - 1
        scratch.update(from: src, count: total)
        var span = 1
        while span * 2 <= length {
            for i in 0..<(total - span) { scratch[i] = e.pick(scratch[i], scratch[i + span]) }
            span *= 2
        }
        let rest = length - span
        for i in 0..<count { dst[i] = e.pick(scratch[i], scratch[i + rest]) }
    }
}
