import Foundation
#if arch(x86_64)
import SfumatoAVX512
#endif

/// A run of point stages compiled for execution: adjacent linear maps multiplied into one matrix,
/// adjacent unpremultiplied operations sharing one unpremultiply / premultiply.
struct _PointProgram: @unchecked Sendable {
    enum Segment {
        /// Linear map of premultiplied pixels.
        case matrix(Matrix4)
        /// Operations on unpremultiplied pixels: curves (alpha kept) and pixel functions (alpha may change).
        case unpremultiplied([PointStage])
    }

    var segments: [Segment] = []
    /// Filter names folded into this program, in order.
    var names: [String] = []
    /// How many source stages were folded into each matrix (for plans).
    var description: [String] = []
    var isPerChannel = true

    init(stages: [PointStage], name: String, fuse: Bool = true) {
        append(stages, name: name, fuse: fuse)
    }

    init() {}

    mutating func append(_ stages: [PointStage], name: String, fuse: Bool = true) {
        names.append(name)
        for stage in stages {
            isPerChannel = isPerChannel && stage.isPerChannel
            switch stage {
            case .linear(let m):
                if fuse, case .matrix(let previous)? = segments.last {
                    segments[segments.count - 1] = .matrix(m * previous)
                    description[description.count - 1] += " + \(name)"
                } else {
                    segments.append(.matrix(m))
                    description.append("matrix[\(name)")
                }
            case .curve, .pixel:
                if fuse, case .unpremultiplied(var ops)? = segments.last {
                    ops.append(stage)
                    segments[segments.count - 1] = .unpremultiplied(ops)
                    description[description.count - 1] += " + \(name) \(stage.summary)"
                } else {
                    segments.append(.unpremultiplied([stage]))
                    description.append("unpremultiply[\(name) \(stage.summary)")
                }
            }
        }
    }

    var summary: String {
        description.map { $0 + "]" }.joined(separator: " -> ")
    }

    /// Runs the program in place over `count` premultiplied pixels.
    func run(_ p: UnsafeMutablePointer<SIMD4<Float>>, _ count: Int, alpha: UnsafeMutablePointer<Float>) {
        for segment in segments {
            switch segment {
            case .matrix(let m):
                for i in 0..<count { p[i] = m * p[i] }
            case .unpremultiplied(let ops):
                var changesAlpha = false
                for i in 0..<count {
                    let v = p[i]
                    let a = v.w
                    alpha[i] = a
                    if a != 1 {
                        if a > 0 {
                            var u = v * (1 / a)
                            u.w = a
                            p[i] = u
                        } else {
                            p[i] = SIMD4(0, 0, 0, a)
                        }
                    }
                }
                for op in ops {
                    switch op {
                    case .curve(let c): c.apply(p, count: count)
                    case .pixel(let f): f.apply(p, count: count); changesAlpha = true
                    case .linear(let m): for i in 0..<count { p[i] = m * p[i] }
                    }
                }
                if changesAlpha {
                    for i in 0..<count {
                        let v = p[i]
                        p[i] = SIMD4(v.x * v.w, v.y * v.w, v.z * v.w, v.w)
                    }
                } else {
                    for i in 0..<count {
                        let a = alpha[i]
                        let v = p[i]
                        p[i] = SIMD4(v.x * a, v.y * a, v.z * a, a)
                    }
                }
            }
        }
    }
}

/// Fused per-pixel filters: one pass over the pixels for any number of consecutive point
/// filters, and, when the source is 8-bit and every stage works per channel, one lookup table
/// per channel from stored byte to stored byte.
class _PointExec: _Exec, @unchecked Sendable {
    let input: _Exec
    var program: _PointProgram
    /// For per-channel programs: stored 8-bit sRGB level in -> stored level out, per channel
    /// (the working-space conversions are folded in).
    private(set) var lut: UnsafeMutablePointer<UInt8>?

    init(_ input: _Exec, program: _PointProgram, extent: Rect, ws: WorkingSpace, children: [_Exec]? = nil) {
        self.input = input
        self.program = program
        // Float even over 8-bit sources: an 8-bit intermediate would clip values outside 0...1
        // that later filters may bring back. The byte table is used when storing the output.
        super.init(extent: extent, natural: .float, children: children ?? [input])
        prepareTable(ws)
    }

    /// For programs of one matrix followed by per-channel curves: the matrix, and per channel a
    /// table of the curves and the 8-bit encoding over v = k / 16384, k = 0...16384 (steps
    /// small enough that even a power curve at 0.5 moves at most a level within one).
    private(set) var matrixTail: (Matrix4, UnsafeMutablePointer<UInt8>)?
    static let tailSteps = 16384

    /// The matrix in fixed point for `matrixTail`: per output channel and input channel, the
    /// product of the matrix entry and each level's working value, × 2^18 (`tailFixedShift`
    /// bits above the table's 1/16384 steps), then the three biases; for the working space
    /// `tailLinear` says.
    private var tailFixed: UnsafeMutablePointer<Int32>?
    private var tailLinear = false
    /// Whether the table is plain rounding, round(k x `tailLevelStep`) (a matrix alone in the
    /// encoded working space): opaque quads then compute the levels instead of looking them up
    /// (checked entry by entry against the table, so both give the same bytes).
    private var tailIsRounding = false
    static let tailLevelStep: Float = 255 / Float(tailSteps)
    static let tailFixedShift: Int32 = 4

    deinit {
        lut?.deallocate()
        matrixTail?.1.deallocate()
        tailFixed?.deallocate()
    }

    /// Builds the per-channel tables when the program allows them.
    func prepareTable(_ ws: WorkingSpace) {
        prepareMatrixTail(ws)
        lut?.deallocate()
        lut = nil
        guard program.isPerChannel else { return }
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * 256)
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 256)
        let alpha = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { values.deallocate(); alpha.deallocate() }
        for k in 0..<256 {
            let v = ws == .linear ? SRGB.decodedByte[k] : Float(k) / 255
            values[k] = SIMD4(v, v, v, 1)
        }
        program.run(values, 256, alpha: alpha)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * 256)
        defer { out.deallocate() }
        _Convert.storeRGBA8(values, 256, linear: ws == .linear, premultiplied: false, out)
        for k in 0..<256 { for c in 0..<3 { t[c * 256 + k] = out[4 * k + c] } }
        lut = t
    }

    override var explanation: String {
        var s = "fused point pass: \(program.summary)"
        if lut != nil { s += "; per-channel, so 8-bit sources map through one 256-entry table per channel" }
        else if matrixTail != nil { s += "; 8-bit sources: one 4x4 matrix, then the curves and encoding through one table per channel" }
        else if bytePixelFunction != nil, (input as? _RowReadable)?.hasStraightBytes == true {
            s += "; 8-bit pixels mapped byte to byte by the function itself"
        }
        return s
    }

    /// A program of one pixel function that maps 8-bit pixels itself (e.g. a threshold).
    var bytePixelFunction: (any PixelFunction)? {
        guard program.segments.count == 1, case .unpremultiplied(let ops) = program.segments[0], ops.count == 1,
              case .pixel(let f) = ops[0], f.mapsStraightBytes else { return nil }
        return f
    }

    /// What the float path reads for each stored level in the working space "none".
    nonisolated(unsafe) static let plainLevels: UnsafePointer<Float> = {
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * 256)
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 256)
        defer { bytes.deallocate(); values.deallocate() }
        for k in 0..<256 { for c in 0..<4 { bytes[4 * k + c] = c == 3 ? 255 : UInt8(k) } }
        _Convert.loadRGBA8(bytes, 256, premultiplied: false, linear: false, values)
        let levels = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        for k in 0..<256 { levels[k] = values[k].x }
        return UnsafePointer(levels)
    }()

    /// Builds `matrixTail` for a program [matrix][curves...], when clamping the matrix output to
    /// 0...1 before the curves changes nothing (checked on values outside that range).
    private func prepareMatrixTail(_ ws: WorkingSpace) {
        matrixTail?.1.deallocate()
        matrixTail = nil
        guard case .matrix(let m)? = program.segments.first, m.keepsAlpha else { return }
        var tail = _PointProgram()
        for segment in program.segments.dropFirst() {
            guard case .unpremultiplied(let ops) = segment, ops.allSatisfy({ if case .curve = $0 { true } else { false } }) else { return }
            tail.segments.append(segment)
        }
        let n = _PointExec.tailSteps
        let count = n + 1 + 8
        let values = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: count)
        let alpha = UnsafeMutablePointer<Float>.allocate(capacity: count)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * count)
        defer { values.deallocate(); alpha.deallocate(); out.deallocate() }
        for k in 0...n {
            let v = Float(Double(k) / Double(n))
            values[k] = SIMD4(v, v, v, 1)
        }
        let probes: [Float] = [-0.5, -4, -100, 1.5, 4, 100, 1e6, -1e-3]
        for (i, v) in probes.enumerated() { values[n + 1 + i] = SIMD4(v, v, v, 1) }
        tail.run(values, count, alpha: alpha)
        _Convert.storeRGBA8(values, count, linear: ws == .linear, premultiplied: false, out)
        for (i, v) in probes.enumerated() {
            let expected = v < 0 ? out[0] : out[4 * n]
            for c in 0..<3 where out[4 * (n + 1 + i) + c] != (v < 0 ? out[c] : out[4 * n + c]) || expected != out[4 * (v < 0 ? 0 : n)] {
                return   // the curves do something outside 0...1: no table
            }
        }
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * (n + 1))
        for k in 0...n { for c in 0..<3 { t[c * (n + 1) + k] = out[4 * k + c] } }
        matrixTail = (m, t)
        tailIsRounding = (0...n).allSatisfy { k in
            let level = _roundedInts(_float(fromSmallInts: SIMD4(repeating: Int32(k))) * Self.tailLevelStep)[0]
            return (0..<3).allSatisfy { c in Int32(t[c * (n + 1) + k]) == level }
        }
        // The fixed-point matrix: 9 tables of 256 products and 3 biases (with the rounding half).
        tailFixed?.deallocate()
        tailFixed = nil
        let (c0, c1, c2, c3) = m.columns
        let rows: [[Float]] = [[c0.x, c1.x, c2.x, c3.x], [c0.y, c1.y, c2.y, c3.y], [c0.z, c1.z, c2.z, c3.z]]
        // Sums stay far inside Int32 for entries up to 1000; larger ones (or NaN, which fails
        // the test too) keep the float route.
        guard rows.joined().allSatisfy({ abs($0) <= 1000 }) else { return }
        let unit = Double(n) * Double(1 << Self.tailFixedShift)
        let f = UnsafeMutablePointer<Int32>.allocate(capacity: 9 * 256 + 3)
        let levels = ws == .linear ? SRGB.decodedByte : _PointExec.plainLevels
        for o in 0..<3 {
            for i in 0..<3 {
                for v in 0..<256 {
                    f[(3 * o + i) * 256 + v] = Int32((Double(rows[o][i]) * Double(levels[v]) * unit).rounded())
                }
            }
            f[9 * 256 + o] = Int32((Double(rows[o][3]) * unit).rounded()) + (1 << (Self.tailFixedShift - 1))
        }
        tailFixed = f
        tailLinear = ws == .linear
    }

    /// The matrix-and-table pass over straight 8-bit pixels, four pixels at a time with the
    /// channels in separate vectors (the matrix is then nine multiply-adds per four pixels).
    private func mapMatrixTail(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ count: Int, linear: Bool,
                               premultipliedOutput: Bool) {
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
        if tailIsRounding {
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
                    return _matrixBytesAVX512(src, dst, count: count, matrix: rows.baseAddress!, top: n, step: Self.tailLevelStep)
                }
            }
            #endif
            while i + 4 <= count {
                let p = src.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt32>.self)
                if p.x & p.y & p.z & p.w < 0xFF00_0000 { break }
                let r = levels(p & byteMask), g = levels((p &>> 8) & byteMask), b = levels((p &>> 16) & byteMask)
                let o = level(m00 * r + m01 * g + m02 * b + b0) | level(m10 * r + m11 * g + m12 * b + b1) &<< 8
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
    private func mapBytes(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, _ count: Int,
                          premultipliedInput: Bool, premultipliedOutput: Bool) {
        guard let t = lut else { return }
        let t1 = t + 256, t2 = t + 512
        let src = UnsafeRawPointer(s), dst = UnsafeMutableRawPointer(d)
        var i = 0
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

    override func produce(_ rect: Rect, _ kind: TileKind, _ w: _Worker) throws -> _PixelBuffer {
        if kind == .byte && natural == .byte {
            let src = try input.produce(rect, .byte, w)
            // Never in place: mapBytes stores a quad's alpha before its looked-up colours.
            let out = w.buffer(.byte, rect)
            let st = src.byteTile, ot = out.byteTile
            for y in rect.y..<rect.maxY {
                mapBytes(st.row(y), ot.row(y), rect.width, premultipliedInput: true, premultipliedOutput: true)
            }
            return out
        }
        let out: _PixelBuffer
        if let readable = input as? _RowReadable {
            out = w.buffer(.float, rect)
            let ot = out.floatTile
            let inside = rect.intersection(input.extent)
            if inside != rect { out.zero() }
            if !inside.isEmpty {
                try readable.withStoredRows(inside, w) { y, stored in
                    let bpp = readable.storedBytesPerPixel
                    var x = 0
                    while x < inside.width {
                        let n = min(_Worker.chunk, inside.width - x)
                        let dst = ot.pointer(x: inside.x + x, y: y)
                        readable.load(stored + (inside.x - input.extent.x + x) * bpp, n, into: dst, w)
                        program.run(dst, n, alpha: w.alphaBuffer)
                        x += n
                    }
                }
            }
        } else {
            let src = try input.produce(rect, .float, w)
            out = src.isWritable ? src : w.buffer(.float, rect)
            let st = src.floatTile, ot = out.floatTile
            for y in rect.y..<rect.maxY {
                var x = 0
                while x < rect.width {
                    let n = min(_Worker.chunk, rect.width - x)
                    let s = st.row(y) + x, d = ot.row(y) + x
                    if s != d { d.update(from: s, count: n) }
                    program.run(d, n, alpha: w.alphaBuffer)
                    x += n
                }
            }
        }
        return kind == .float ? out : _convert(out, to: kind, w)
    }

    override func store(_ rect: Rect, into d: _Destination, _ w: _Worker) throws {
        let inside = rect.intersection(input.extent)
        guard let readable = input as? _RowReadable, inside == rect else {
            return try super.store(rect, into: d, w)
        }
        let bpp = readable.storedBytesPerPixel
        let xOffset = (rect.x - input.extent.x) * bpp
        if readable.storedFormat == .gray8 && (d.format == .gray8 || d.format == .rgba8) {
            return try storeGray(rect, readable, xOffset, into: d, w)
        }
        // The 8-bit routes (a table, a byte pixel function, a matrix tail) write RGBA8 rows; for a
        // grey destination in the none working space (where luminance is taken of the encoded
        // values) they write a row of premultiplied RGBA (colour over black) whose luminance is
        // then stored. In linear light, luminance needs the linear values: the float route.
        let toGray = d.format == .gray8 && d.encoding == .srgb && !w.linear
        if (d.format == .rgba8 || toGray) && readable.hasStraightBytes && (lut != nil || bytePixelFunction != nil || matrixTail != nil) {
            let premultiplied = toGray || d.alpha == .premultiplied
            let levels = w.linear ? SRGB.decodedByte : _PointExec.plainLevels
            let temp: UnsafeMutablePointer<UInt8>? = toGray ? .allocate(capacity: 4 * rect.width) : nil
            defer { temp?.deallocate() }
            try readable.withStoredRows(rect, w) { y, stored in
                let source = (stored + xOffset).assumingMemoryBound(to: UInt8.self)
                let row = (d.row(y) + (rect.x - d.rect.x) * d.format.bytesPerPixel).assumingMemoryBound(to: UInt8.self)
                let out = temp ?? row
                if lut != nil {
                    mapBytes(source, out, rect.width, premultipliedInput: false, premultipliedOutput: premultiplied)
                } else if let f = bytePixelFunction {
                    f.apply(StraightBytes(source: source, destination: out, count: rect.width, level: levels, linear: w.linear))
                    if premultiplied { _premultiplyBytes(out, rect.width) }
                } else {
                    mapMatrixTail(source, out, rect.width, linear: w.linear, premultipliedOutput: premultiplied)
                }
                if let temp { _Convert.bytesToGray(temp, rect.width, row) }
            }
            return
        }
        let chunk = w.chunkBuffer
        try readable.withStoredRows(rect, w) { y, stored in
            let out = d.row(y) + (rect.x - d.rect.x) * d.format.bytesPerPixel
            var x = 0
            while x < rect.width {
                let n = min(_Worker.chunk, rect.width - x)
                readable.load(stored + xOffset + x * bpp, n, into: chunk, w)
                program.run(chunk, n, alpha: w.alphaBuffer)
                _storeFloatRow(chunk, n, into: d, out + x * d.format.bytesPerPixel, w)
                x += n
            }
        }
    }
}

extension _PointExec {
    /// A grey pixel is (g, g, g, 1), so the whole program is a function of g: it runs once on the
    /// 256 levels, through the same loads and stores as the float path (so the bytes are the
    /// same), and every pixel is then one lookup.
    private func storeGray(_ rect: Rect, _ readable: _RowReadable, _ xOffset: Int, into d: _Destination, _ w: _Worker) throws {
        let chunk = w.chunkBuffer
        precondition(_Worker.chunk >= 256)
        let bpp = d.format.bytesPerPixel
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256 * 5) { buffer in
            let levels = buffer.baseAddress!, table = levels + 256
            for g in 0..<256 { levels[g] = UInt8(g) }
            readable.load(levels, 256, into: chunk, w)
            program.run(chunk, 256, alpha: w.alphaBuffer)
            _storeFloatRow(chunk, 256, into: d, table, w)
            try readable.withStoredRows(rect, w) { y, stored in
                let s = (stored + xOffset).assumingMemoryBound(to: UInt8.self)
                let out = (d.row(y) + (rect.x - d.rect.x) * bpp).assumingMemoryBound(to: UInt8.self)
                if bpp == 1 {
                    _lookupBytes(table, s, out, count: rect.width)
                } else {
                    let t = UnsafeRawPointer(table), o = UnsafeMutableRawPointer(out)
                    for x in 0..<rect.width {
                        o.storeBytes(of: t.loadUnaligned(fromByteOffset: 4 * Int(s[x]), as: UInt32.self), toByteOffset: 4 * x, as: UInt32.self)
                    }
                }
            }
        }
    }
}

/// Straight 8-bit pixels to premultiplied, in place.
func _premultiplyBytes(_ p: UnsafeMutablePointer<UInt8>, _ count: Int) {
    for i in 0..<count {
        let q = p + 4 * i
        let a = q[3]
        if a == 255 { continue }
        let a32 = UInt32(a)
        q[0] = _mul255(UInt32(q[0]), a32); q[1] = _mul255(UInt32(q[1]), a32); q[2] = _mul255(UInt32(q[2]), a32)
    }
}

extension _RowReadable {
    /// The stored pixel format (nil for rows that are not stored pixels).
    var storedFormat: PixelFormat? {
        if let b = self as? _BitmapExec { return b.bitmap.format }
        if let s = self as? _StreamExec { return s.source.format }
        return nil
    }

    var storedBytesPerPixel: Int {
        if let b = self as? _BitmapExec { return b.bitmap.format.bytesPerPixel }
        if let s = self as? _StreamExec { return s.source.format.bytesPerPixel }
        return 16
    }
}

@inline(__always)
func _withAlphaOne(_ v: SIMD4<Float>) -> SIMD4<Float> {
    var r = v
    r.w = 1
    return r
}
