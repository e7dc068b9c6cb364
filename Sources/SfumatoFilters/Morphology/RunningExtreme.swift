import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

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

/// Running maximum or minimum of `length` consecutive elements: up to `directLength` directly
/// (one load and one extreme per element of the window), beyond by doubling: after step s each
/// element holds the extreme of 2^s neighbours, and a last step combines two overlapping spans,
/// O(log length) vector operations per element. Both work across whole rows (no serial scan),
/// so they vectorise across pixels in both directions.
enum _Running {
    /// out[i] = extreme of in[i ..< i + length] (elements `stride` apart), for i in 0..<count.
    /// `scratch` holds `count + length` elements. In and out may be the same row for `length` 1.
    static func bytes(
        _ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, count: Int, length: Int,
        pixelBytes: Int, scratch: UnsafeMutablePointer<UInt8>, _ e: _Extreme
    ) {
        // Work in bytes: an element is one pixel (`pixelBytes`) and the window moves a pixel at a time.
        let n = count * pixelBytes
        if length == 1 {
            if UnsafePointer(dst) != src { dst.update(from: src, count: n) }
            return
        }
        if length <= directLength {
            direct(length, { src + $0 * pixelBytes }, dst, n, e)
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
    static func combine(
        _ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>,
        _ n: Int, _ e: _Extreme
    ) {
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b), ro = UnsafeMutableRawPointer(out)
        if e == .max {
            while i + 16 <= n {
                ro.storeBytes(
                    of: _umax(
                        ra.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self),
                        rb.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)),
                    toByteOffset: i, as: SIMD16<UInt8>.self)
                i += 16
            }
        } else {
            while i + 16 <= n {
                ro.storeBytes(
                    of: _umin(
                        ra.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self),
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

    /// out[i] = extreme of rows[0][i], rows[1][i], ... (at least one row): 32 bytes at a time
    /// through every row, so the partial results stay in registers instead of making a round
    /// trip through memory per row, and each row's pointer is loaded once for two vectors.
    static func combineAll(
        _ rows: UnsafeBufferPointer<UnsafePointer<UInt8>>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int,
        _ e: _Extreme
    ) {
        #if arch(x86_64)
            if CPUFeatures.wideVectors, let base = rows.baseAddress {
                return _extremeRowsAVX512(UnsafeRawPointer(base), count: rows.count, max: e == .max, n: n, into: out)
            }
        #endif
        if e == .max { _combineAll(rows, out, n, e, _umax) } else { _combineAll(rows, out, n, e, _umin) }
    }

    /// `combineAll` with the row count a constant per case, so each case's inner loop unrolls
    /// and the row pointers stay in registers (a 5x5 grey closing, callgrind: about 40 -> 25
    /// instructions per 32 bytes).
    @inline(__always)
    private static func _combineAll(
        _ r: UnsafeBufferPointer<UnsafePointer<UInt8>>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int,
        _ e: _Extreme, _ pick: (SIMD16<UInt8>, SIMD16<UInt8>) -> SIMD16<UInt8>
    ) {
        switch r.count {
        case 2: _combineRows(r, 2, out, n, e, pick)
        case 3: _combineRows(r, 3, out, n, e, pick)
        case 4: _combineRows(r, 4, out, n, e, pick)
        case 5: _combineRows(r, 5, out, n, e, pick)
        case 6: _combineRows(r, 6, out, n, e, pick)
        case 7: _combineRows(r, 7, out, n, e, pick)
        case 8: _combineRows(r, 8, out, n, e, pick)
        case 9: _combineRows(r, 9, out, n, e, pick)
        default: _combineRows(r, r.count, out, n, e, pick)
        }
    }

    @inline(__always)
    private static func _combineRows(
        _ r: UnsafeBufferPointer<UnsafePointer<UInt8>>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>,
        _ n: Int, _ e: _Extreme, _ pick: (SIMD16<UInt8>, SIMD16<UInt8>) -> SIMD16<UInt8>
    ) {
        let o = UnsafeMutableRawPointer(out)
        var i = 0
        while i + 32 <= n {
            var a = UnsafeRawPointer(r[0]).loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            var b = UnsafeRawPointer(r[0]).loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self)
            var k = 1
            while k < count {
                let p = UnsafeRawPointer(r[k])
                a = pick(a, p.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
                b = pick(b, p.loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self))
                k += 1
            }
            o.storeBytes(of: a, toByteOffset: i, as: SIMD16<UInt8>.self)
            o.storeBytes(of: b, toByteOffset: i + 16, as: SIMD16<UInt8>.self)
            i += 32
        }
        while i < n {
            var v = r[0][i]
            for k in 1..<count { v = e.pick(v, r[k][i]) }
            out[i] = v
            i += 1
        }
    }

    /// Windows up to this long are taken directly (one load and one max per element of the
    /// window, in one pass) rather than by doubling (a pass through memory per doubling).
    static let directLength = 16

    /// out[i] = extreme of rows y ... y + length - 1 of a window, for the `n` bytes of each row,
    /// directly: `row(k)` gives row k of the window.
    static func direct(
        _ length: Int, _ row: (Int) -> UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ n: Int,
        _ e: _Extreme
    ) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: length) { rows in
            for k in 0..<length { rows[k] = row(k) }
            combineAll(UnsafeBufferPointer(rows), out, n, e)
        }
    }

    /// Two consecutive windows of `rows.count - 1` rows at once: out0 = extreme of rows
    /// 0 ..< count - 1, out1 = extreme of rows 1 ..< count. The rows they share are combined once,
    /// so two output rows of a 5-row window cost 6 loads and 5 extremes instead of 10 and 8.
    static func combinePair(
        _ rows: UnsafeBufferPointer<UnsafePointer<UInt8>>, _ out0: UnsafeMutablePointer<UInt8>,
        _ out1: UnsafeMutablePointer<UInt8>, _ n: Int, _ e: _Extreme
    ) {
        #if arch(x86_64)
            if CPUFeatures.wideVectors, rows.count >= 3, let base = rows.baseAddress {
                return _extremePairAVX512(UnsafeRawPointer(base), count: rows.count, max: e == .max, n: n, into: out0, out1)
            }
        #endif
        if e == .max { _combinePair(rows, out0, out1, n, e, _umax) } else { _combinePair(rows, out0, out1, n, e, _umin) }
    }

    @inline(__always)
    private static func _combinePair(
        _ r: UnsafeBufferPointer<UnsafePointer<UInt8>>, _ out0: UnsafeMutablePointer<UInt8>,
        _ out1: UnsafeMutablePointer<UInt8>, _ n: Int, _ e: _Extreme,
        _ pick: (SIMD16<UInt8>, SIMD16<UInt8>) -> SIMD16<UInt8>
    ) {
        switch r.count {
        case 4: _pairRows(r, 4, out0, out1, n, e, pick)
        case 6: _pairRows(r, 6, out0, out1, n, e, pick)
        case 8: _pairRows(r, 8, out0, out1, n, e, pick)
        case 10: _pairRows(r, 10, out0, out1, n, e, pick)
        default: _pairRows(r, r.count, out0, out1, n, e, pick)
        }
    }

    @inline(__always)
    private static func _pairRows(
        _ r: UnsafeBufferPointer<UnsafePointer<UInt8>>, _ count: Int, _ out0: UnsafeMutablePointer<UInt8>,
        _ out1: UnsafeMutablePointer<UInt8>, _ n: Int, _ e: _Extreme,
        _ pick: (SIMD16<UInt8>, SIMD16<UInt8>) -> SIMD16<UInt8>
    ) {
        let o0 = UnsafeMutableRawPointer(out0), o1 = UnsafeMutableRawPointer(out1)
        let first = UnsafeRawPointer(r[0]), last = UnsafeRawPointer(r[count - 1])
        var i = 0
        while i + 32 <= n {
            var a = UnsafeRawPointer(r[1]).loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            var b = UnsafeRawPointer(r[1]).loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self)
            var k = 2
            while k < count - 1 {
                let p = UnsafeRawPointer(r[k])
                a = pick(a, p.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
                b = pick(b, p.loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self))
                k += 1
            }
            o0.storeBytes(of: pick(a, first.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)), toByteOffset: i, as: SIMD16<UInt8>.self)
            o0.storeBytes(of: pick(b, first.loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self)), toByteOffset: i + 16, as: SIMD16<UInt8>.self)
            o1.storeBytes(of: pick(a, last.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)), toByteOffset: i, as: SIMD16<UInt8>.self)
            o1.storeBytes(of: pick(b, last.loadUnaligned(fromByteOffset: i + 16, as: SIMD16<UInt8>.self)), toByteOffset: i + 16, as: SIMD16<UInt8>.self)
            i += 32
        }
        while i < n {
            var v = r[1][i]
            for k in 2..<(count - 1) { v = e.pick(v, r[k][i]) }
            out0[i] = e.pick(v, r[0][i])
            out1[i] = e.pick(v, r[count - 1][i])
            i += 1
        }
    }

    /// Float version: out[i] = extreme of in[i ..< i + length] (pixels).
    static func floats(
        _ src: UnsafePointer<SIMD4<Float>>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, count: Int,
        length: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>, _ e: _Extreme
    ) {
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
