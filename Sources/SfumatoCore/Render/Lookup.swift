#if arch(x86_64)
    import SfumatoAVX512
#endif

/// d[i] = table[s[i]] for i in 0..<count (`d` may be `s`; `table` holds 256 bytes): the grey
/// point filters' and histogram mappings' one lookup a pixel. 64 bytes a step with AVX-512.
@inline(__always)
func _lookupBytes(_ table: UnsafePointer<UInt8>, _ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int) {
    #if arch(x86_64)
        if CPUFeatures.wideVectors { return _lookupBytesAVX512(table, s, d, count: count) }
    #endif
    for x in 0..<count { d[x] = table[Int(s[x])] }
}
