import SfumatoCore
#if arch(x86_64)
    import SfumatoAVX512
#endif

// 5x5 and 7x7 medians of 8-bit tiles by the generated networks of MedianNetworks.swift.
//
// Per output row: every input column of the window's height is sorted once (phase 1), then
// blocks of four neighbouring outputs are merged from the sorted columns (phase 2). Lanes are
// laid out so that those four outputs are neighbours in every lane: the sorted columns are kept
// in four phase planes, plane k holding the pixels x ≡ k (mod 4) of the row, so 16 bytes from
// plane k at pixel p hold the pixels p, p + 4, p + 8, p + 12 (four channels each). The block
// at pixel P computes the vectors of pixels P + k + 4m (k = 0...3 the output, m = 0...3 the lane),
// which a 4x4 transpose of 32-bit lanes turns back into 16 consecutive pixels.

extension _MedianKernel {
    /// `diameter` 5 or 7.
    func medianBlocks(input: ByteTile, output: ByteTile, scratch: TileScratch) {
        let out = output.rect
        let n = diameter, r = radius
        let w = out.width
        let blocks = (w + 15) / 16
        let groups = blocks + 1  // input pixels 0 ..< 16 * groups cover w + 2r and every read
        let inputWidth = w + 2 * r
        let planeBytes = 16 * groups + 64
        let planes = UnsafeMutableRawPointer(scratch.buffer(of: UInt8.self, count: n * 4 * planeBytes + 64))
        let partial = UnsafeMutableRawPointer(scratch.buffer(of: UInt8.self, count: 64))
        let columns = scratch.buffer(of: SIMD16<UInt8>.self, count: 4 * n)
        let slots = scratch.buffer(of: SIMD16<UInt8>.self, count: max(_medians5x5Slots, _medians7x7Slots))
        #if arch(x86_64)
            let wideSlots: UnsafeMutableRawPointer? =
                CPUFeatures.wideVectors
                ? UnsafeMutableRawPointer(scratch.buffer(of: UInt8.self, count: 64 * max(_medians5x5AVX512Slots, _medians7x7AVX512Slots)))
                : nil
        #endif
        @inline(__always) func plane(_ rank: Int, _ phase: Int) -> UnsafeMutableRawPointer {
            planes + (rank * 4 + phase) * planeBytes
        }
        // Each input row in the phase layout (a 4x4 transpose per 16 pixels), made once and kept
        // in a ring of the window's n rows: output row y reads rows y - r ... y + r, and the next
        // output row needs only one new one (transposing every window row for every output row
        // was about 40% of phase 1). A ring row holds its four phases one after the other, each
        // padded, so that phase 1 reads four groups of one phase as 64 contiguous bytes.
        let phaseBytes = 16 * groups + 64
        let ringRowBytes = 4 * phaseBytes
        let ring = UnsafeMutableRawPointer(scratch.buffer(of: UInt8.self, count: n * ringRowBytes + 64))
        let windowRows = scratch.buffer(of: UnsafeRawPointer.self, count: n)
        func transposeRow(_ iy: Int) {
            let slot = ring + ((iy % n + n) % n) * ringRowBytes
            for g in 0..<groups {
                let first = 16 * g
                let count = min(16, inputWidth - first)
                var p = UnsafeRawPointer(input.pointer(x: out.x - r + first, y: iy))
                if count < 16 {
                    // The row's end (or past it): a zero-padded copy, never a read past the tile.
                    partial.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
                    if count > 0 { partial.copyMemory(from: p, byteCount: 4 * count) }
                    p = UnsafeRawPointer(partial)
                }
                let t = _transpose4x4(
                    p.loadUnaligned(as: SIMD16<UInt8>.self),
                    p.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self),
                    p.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self),
                    p.loadUnaligned(fromByteOffset: 48, as: SIMD16<UInt8>.self))
                slot.storeBytes(of: t.0, toByteOffset: 16 * g, as: SIMD16<UInt8>.self)
                slot.storeBytes(of: t.1, toByteOffset: phaseBytes + 16 * g, as: SIMD16<UInt8>.self)
                slot.storeBytes(of: t.2, toByteOffset: 2 * phaseBytes + 16 * g, as: SIMD16<UInt8>.self)
                slot.storeBytes(of: t.3, toByteOffset: 3 * phaseBytes + 16 * g, as: SIMD16<UInt8>.self)
            }
        }
        for iy in (out.y - r)..<(out.y + r) { transposeRow(iy) }
        for y in out.y..<out.maxY {
            transposeRow(y + r)
            // Phase 1: sort each input column's n rows, into the phase planes.
            for dy in 0..<n { windowRows[dy] = UnsafeRawPointer(ring + (((y - r + dy) % n + n) % n) * ringRowBytes) }
            var g = 0
            #if arch(x86_64)
                // Four groups at once on 64 bytes (reads and writes past the last group stay in
                // the padding of each phase and plane).
                if wideSlots != nil {
                    while g < groups {
                        for phase in 0..<4 {
                            let at = phase * phaseBytes + 16 * g
                            if n == 5 {
                                _sortColumns5AVX512(windowRows, at: at, into: planes, planeBytes, phase: phase, first: 16 * g)
                            } else {
                                _sortColumns7AVX512(windowRows, at: at, into: planes, planeBytes, phase: phase, first: 16 * g)
                            }
                        }
                        g += 4
                    }
                }
            #endif
            while g < groups {
                let first = 16 * g
                for phase in 0..<4 {
                    let column = columns + phase * n
                    for dy in 0..<n { column[dy] = windowRows[dy].load(fromByteOffset: phase * phaseBytes + 16 * g, as: SIMD16<UInt8>.self) }
                    if n == 5 { _sort5(column) } else { _sort7(column) }
                    for rank in 0..<n { plane(rank, phase).storeBytes(of: column[rank], toByteOffset: first, as: SIMD16<UInt8>.self) }
                }
                g += 1
            }
            // Phase 2: blocks of 16 output pixels; output k of a block is column k of its window.
            let d = UnsafeMutableRawPointer(output.row(y))
            func store(block: Int, _ m: (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>)) {
                let first = 16 * block
                let t = _transpose4x4(m.0, m.1, m.2, m.3)
                let target = first + 16 <= w ? d + 4 * first : partial
                target.storeBytes(of: t.0, as: SIMD16<UInt8>.self)
                target.storeBytes(of: t.1, toByteOffset: 16, as: SIMD16<UInt8>.self)
                target.storeBytes(of: t.2, toByteOffset: 32, as: SIMD16<UInt8>.self)
                target.storeBytes(of: t.3, toByteOffset: 48, as: SIMD16<UInt8>.self)
                if target == partial { (d + 4 * first).copyMemory(from: partial, byteCount: 4 * (w - first)) }
            }
            var block = 0
            #if arch(x86_64)
                // Four blocks at once on 64 bytes: the phase planes hold them one after the other
                // (reads past the last block stay in each plane's padding; those results are dropped).
                if let wideSlots {
                    while block < blocks {
                        let outputs: (Int, Int, Int, Int)
                        if n == 5 {
                            _medians5x5AVX512(planes + 16 * block, planeBytes, wideSlots)
                            outputs = _medians5x5AVX512Outputs
                        } else {
                            _medians7x7AVX512(planes + 16 * block, planeBytes, wideSlots)
                            outputs = _medians7x7AVX512Outputs
                        }
                        for k in 0..<min(4, blocks - block) {
                            func lane(_ slot: Int) -> SIMD16<UInt8> {
                                UnsafeRawPointer(wideSlots).loadUnaligned(fromByteOffset: 64 * slot + 16 * k, as: SIMD16<UInt8>.self)
                            }
                            store(block: block + k, (lane(outputs.0), lane(outputs.1), lane(outputs.2), lane(outputs.3)))
                        }
                        block += 4
                    }
                }
            #endif
            while block < blocks {
                let first = 16 * block
                // Column c of the block starts at pixel first + c: plane c % 4, position (first + c) / 4.
                if n == 5 {
                    _medians5x5(planes + first, planeBytes, slots)
                    let o = _medians5x5Outputs
                    store(block: block, (slots[o.0], slots[o.1], slots[o.2], slots[o.3]))
                } else {
                    _medians7x7(planes + first, planeBytes, slots)
                    let o = _medians7x7Outputs
                    store(block: block, (slots[o.0], slots[o.1], slots[o.2], slots[o.3]))
                }
                block += 1
            }
        }
    }
}

/// Transposes four vectors of four 32-bit lanes (pixels): lane m of result k is lane k of vector m.
@inline(__always)
func _transpose4x4(
    _ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>, _ c: SIMD16<UInt8>, _ d: SIMD16<UInt8>
)
    -> (SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>, SIMD16<UInt8>)
{
    let a = unsafeBitCast(a, to: SIMD4<UInt32>.self), b = unsafeBitCast(b, to: SIMD4<UInt32>.self)
    let c = unsafeBitCast(c, to: SIMD4<UInt32>.self), d = unsafeBitCast(d, to: SIMD4<UInt32>.self)
    @inline(__always) func bytes(_ v: SIMD4<UInt32>) -> SIMD16<UInt8> { unsafeBitCast(v, to: SIMD16<UInt8>.self) }
    return (
        bytes(SIMD4(a[0], b[0], c[0], d[0])), bytes(SIMD4(a[1], b[1], c[1], d[1])),
        bytes(SIMD4(a[2], b[2], c[2], d[2])), bytes(SIMD4(a[3], b[3], c[3], d[3]))
    )
}
