import SfumatoCore

#if arch(x86_64)
    import SfumatoAVX512
#endif

/// Blend modes with an AVX-512 twin of their opaque rows.
enum _WideBlend {
    case multiply, difference, darken, lighten, subtract, linearDodge, linearBurn
}

/// How many pixels of an opaque run the AVX-512 twin blends (whole steps of 16, from the start,
/// stopping before any transparency), 0 without AVX-512; `_opaqueByteRows` does the rest.
@inline(__always)
func _opaqueBlendWide(
    _ mode: _WideBlend, _ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ count: Int
) -> Int {
    #if arch(x86_64)
        guard CPUFeatures.wideVectors else { return 0 }
        let wide: _OpaqueBlendAVX512 =
            switch mode {
            case .multiply: .multiply
            case .difference: .difference
            case .darken: .darken
            case .lighten: .lighten
            case .subtract: .subtract
            case .linearDodge: .linearDodge
            case .linearBurn: .linearBurn
            }
        return _opaqueBlendBytesAVX512(wide, f, b, out, count: count)
    #else
        return 0
    #endif
}

/// Vector code for the blend modes' 8-bit route (``OpaqueByteRows``): opaque RGBA8 pixels four
/// at a time, each byte widened to a 16-bit lane, `op(backdrop, source)` per lane, then narrowed
/// with alpha set to 255 (the modes keep opaque over opaque opaque); stops at the first four
/// pixels with any transparency in either input.
@inline(__always)
func _opaqueByteRows(
    _ f: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>, _ count: Int,
    _ op: (_ backdrop: SIMD8<UInt16>, _ source: SIMD8<UInt16>) -> SIMD8<UInt16>
) -> Int {
    let alpha = SIMD16<UInt8>(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255)
    var i = 0
    while i + 4 <= count {
        let s = UnsafeRawPointer(f + 4 * i).loadUnaligned(as: SIMD16<UInt8>.self)
        let d = UnsafeRawPointer(b + 4 * i).loadUnaligned(as: SIMD16<UInt8>.self)
        if !_allOpaque(s, d) { break }
        let (sl, sh) = _widenedBytes(s), (dl, dh) = _widenedBytes(d)
        let r = _narrowedBytes(op(dl, sl), op(dh, sh)) | alpha
        UnsafeMutableRawPointer(out + 4 * i).storeBytes(of: r, as: SIMD16<UInt8>.self)
        i += 4
    }
    return i
}

/// `a` where `b` <= 127, else `c`, per 16-bit lane.
@inline(__always)
func _selectDark(_ b: SIMD8<UInt16>, dark a: SIMD8<UInt16>, light c: SIMD8<UInt16>) -> SIMD8<UInt16> {
    let light = _lanesAbove(b, 127)
    return (a & ~light) | (c & light)
}
