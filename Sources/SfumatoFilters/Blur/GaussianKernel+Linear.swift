import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

extension _GaussianKernel {
    /// Linear light on 16-bit words (``_LinearWords``) for the separable kernel below σ 4, where
    /// the float route is separable too (from σ 4 it is Deriche's recursive filter).
    ///
    /// The words are the 8-bit passes' (``apply(input:output:scratch:)-9o3ja``), with each byte
    /// decoded through a table first and each result encoded through one after. Each pass's
    /// multiply-highs truncate less than a unit per tap pair, half a unit on average: the
    /// encoding table takes the expected r + 1 units off with the rounding constant (see
    /// ``linearOffset``), which leaves at most ±(r + 1) = ±13 units at r = 12, below the 19.8
    /// units of the darkest level step, so every byte is the float route's or its neighbour.
    var supportsLinearBytes: Bool { supportsBytes && recursive == nil && !interpolatesRows }

    /// What the passes' words carry above the linear value: the horizontal pass's rounding
    /// constant (128) less the truncation expected of two passes of r + 1 tap terms each.
    var linearOffset: Int { _LinearWords.rounding - (radius + 1) }

    func applyLinear(input: ByteTile, output: ByteTile, scratch: TileScratch) throws {
        precondition(input.channels == 4 && output.channels == 4, "linear-light tiles are RGBA")
        let words = _LinearWords.shared
        let decode = words.decode, encode = words.encode(offset: linearOffset)
        #if arch(x86_64)
            if CPUFeatures.wideVectors { return applyAVX512(input: input, output: output, scratch: scratch, linear: (UnsafePointer(decode), encode)) }
        #endif
        // The baseline: the same arithmetic as the AVX-512 tile.
        _baselineWordRows(input: input, output: output.rect, scratch: scratch, decode: UnsafePointer(decode)) { y, line, _ in
            let o = UnsafeMutableRawPointer(output.row(y))
            for p in 0..<output.rect.width {
                let rgb = UInt32(encode[Int(line[4 * p])]) | UInt32(encode[Int(line[4 * p + 1])]) &<< 8 | UInt32(encode[Int(line[4 * p + 2])]) &<< 16
                o.storeBytes(of: rgb | 0xFF00_0000, toByteOffset: 4 * p, as: UInt32.self)
            }
        }
    }

    /// The baseline's word passes over a tile: every input row decoded to words through `decode`
    /// once, then per output row the vertical pass, the horizontal pass, and `row(y, blurred,
    /// own)` with output row y's blurred RGBA words (the rounding constant included) and the
    /// input's own words at the same pixels.
    func _baselineWordRows(
        input: ByteTile, output out: Rect, scratch: TileScratch, decode: UnsafePointer<UInt16>,
        _ row: (Int, UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt16>) -> Void
    ) {
        let r = radius, fixed = fixedWeights
        let centre = SIMD8<UInt16>(repeating: fixed[0])
        let pairs = scratch.buffer(of: SIMD8<UInt16>.self, count: r + 1)
        for k in 1...r { pairs[k] = SIMD8(repeating: UInt16(min(65535, 2 * Int(fixed[k])))) }
        let span = 4 * (out.width + 2 * r), inRows = out.height + 2 * r
        let pitch = (span + 31) & ~31
        let decoded = scratch.buffer(of: UInt16.self, count: pitch * inRows)
        for j in 0..<inRows {
            let s = input.pointer(x: out.x - r, y: out.y - r + j), d = decoded + j * pitch
            for i in 0..<span { d[i] = decode[Int(s[i])] }
        }
        let mid = scratch.buffer(of: UInt16.self, count: span + 16)
        let line = scratch.buffer(of: UInt16.self, count: 4 * out.width + 8)
        for y in 0..<out.height {
            _verticalWordPass(decoded + (y + r) * pitch, pitch: pitch, radius: r, centre: centre, pairs: pairs, count: span, into: mid)
            _horizontalWordPass(mid + 4 * r, radius: r, centre: centre, pairs: pairs, count: 4 * out.width, into: line)
            row(out.y + y, line, decoded + (y + r) * pitch + 4 * r)
        }
    }
}

/// The vertical pass on words: centre row `c`, rows `pitch` words apart, `count` words.
private func _verticalWordPass(
    _ c: UnsafeMutablePointer<UInt16>, pitch: Int, radius r: Int, centre: SIMD8<UInt16>,
    pairs: UnsafeMutablePointer<SIMD8<UInt16>>, count: Int, into d: UnsafeMutablePointer<UInt16>
) {
    @inline(__always) func at(_ p: UnsafeMutablePointer<UInt16>) -> SIMD8<UInt16> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self) }
    var i = 0
    // Sixteen words a step in two sums (independent chains, each row pointer and weight loaded
    // once for both); eight at the end.
    while i + 16 <= count {
        var acc = _mulhi(at(c + i), centre), acc2 = _mulhi(at(c + i + 8), centre)
        for k in 1...r {
            let above = c + i - k * pitch, below = c + i + k * pitch, w = pairs[k]
            acc &+= _mulhi(_average(at(above), at(below)), w)
            acc2 &+= _mulhi(_average(at(above + 8), at(below + 8)), w)
        }
        UnsafeMutableRawPointer(d + i).storeBytes(of: acc, as: SIMD8<UInt16>.self)
        UnsafeMutableRawPointer(d + i + 8).storeBytes(of: acc2, as: SIMD8<UInt16>.self)
        i += 16
    }
    while i < count {
        var acc = _mulhi(at(c + i), centre)
        for k in 1...r { acc &+= _mulhi(_average(at(c + i - k * pitch), at(c + i + k * pitch)), pairs[k]) }
        UnsafeMutableRawPointer(d + i).storeBytes(of: acc, as: SIMD8<UInt16>.self)
        i += 8
    }
}

/// The horizontal pass on RGBA words, with the rounding constant: taps 4 words (a pixel) apart.
private func _horizontalWordPass(
    _ m: UnsafeMutablePointer<UInt16>, radius r: Int, centre: SIMD8<UInt16>,
    pairs: UnsafeMutablePointer<SIMD8<UInt16>>, count: Int, into d: UnsafeMutablePointer<UInt16>
) {
    @inline(__always) func at(_ p: UnsafeMutablePointer<UInt16>) -> SIMD8<UInt16> { UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt16>.self) }
    let rounding = SIMD8(repeating: UInt16(_LinearWords.rounding))
    var i = 0
    while i + 16 <= count {
        var acc = _mulhi(at(m + i), centre) &+ rounding, acc2 = _mulhi(at(m + i + 8), centre) &+ rounding
        for k in 1...r {
            let w = pairs[k]
            acc &+= _mulhi(_average(at(m + i - 4 * k), at(m + i + 4 * k)), w)
            acc2 &+= _mulhi(_average(at(m + i + 8 - 4 * k), at(m + i + 8 + 4 * k)), w)
        }
        UnsafeMutableRawPointer(d + i).storeBytes(of: acc, as: SIMD8<UInt16>.self)
        UnsafeMutableRawPointer(d + i + 8).storeBytes(of: acc2, as: SIMD8<UInt16>.self)
        i += 16
    }
    while i < count {
        var acc = _mulhi(at(m + i), centre) &+ rounding
        for k in 1...r { acc &+= _mulhi(_average(at(m + i - 4 * k), at(m + i + 4 * k)), pairs[k]) }
        UnsafeMutableRawPointer(d + i).storeBytes(of: acc, as: SIMD8<UInt16>.self)
        i += 8
    }
}
