import Foundation
#if arch(x86_64)
    import SfumatoAVX512
#endif

// The dense 8-bit loops of fused point passes (the schedule and the tables are in Executors/PointExec.swift).
extension _PointExec {
    /// The matrix-and-table pass over straight 8-bit pixels, four pixels at a time with the
    /// channels in separate vectors (the matrix is then nine multiply-adds per four pixels).
    func mapMatrixTail(
        _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ count: Int, linear: Bool,
        premultipliedOutput: Bool
    ) {
        guard let (m, t) = matrixTail else { return }
        let n = Float(_PointExec.tailSteps)
        let stride = _PointExec.tailSteps + 1
        let decode = SRGB.decodedByte
        let (c0, c1, c2, c3) = m.columns
        // Row-wise coefficients, each broadcast over four pixels, with the table's steps (and,
        // for encoded bytes, the 1/255 of a level) folded in: a product is then directly in
        // table steps.
        let toSteps = linear ? n : n / 255
        let m00 = SIMD4<Float>(repeating: c0.x * toSteps), m01 = SIMD4<Float>(repeating: c1.x * toSteps)
        let m02 = SIMD4<Float>(repeating: c2.x * toSteps), b0 = SIMD4<Float>(repeating: c3.x * n)
        let m10 = SIMD4<Float>(repeating: c0.y * toSteps), m11 = SIMD4<Float>(repeating: c1.y * toSteps)
        let m12 = SIMD4<Float>(repeating: c2.y * toSteps), b1 = SIMD4<Float>(repeating: c3.y * n)
        let m20 = SIMD4<Float>(repeating: c0.z * toSteps), m21 = SIMD4<Float>(repeating: c1.z * toSteps)
        let m22 = SIMD4<Float>(repeating: c2.z * toSteps), b2 = SIMD4<Float>(repeating: c3.z * n)
        let t1 = t + stride, t2 = t + 2 * stride
        @inline(__always) func put(_ o: UnsafeMutablePointer<UInt8>, _ a: UInt8, _ x: UInt8, _ y: UInt8, _ z: UInt8) {
            if a == 0 {
                UnsafeMutableRawPointer(o).storeBytes(of: 0, as: UInt32.self)
            } else if premultipliedOutput && a != 255 {
                let a32 = UInt32(a)
                o[0] = _mul255(UInt32(x), a32); o[1] = _mul255(UInt32(y), a32); o[2] = _mul255(UInt32(z), a32); o[3] = a
            } else {
                o[0] = x; o[1] = y; o[2] = z; o[3] = a
            }
        }
        var i = 0
        // Opaque runs, four pixels per step: the channels come apart with masks and shifts, the
        // matrix is nine vector multiply-adds, and only the three table lookups per pixel stay
        // scalar (the fixed-point route below needs twelve). From the first quad with any
        // transparency, the rest of the run takes the general routes below, pixel by pixel.
        let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(d)
        let byteMask = SIMD4<UInt32>(repeating: 0xFF)
        // Bytes (or decoded levels) as floats; raw bytes need no scaling, the matrix has it.
        @inline(__always) func levels(_ c: SIMD4<UInt32>) -> SIMD4<Float> {
            if linear { return SIMD4(decode[Int(c.x)], decode[Int(c.y)], decode[Int(c.z)], decode[Int(c.w)]) }
            return _float(fromSmallInts: unsafeBitCast(c, to: SIMD4<Int32>.self))
        }
        // A value in table steps -> the nearest step, clamped to 0...n, plus `offset`: adding
        // 1.5 x 2^23 rounds to an integer in the mantissa, where the clamp is one maxps and one
        // minps (a clamp before the rounding costs a compare and three logic operations more).
        let magic = SIMD4<Float>(repeating: 12_582_912), top = SIMD4<Float>(repeating: 12_582_912 + n)
        @inline(__always) func steps(_ v: SIMD4<Float>, _ offset: Int32) -> SIMD4<Int32> {
            let clamped = _minps(_maxps(v + magic, magic), top)
            return unsafeBitCast(clamped, to: SIMD4<Int32>.self) &- (0x4B40_0000 &- offset)
        }
        if !linear, let weights = tailWeights {
            // Integers, exact in both routes (see _MatrixWeights).
            i = weights.map(src, dst, from: 0, count: count)
        } else if tailIsRounding {
            // A plain rounding table: the levels are computed, twelve lookups fewer per quad.
            // (A loop of its own: a branch inside the table loop below cost it a third of its speed.)
            let step = SIMD4<Float>(repeating: Self.tailLevelStep)
            @inline(__always) func level(_ v: SIMD4<Float>) -> SIMD4<UInt32> {
                unsafeBitCast(_roundedInts(_float(fromSmallInts: steps(v, 0)) * step), to: SIMD4<UInt32>.self)
            }
            #if arch(x86_64)
                if !linear && CPUFeatures.wideVectors {
                    // The same arithmetic sixteen pixels a step (SfumatoAVX512).
                    i = withUnsafeTemporaryAllocation(of: Float.self, capacity: 12) { rows in
                        rows[0] = m00[0]; rows[1] = m01[0]; rows[2] = m02[0]; rows[3] = b0[0]
                        rows[4] = m10[0]; rows[5] = m11[0]; rows[6] = m12[0]; rows[7] = b1[0]
                        rows[8] = m20[0]; rows[9] = m21[0]; rows[10] = m22[0]; rows[11] = b2[0]
                        return _matrixBytesAVX512(src, dst, count: count, matrix: rows.baseAddress!, steps: _PointExec.tailSteps)
                    }
                }
            #endif
            while i + 4 <= count {
                let p = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt32>.self)
                if p.x & p.y & p.z & p.w < 0xFF00_0000 { break }
                let r = levels(p & byteMask), g = levels((p &>> 8) & byteMask), b = levels((p &>> 16) & byteMask)
                let o =
                    level(m00 * r + m01 * g + m02 * b + b0) | level(m10 * r + m11 * g + m12 * b + b1) &<< 8
                    | level(m20 * r + m21 * g + m22 * b + b2) &<< 16 | SIMD4(repeating: 0xFF00_0000)
                dst.storeBytes(of: o, toByteOffset: 4 * i, as: SIMD4<UInt32>.self)
                i += 4
            }
        }
        let slots = UnsafeMutablePointer<SIMD4<Int32>>.allocate(capacity: 3)
        defer { slots.deallocate() }
        let indices = UnsafeRawPointer(slots)
        while i + 4 <= count {
            let p = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            if p.x & p.y & p.z & p.w < 0xFF00_0000 { break }
            let r = levels(p & byteMask), g = levels((p &>> 8) & byteMask), b = levels((p &>> 16) & byteMask)
            // The indices go through memory: twelve plain loads beat twelve lane extractions.
            slots[0] = steps(m00 * r + m01 * g + m02 * b + b0, 0)
            slots[1] = steps(m10 * r + m11 * g + m12 * b + b1, Int32(stride))
            slots[2] = steps(m20 * r + m21 * g + m22 * b + b2, Int32(2 * stride))
            // Opaque alpha first, one 16-byte store; then each looked-up byte straight to its place
            // (assembling words in registers took a shift and an OR per byte more).
            dst.storeBytes(of: SIMD4<UInt32>(repeating: 0xFF00_0000), toByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            let o = d + 4 * i
            @inline(__always) func k(_ at: Int) -> Int { Int(indices.load(fromByteOffset: 4 * at, as: Int32.self)) }
            o[0] = t[k(0)]; o[1] = t[k(4)]; o[2] = t[k(8)]
            o[4] = t[k(1)]; o[5] = t[k(5)]; o[6] = t[k(9)]
            o[8] = t[k(2)]; o[9] = t[k(6)]; o[10] = t[k(10)]
            o[12] = t[k(3)]; o[13] = t[k(7)]; o[14] = t[k(11)]
            i += 4
        }
        if let f = tailFixed, linear == tailLinear {
            // Fixed point: nine table lookups and three shifts per pixel, no float conversions.
            let maxK = Int32(_PointExec.tailSteps), shift = _PointExec.tailFixedShift
            let b0 = f[9 * 256], b1 = f[9 * 256 + 1], b2 = f[9 * 256 + 2]
            @inline(__always) func index(_ v: Int32) -> Int { Int(min(max(v >> shift, 0), maxK)) }
            while i < count {
                let p = s + 4 * i
                let r = Int(p[0]), g = 256 + Int(p[1]), b = 512 + Int(p[2])
                let x = t[index(f[r] &+ f[g] &+ f[b] &+ b0)]
                let y = t1[index(f[768 + r] &+ f[768 + g] &+ f[768 + b] &+ b1)]
                let z = t2[index(f[1536 + r] &+ f[1536 + g] &+ f[1536 + b] &+ b2)]
                if p[3] == 255 {
                    let o = UInt32(x) | UInt32(y) << 8 | UInt32(z) << 16 | 0xFF00_0000
                    dst.storeBytes(of: o, toByteOffset: 4 * i, as: UInt32.self)
                } else {
                    put(d + 4 * i, p[3], x, y, z)
                }
                i += 1
            }
            return
        }
        // Four pixels at a time, written out lane by lane (no dynamic lane indexing, which the
        // compiler turns into stores and reloads through memory).
        @inline(__always) func raw(_ v: UInt8) -> Float { linear ? decode[Int(v)] : Float(v) }
        while i + 4 <= count {
            let p = s + 4 * i, o = d + 4 * i
            let r = SIMD4<Float>(raw(p[0]), raw(p[4]), raw(p[8]), raw(p[12]))
            let g = SIMD4<Float>(raw(p[1]), raw(p[5]), raw(p[9]), raw(p[13]))
            let b = SIMD4<Float>(raw(p[2]), raw(p[6]), raw(p[10]), raw(p[14]))
            let kr = steps(m00 * r + m01 * g + m02 * b + b0, 0)
            let kg = steps(m10 * r + m11 * g + m12 * b + b1, 0)
            let kb = steps(m20 * r + m21 * g + m22 * b + b2, 0)
            put(o, p[3], t[Int(kr.x)], t1[Int(kg.x)], t2[Int(kb.x)])
            put(o + 4, p[7], t[Int(kr.y)], t1[Int(kg.y)], t2[Int(kb.y)])
            put(o + 8, p[11], t[Int(kr.z)], t1[Int(kg.z)], t2[Int(kb.z)])
            put(o + 12, p[15], t[Int(kr.w)], t1[Int(kg.w)], t2[Int(kb.w)])
            i += 4
        }
        while i < count {
            let p = s + 4 * i
            let r = SIMD4<Float>(repeating: raw(p[0])), g = SIMD4<Float>(repeating: raw(p[1])), b = SIMD4<Float>(repeating: raw(p[2]))
            let byRed: SIMD4<Float> = SIMD4(m00.x, m10.x, m20.x, 0) * r
            let byGreen: SIMD4<Float> = SIMD4(m01.x, m11.x, m21.x, 0) * g
            let byBlue: SIMD4<Float> = SIMD4(m02.x, m12.x, m22.x, 0) * b
            let k = steps(byRed + byGreen + byBlue + SIMD4(b0.x, b1.x, b2.x, 0), 0)
            put(d + 4 * i, p[3], t[Int(k.x)], t1[Int(k.y)], t2[Int(k.z)])
            i += 1
        }
    }

    /// Applies the byte table to opaque or straight pixels (premultiplied partial alpha goes
    /// through floats). `s` and `d` must not overlap: an opaque quad's alpha is stored first.
    @inline(__always)
    func mapBytes(
        _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ count: Int,
        premultipliedInput: Bool, premultipliedOutput: Bool
    ) {
        guard let t = lut else { return }
        let t1 = t + 256, t2 = t + 512
        let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(d)
        var i = 0
        #if arch(x86_64)
            // Sixteen opaque pixels a step, all three tables by byte permutes.
            if CPUFeatures.wideVectors { i = _lookupOpaqueRGBAAVX512(t, s, d, count: count) }
        #endif
        // Opaque pixels (a photo's every pixel): four per step, the opaque alphas as one 16-byte
        // store, then twelve lookups stored byte by byte (assembling words in registers took a
        // shift and an OR per byte more).
        while i + 4 <= count {
            let q = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            if q.x & q.y & q.z & q.w < 0xFF00_0000 { break }
            dst.storeBytes(of: SIMD4<UInt32>(repeating: 0xFF00_0000), toByteOffset: 4 * i, as: SIMD4<UInt32>.self)
            let o = d + 4 * i, p = s + 4 * i
            o[0] = t[Int(p[0])]; o[1] = t1[Int(p[1])]; o[2] = t2[Int(p[2])]
            o[4] = t[Int(p[4])]; o[5] = t1[Int(p[5])]; o[6] = t2[Int(p[6])]
            o[8] = t[Int(p[8])]; o[9] = t1[Int(p[9])]; o[10] = t2[Int(p[10])]
            o[12] = t[Int(p[12])]; o[13] = t1[Int(p[13])]; o[14] = t2[Int(p[14])]
            i += 4
        }
        while i < count {
            let v = src.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)
            if v < 0xFF00_0000 { break }
            let o = UInt32(t[Int(v & 0xFF)]) | UInt32(t1[Int((v >> 8) & 0xFF)]) << 8 | UInt32(t2[Int((v >> 16) & 0xFF)]) << 16
            dst.storeBytes(of: o | 0xFF00_0000, toByteOffset: 4 * i, as: UInt32.self)
            i += 1
        }
        while i < count {
            defer { i += 1 }
            let sp = s + 4 * i, dp = d + 4 * i
            let a = sp[3]
            if a == 255 || (a != 0 && !premultipliedInput && !premultipliedOutput) {
                dp[0] = t[Int(sp[0])]
                dp[1] = t[256 + Int(sp[1])]
                dp[2] = t[512 + Int(sp[2])]
                dp[3] = a
            } else if a == 0 {
                UnsafeMutableRawPointer(dp).storeBytes(of: 0, as: UInt32.self)
            } else {
                // Unpremultiply (if needed), map, premultiply (if needed), in integers.
                let a32 = UInt32(a)
                for c in 0..<3 {
                    var v = UInt32(sp[c])
                    if premultipliedInput { v = min(255, (v * 255 + a32 / 2) / a32) }
                    var m = UInt32(t[c * 256 + Int(v)])
                    if premultipliedOutput { m = UInt32(_mul255(m, a32)) }
                    dp[c] = UInt8(m)
                }
                dp[3] = a
            }
        }
    }
}
