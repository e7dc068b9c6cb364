#if arch(x86_64)
    import SfumatoAVX512
#endif

/// One pass over opaque RGBA8 rows gathering a ``LevelRoute/Summary``: level sums (16 bytes at
/// a time into 16-bit lanes), extremes (16 bytes at a time), or counts (four sets of counters
/// for four neighbouring pixels, so runs of one level do not wait on their own increments).
final class _LevelScan {
    let kind: LevelRoute.Summary
    private var sums = SIMD4<Int>.zero
    private var lowest = SIMD16<UInt8>(repeating: 255), highest = SIMD16<UInt8>(repeating: 0)
    private var pixels = 0
    /// Four sets of 32-bit counters (R, G, B levels), for counts; merged into Ints per band.
    private let sets: UnsafeMutablePointer<UInt32>
    /// Pixels counted into `sets` since they were last emptied (each counter stays below 2^32).
    private var inSets = 0
    /// Counts, `[4 * level + channel]` (for counts).
    private(set) var counts: [Int]

    init(_ kind: LevelRoute.Summary) {
        self.kind = kind
        counts = kind == .counts ? [Int](repeating: 0, count: 4 * 256) : []
        sets = .allocate(capacity: 4 * 768)
        sets.initialize(repeating: 0, count: 4 * 768)
    }

    deinit { sets.deallocate() }

    func add(_ row: UnsafePointer<UInt8>, _ count: Int) {
        pixels += count
        switch kind {
        case .sums: addSums(row, count)
        case .extremes: addExtremes(row, count)
        case .counts: addCounts(row, count)
        }
    }

    func merge(_ other: _LevelScan) {
        other.emptySets()
        emptySets()
        pixels += other.pixels
        sums &+= other.sums
        lowest = pointwiseMin(lowest, other.lowest)
        highest = pointwiseMax(highest, other.highest)
        for i in counts.indices { counts[i] += other.counts[i] }
    }

    /// The summary (`counts` is this scan's counts, when it counted).
    func summary(values: UnsafePointer<Float>, counts: UnsafePointer<Int>?) -> LevelSummary {
        emptySets()
        var lo = SIMD4<UInt8>(repeating: 255), hi = SIMD4<UInt8>(repeating: 0)
        var valueSums = SIMD4<Double>.zero
        if kind == .counts {
            for v in 0..<256 {
                for c in 0..<4 where self.counts[4 * v + c] > 0 {
                    lo[c] = min(lo[c], UInt8(v))
                    hi[c] = max(hi[c], UInt8(v))
                    valueSums[c] += Double(self.counts[4 * v + c]) * Double(values[v])
                }
            }
        } else {
            for k in 0..<16 {
                lo[k % 4] = min(lo[k % 4], lowest[k])
                hi[k % 4] = max(hi[k % 4], highest[k])
            }
            // Only in the `.none` working space (values are levels / 255): the exact mean.
            valueSums = SIMD4<Double>(sums) / 255
        }
        return LevelSummary(values: values, counts: counts, lowest: lo, highest: hi, valueSums: valueSums)
    }

    private func addSums(_ row: UnsafePointer<UInt8>, _ count: Int) {
        let bytes = 4 * count
        var i = 0
        #if arch(x86_64)
            if CPUFeatures.wideVectors && bytes >= 64 {
                i = bytes / 64 * 64
                sums &+= SIMD4<Int>(truncatingIfNeeded: _channelSumsAVX512(row, bytes: i))
            }
        #endif
        var total = SIMD4<UInt32>.zero
        while i + 16 <= bytes {
            // At most 128 blocks into 16-bit lanes (each lane takes two bytes a block): 256 x 255 < 65,536.
            var low = SIMD8<UInt16>.zero, high = SIMD8<UInt16>.zero
            let end = min(bytes - 15, i + 128 * 16)
            while i < end {
                let (l, h) = _widenedBytes(UnsafeRawPointer(row + i).loadUnaligned(as: SIMD16<UInt8>.self))
                low &+= l
                high &+= h
                i += 16
            }
            // Lanes k and k + 4 of each half hold the same channel.
            let both = SIMD8<UInt32>(truncatingIfNeeded: low &+ high)
            total &+= both.lowHalf &+ both.highHalf
        }
        var s = SIMD4<Int>.zero
        for k in 0..<4 { s[k] += Int(total[k]) }
        while i < bytes {
            s[i % 4] += Int(row[i])
            i += 1
        }
        sums &+= s
    }

    private func addExtremes(_ row: UnsafePointer<UInt8>, _ count: Int) {
        let bytes = 4 * count
        var i = 0
        var lo = lowest, hi = highest
        while i + 16 <= bytes {
            let v = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD16<UInt8>.self)
            lo = pointwiseMin(lo, v)
            hi = pointwiseMax(hi, v)
            i += 16
        }
        while i < bytes {
            // Lane k % 16 holds channel k % 4: the tail's pixels go to lanes of their channel.
            lo[i % 4] = min(lo[i % 4], row[i])
            hi[i % 4] = max(hi[i % 4], row[i])
            i += 1
        }
        lowest = lo
        highest = hi
    }

    private func addCounts(_ row: UnsafePointer<UInt8>, _ count: Int) {
        if inSets > Int(UInt32.max) / 2 - count { emptySets() }
        inSets += count
        let sets = sets
        let p = UnsafeRawPointer(row)
        var x = 0
        @inline(__always) func tally(_ set: UnsafeMutablePointer<UInt32>, _ u: UInt32) {
            set[Int(u & 0xFF)] &+= 1
            set[256 + Int((u >> 8) & 0xFF)] &+= 1
            set[512 + Int((u >> 16) & 0xFF)] &+= 1
        }
        while x + 4 <= count {
            let q = p.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt32>.self)
            tally(sets, q.x)
            tally(sets + 768, q.y)
            tally(sets + 1536, q.z)
            tally(sets + 2304, q.w)
            x += 4
        }
        while x < count {
            tally(sets, p.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self))
            x += 1
        }
        counts[4 * 255 + 3] += count  // opaque: alpha 255 everywhere
    }

    /// Moves the 32-bit counters into `counts`.
    private func emptySets() {
        guard kind == .counts, inSets > 0 else { return }
        counts.withUnsafeMutableBufferPointer { c in
            for v in 0..<256 {
                for ch in 0..<3 {
                    let i = 256 * ch + v
                    c[4 * v + ch] += Int(sets[i]) + Int(sets[768 + i]) + Int(sets[1536 + i]) + Int(sets[2304 + i])
                }
            }
        }
        sets.update(repeating: 0, count: 4 * 768)
        inSets = 0
    }
}
