import SfumatoCore

// The median of 25 values by Devillard's 99-exchange selection network ("Fast median search",
// opt_med25), checked exhaustively over all 2^25 zero-one inputs (the 0-1 principle) when it
// was added. Exchanges act lane by lane, so one call gives the medians of 16 bytes (4 pixels).

@inline(__always)
func _median25<T: _MinMax>(_ v: UnsafePointer<T>) -> T {
    var p0 = v[0], p1 = v[1], p2 = v[2], p3 = v[3], p4 = v[4], p5 = v[5], p6 = v[6], p7 = v[7], p8 = v[8]
    var p9 = v[9], p10 = v[10], p11 = v[11], p12 = v[12], p13 = v[13], p14 = v[14], p15 = v[15], p16 = v[16]
    var p17 = v[17], p18 = v[18], p19 = v[19], p20 = v[20], p21 = v[21], p22 = v[22], p23 = v[23], p24 = v[24]
    @inline(__always) func s(_ a: inout T, _ b: inout T) { let t = T._lo(a, b); b = T._hi(a, b); a = t }
    s(&p0, &p1); s(&p3, &p4); s(&p2, &p4); s(&p2, &p3); s(&p6, &p7); s(&p5, &p7)
    s(&p5, &p6); s(&p9, &p10); s(&p8, &p10); s(&p8, &p9); s(&p12, &p13); s(&p11, &p13)
    s(&p11, &p12); s(&p15, &p16); s(&p14, &p16); s(&p14, &p15); s(&p18, &p19); s(&p17, &p19)
    s(&p17, &p18); s(&p21, &p22); s(&p20, &p22); s(&p20, &p21); s(&p23, &p24); s(&p2, &p5)
    s(&p3, &p6); s(&p0, &p6); s(&p0, &p3); s(&p4, &p7); s(&p1, &p7); s(&p1, &p4)
    s(&p11, &p14); s(&p8, &p14); s(&p8, &p11); s(&p12, &p15); s(&p9, &p15); s(&p9, &p12)
    s(&p13, &p16); s(&p10, &p16); s(&p10, &p13); s(&p20, &p23); s(&p17, &p23); s(&p17, &p20)
    s(&p21, &p24); s(&p18, &p24); s(&p18, &p21); s(&p19, &p22); s(&p8, &p17); s(&p9, &p18)
    s(&p0, &p18); s(&p0, &p9); s(&p10, &p19); s(&p1, &p19); s(&p1, &p10); s(&p11, &p20)
    s(&p2, &p20); s(&p2, &p11); s(&p12, &p21); s(&p3, &p21); s(&p3, &p12); s(&p13, &p22)
    s(&p4, &p22); s(&p4, &p13); s(&p14, &p23); s(&p5, &p23); s(&p5, &p14); s(&p15, &p24)
    s(&p6, &p24); s(&p6, &p15); s(&p7, &p16); s(&p7, &p19); s(&p13, &p21); s(&p15, &p23)
    s(&p7, &p13); s(&p7, &p15); s(&p1, &p9); s(&p3, &p11); s(&p5, &p17); s(&p11, &p17)
    s(&p9, &p17); s(&p4, &p10); s(&p6, &p12); s(&p7, &p14); s(&p4, &p6); s(&p4, &p7)
    s(&p12, &p14); s(&p10, &p14); s(&p6, &p7); s(&p10, &p12); s(&p6, &p10); s(&p6, &p17)
    s(&p12, &p17); s(&p7, &p17); s(&p7, &p10); s(&p12, &p18); s(&p7, &p12); s(&p10, &p18)
    s(&p12, &p20); s(&p10, &p20); s(&p10, &p12)
    _ = (p0, p1, p2, p3, p4, p5, p8, p9, p11, p13, p14, p15, p16, p19, p21, p22, p23, p24)
    return p12
}

extension _MedianKernel {
    /// 5x5 medians, 4 pixels per network evaluation.
    func median5x5(input: ByteTile, output: ByteTile, scratch: TileScratch) {
        let out = output.rect
        let v = scratch.buffer(of: SIMD16<UInt8>.self, count: 25)
        for y in out.y..<out.maxY {
            let d = output.row(y)
            var rows: [UnsafeMutablePointer<UInt8>] = []
            for dy in -2...2 { rows.append(input.pointer(x: out.x - 2, y: y + dy)) }
            var x = 0
            while x + 4 <= out.width {
                for j in 0..<5 {
                    let r = UnsafeRawPointer(rows[j] + 4 * x)
                    for i in 0..<5 { v[j * 5 + i] = r.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<UInt8>.self) }
                }
                UnsafeMutableRawPointer(d + 4 * x).storeBytes(of: _median25(UnsafePointer(v)), as: SIMD16<UInt8>.self)
                x += 4
            }
            while x < out.width {
                for j in 0..<5 {
                    let r = UnsafeRawPointer(rows[j] + 4 * x)
                    for i in 0..<5 { v[j * 5 + i] = _widen(r.loadUnaligned(fromByteOffset: 4 * i, as: SIMD4<UInt8>.self)) }
                }
                let m = _median25(UnsafePointer(v))
                UnsafeMutableRawPointer(d + 4 * x).storeBytes(of: SIMD4(m[0], m[1], m[2], m[3]), as: SIMD4<UInt8>.self)
                x += 1
            }
        }
    }
}


/// One pixel in the first four lanes of a 16-byte vector (for the ends of rows).
@inline(__always) func _widen(_ p: SIMD4<UInt8>) -> SIMD16<UInt8> {
    SIMD16(lowHalf: SIMD8(lowHalf: p, highHalf: .zero), highHalf: .zero)
}
