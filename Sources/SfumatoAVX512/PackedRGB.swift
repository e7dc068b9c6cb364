// Packed RGB (3 bytes a pixel) to and from RGBA (4 bytes a pixel), 16 pixels a step: one masked
// 48-byte load or store and one byte permute (VBMI) each way, so no step reads or writes a byte
// past the pixels it was given.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// The byte permute that spreads 16 packed pixels over 64 bytes (each alpha byte gets a copy
    /// of blue, which the caller overwrites), and the one that gathers them back.
    private let _permutes: (expand: SIMD64<UInt8>, pack: SIMD64<UInt8>) = {
        var spread = SIMD64<UInt8>(), gather = SIMD64<UInt8>()
        for j in 0..<64 { spread[j] = UInt8(3 * (j / 4) + min(j % 4, 2)) }
        for j in 0..<48 { gather[j] = UInt8(4 * (j / 3) + j % 3) }
        return (spread, gather)
    }()

    /// Packed RGB to opaque RGBA: d[4i..<4i+3] = s[3i..<3i+3], d[4i+3] = 255, for the first
    /// multiple of 16 pixels of `count`. Returns how many pixels it converted.
    @inline(never)
    public func _expandRGBAVX512(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let index = unsafeBitCast(_permutes.expand, to: __m512i.self)
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000))
        let mask: UInt64 = (1 << 48) - 1
        @inline(__always) func put(_ v: __m512i, _ i: Int) {
            UnsafeMutableRawPointer(d + 4 &* i).storeBytes(of: _mm512_or_si512(_mm512_permutexvar_epi8(index, v), alpha), as: __m512i.self)
        }
        var i = 0
        // Whole 64-byte loads while 22 pixels remain (masked loads are slow on some processors).
        while i &+ 22 <= count {
            put(UnsafeRawPointer(s + 3 &* i).loadUnaligned(as: __m512i.self), i)
            i &+= 16
        }
        while i &+ 16 <= count {
            put(_mm512_maskz_loadu_epi8(mask, s + 3 &* i), i)
            i &+= 16
        }
        return i
    }

    /// RGBA to packed RGB, alpha dropped: d[3i..<3i+3] = s[4i..<4i+3], for the first multiple of
    /// 16 pixels of `count` (with `opaqueOnly`, up to the first 16 with any alpha below 255).
    /// Returns how many pixels it converted.
    @inline(never)
    public func _packRGBAVX512(_ s: UnsafePointer<UInt8>, _ d: UnsafeMutablePointer<UInt8>, count: Int, opaqueOnly: Bool = false) -> Int {
        let alpha = _mm512_set1_epi32(Int32(bitPattern: 0xFF00_0000)), ones = _mm512_set1_epi32(-1)
        let index = unsafeBitCast(_permutes.pack, to: __m512i.self)
        let mask: UInt64 = (1 << 48) - 1
        @inline(__always) func load(_ i: Int) -> __m512i { UnsafeRawPointer(s + 4 &* i).loadUnaligned(as: __m512i.self) }
        @inline(__always) func translucent(_ v: __m512i) -> Bool {
            opaqueOnly && _mm512_test_epi32_mask(_mm512_andnot_si512(v, ones), alpha) != 0
        }
        var i = 0
        // Whole 64-byte stores while 22 pixels remain (masked stores are slow on some
        // processors): the last 16 bytes of each land on the next step's pixels, written next.
        while i &+ 22 <= count {
            let v = load(i)
            if translucent(v) { return i }
            UnsafeMutableRawPointer(d + 3 &* i).storeBytes(of: _mm512_permutexvar_epi8(index, v), as: __m512i.self)
            i &+= 16
        }
        while i &+ 16 <= count {
            let v = load(i)
            if translucent(v) { return i }
            _mm512_mask_storeu_epi8(d + 3 &* i, mask, _mm512_permutexvar_epi8(index, v))
            i &+= 16
        }
        return i
    }
#endif
