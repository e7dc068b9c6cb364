import Foundation

/// A blend kernel's 8-bit route (``OpaqueByteBlend``): opaque pairs through vector code or the
/// table of the float kernel's results, other pixels through the float kernel one by one.
final class _ByteBlender: @unchecked Sendable {
    let kernel: any BlendKernel
    let form: OpaqueByteBlend
    private let table: _BlendTable

    init(_ kernel: any BlendKernel, _ form: OpaqueByteBlend) {
        self.kernel = kernel
        self.form = form
        table = _BlendTables.shared.table(for: kernel)
    }

    /// Blends `count` premultiplied RGBA8 pixels (`output` may alias either input): opaque pairs
    /// four at a time through the vector code or the table, up to four pixels after each stop
    /// one by one (through the float kernel where either is not opaque).
    func blend(_ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ count: Int) {
        var i = 0
        while i < count {
            i += (form.rows ?? table.blend)(f + 4 * i, b + 4 * i, out + 4 * i, count - i)
            for _ in 0..<min(4, count - i) {
                if f[4 * i + 3] == 255 && b[4 * i + 3] == 255 {
                    table.blendOne(f + 4 * i, b + 4 * i, out + 4 * i)
                } else {
                    blendInFloat(f + 4 * i, b + 4 * i, out + 4 * i)
                }
                i += 1
            }
        }
    }

    /// One pixel as a float tile computes it.
    private func blendInFloat(_ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>) {
        var fv = SIMD4<Float>.zero, bv = SIMD4<Float>.zero, ov = SIMD4<Float>.zero
        _Convert.bytesToFloats(f, 1, &fv)
        _Convert.bytesToFloats(b, 1, &bv)
        kernel.apply(foreground: &fv, background: &bv, output: &ov, count: 1)
        _Convert.floatsToBytes(&ov, 1, out)
    }
}

/// A per-channel blend kernel's results for two opaque pixels: one table of 65,536 bytes a colour
/// channel, `[256 * backdrop + source]` (channels whose tables are equal share one).
final class _BlendTable: @unchecked Sendable {
    private let memory: UnsafeMutablePointer<UInt8>
    let red: UnsafePointer<UInt8>, green: UnsafePointer<UInt8>, blue: UnsafePointer<UInt8>

    init(_ kernel: any BlendKernel) {
        let n = 65536
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * n)
        self.memory = memory
        var f = [SIMD4<Float>](repeating: .zero, count: n), b = f, o = f
        var levels = [UInt8](repeating: 255, count: 4 * n)
        // The float tiles' own conversion of every pair: source levels along, backdrop levels down.
        for k in 0..<n { for c in 0..<3 { levels[4 * k + c] = UInt8(k & 255) } }
        levels.withUnsafeBufferPointer { _Convert.bytesToFloats($0.baseAddress!, n, &f) }
        for k in 0..<n { for c in 0..<3 { levels[4 * k + c] = UInt8(k >> 8) } }
        levels.withUnsafeBufferPointer { _Convert.bytesToFloats($0.baseAddress!, n, &b) }
        kernel.apply(foreground: f, background: b, output: &o, count: n)
        levels.withUnsafeMutableBufferPointer { _Convert.floatsToBytes(o, n, $0.baseAddress!) }
        for k in 0..<n { for c in 0..<3 { memory[c * n + k] = levels[4 * k + c] } }
        let same = { (c: Int) in memcmp(memory, memory + c * n, n) == 0 }
        red = UnsafePointer(memory)
        green = same(1) ? red : UnsafePointer(memory + n)
        blue = same(2) ? red : UnsafePointer(memory + 2 * n)
    }

    deinit { memory.deallocate() }

    /// The table's results for opaque pairs four at a time, as ``OpaqueByteRows`` (`out` may
    /// alias either input).
    func blend(_ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
        var i = 0
        while i + 4 <= count {
            let u = UnsafeRawPointer(f + 4 * i).loadUnaligned(as: SIMD16<UInt8>.self)
            let v = UnsafeRawPointer(b + 4 * i).loadUnaligned(as: SIMD16<UInt8>.self)
            if !_allOpaque(u, v) { break }
            for k in 0..<4 { blendOne(f + 4 * (i + k), b + 4 * (i + k), out + 4 * (i + k)) }
            i += 4
        }
        return i
    }

    /// One opaque pair.
    @inline(__always)
    func blendOne(_ s: UnsafePointer<UInt8>, _ d: UnsafePointer<UInt8>, _ o: UnsafeMutablePointer<UInt8>) {
        let x = red[Int(d[0]) &<< 8 | Int(s[0])], y = green[Int(d[1]) &<< 8 | Int(s[1])], z = blue[Int(d[2]) &<< 8 | Int(s[2])]
        o[0] = x
        o[1] = y
        o[2] = z
        o[3] = 255
    }
}

/// Tables by kernel (its type and stored values, as `String(reflecting:)` shows them), kept
/// across renders: a few dozen kernels at most, each 192 KB; the cache is emptied past 32.
final class _BlendTables: @unchecked Sendable {
    static let shared = _BlendTables()
    private let tables = _Locked<[String: _BlendTable]>([:])

    func table(for kernel: any BlendKernel) -> _BlendTable {
        let key = String(reflecting: kernel)
        if let t = tables.withLock({ $0[key] }) { return t }
        let made = _BlendTable(kernel)
        return tables.withLock { cache in
            if let t = cache[key] { return t }
            if cache.count >= 32 { cache.removeAll() }
            cache[key] = made
            return made
        }
    }

    static func tables(for kernel: any BlendKernel) -> [[UInt8]] {
        let t = shared.table(for: kernel)
        return [t.red, t.green, t.blue].map { p in (0..<65536).map { p[$0] } }
    }
}
