#if arch(x86_64)
    import SfumatoAVX512
#endif

/// One pass over opaque RGBA8 rows gathering a ``LevelRoute/Summary``: level sums (16 bytes at
/// a time into 16-bit lanes), extremes (16 bytes at a time), or counts (four sets of counters
/// for four neighbouring pixels, so runs of one level do not wait on their own increments).
final class _LevelScan {
    let kind: LevelRoute.Summary
    private var sums = SIMD4<Int>.zero
    /// Packed rows' sums not yet in `sums`.
    private var packedLanes = _PackedSumLanes()
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

    deinit {
        sets.deallocate()
        packedLanes.free()
    }

    func add(_ row: UnsafePointer<UInt8>, _ count: Int) {
        pixels += count
        switch kind {
        case .sums: addSums(row, count)
        case .extremes: addExtremes(row, count)
        case .counts: addCounts(row, count)
        }
    }

    /// Adds a row of packed RGB (``PixelFormat/rgb8``, opaque): the same summary as the row
    /// expanded to RGBA8 would give.
    func addPacked(_ row: UnsafePointer<UInt8>, _ count: Int) {
        pixels += count
        switch kind {
        case .sums:
            if packedLanes.isFull(adding: count) { sums &+= packedLanes.fold() }
            var s = packedLanes.add(row, count)
            s[3] = 255 * count
            sums &+= s
        case .extremes:
            let (lo, hi) = _packedExtremes(row, count)
            for c in 0..<4 {
                lowest[c] = min(lowest[c], c == 3 ? 255 : lo[c])
                highest[c] = max(highest[c], c == 3 ? 255 : hi[c])
            }
        case .counts:
            if inSets > Int(UInt32.max) / 2 - count { emptySets() }
            inSets += count
            // Four pixels a step into the four sets, as addCounts does (runs of one level then
            // do not wait on their own increments).
            // Each pixel read as four bytes (its own three and the next pixel's red, ignored),
            // while a next pixel exists.
            @inline(__always) func tally(_ set: UnsafeMutablePointer<UInt32>, _ u: UInt32) {
                set[Int(u & 0xFF)] &+= 1
                set[256 + Int((u >> 8) & 0xFF)] &+= 1
                set[512 + Int((u >> 16) & 0xFF)] &+= 1
            }
            let sets = sets, p = UnsafeRawPointer(row)
            var x = 0
            while x + 5 <= count {
                tally(sets, p.loadUnaligned(fromByteOffset: 3 * x, as: UInt32.self))
                tally(sets + 768, p.loadUnaligned(fromByteOffset: 3 * x + 3, as: UInt32.self))
                tally(sets + 1536, p.loadUnaligned(fromByteOffset: 3 * x + 6, as: UInt32.self))
                tally(sets + 2304, p.loadUnaligned(fromByteOffset: 3 * x + 9, as: UInt32.self))
                x += 4
            }
            while x < count {
                let q = row + 3 * x
                tally(sets, UInt32(q[0]) | UInt32(q[1]) << 8 | UInt32(q[2]) << 16)
                x += 1
            }
            counts[4 * 255 + 3] += count
        }
    }

    func merge(_ other: _LevelScan) {
        other.emptySets()
        emptySets()
        sums &+= packedLanes.fold() &+ other.packedLanes.fold()
        pixels += other.pixels
        sums &+= other.sums
        lowest = _minBytes(lowest, other.lowest)
        highest = _maxBytes(highest, other.highest)
        for i in counts.indices { counts[i] += other.counts[i] }
    }

    /// The summary (`counts` is this scan's counts, when it counted).
    func summary(values: UnsafePointer<Float>, counts: UnsafePointer<Int>?) -> LevelSummary {
        emptySets()
        sums &+= packedLanes.fold()
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
            lo = _minBytes(lo, v)
            hi = _maxBytes(hi, v)
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

/// Lanes of packed RGB byte sums: 32-bit lanes, each the sum of the bytes at one position of
/// every step (192 bytes a step for the 512-bit twin's 192 lanes, then 48 bytes a step for the
/// baseline's 48), so a lane's channel is its position modulo 3; folded into channel sums when
/// the scan ends or before a lane could pass 2^32.
struct _PackedSumLanes {
    static let wide = 192, narrow = 48
    let lanes = UnsafeMutablePointer<UInt32>.allocate(capacity: wide + narrow)
    /// Bytes added since the last fold (a lane takes at most 255 every 48 of them).
    var bytes = 0

    init() { lanes.initialize(repeating: 0, count: Self.wide + Self.narrow) }

    func free() { lanes.deallocate() }

    /// Adds a row (`count` pixels), returning the tail bytes' channel sums (they go straight to sums).
    mutating func add(_ row: UnsafePointer<UInt8>, _ count: Int) -> SIMD4<Int> {
        let total = 3 * count
        bytes += total
        var i = 0
        #if arch(x86_64)
            if CPUFeatures.wideVectors && total >= 192 {
                i = total / 192 * 192
                _packedChannelSumsAVX512(row, bytes: i, lanes: lanes)
            }
        #endif
        while i + 48 <= total {
            // At most 256 steps in 16-bit lanes (a byte a lane a step): 256 x 255 < 65,536.
            var l0 = SIMD8<UInt16>.zero, h0 = l0, l1 = l0, h1 = l0, l2 = l0, h2 = l0
            let end = min(total - 47, i + 256 * 48)
            @inline(__always) func widened(_ at: Int) -> (low: SIMD8<UInt16>, high: SIMD8<UInt16>) {
                _widenedBytes(UnsafeRawPointer(row + at).loadUnaligned(as: SIMD16<UInt8>.self))
            }
            while i < end {
                let (a, b) = widened(i), (c, d) = widened(i + 16), (e, f) = widened(i + 32)
                l0 &+= a; h0 &+= b; l1 &+= c; h1 &+= d; l2 &+= e; h2 &+= f
                i += 48
            }
            // Lane j of the v-th half holds byte 8v + j of each step.
            let narrow = lanes + Self.wide
            for (v, half) in [l0, h0, l1, h1, l2, h2].enumerated() {
                for j in 0..<8 { narrow[8 * v + j] &+= UInt32(half[j]) }
            }
        }
        var tail = SIMD4<Int>.zero
        while i < total {
            tail[i % 3] += Int(row[i])
            i += 1
        }
        return tail
    }

    /// Whether lanes should be folded before `count` more pixels.
    func isFull(adding count: Int) -> Bool { bytes + 3 * count > 1 << 28 }

    /// The channel sums in the lanes, which are emptied.
    mutating func fold() -> SIMD4<Int> {
        var sums = SIMD4<Int>.zero
        // The wide lanes: vector k / 2 of a step, its even (k even) or odd bytes, in 16-bit words
        // w, even words first (see _packedChannelSumsAVX512).
        for k in 0..<6 {
            for m in 0..<32 {
                let w = m < 16 ? 2 * m : 2 * (m - 16) + 1
                sums[(64 * (k / 2) + 2 * w + k % 2) % 3] += Int(lanes[32 * k + m])
            }
        }
        for p in 0..<Self.narrow { sums[p % 3] += Int(lanes[Self.wide + p]) }
        lanes.update(repeating: 0, count: Self.wide + Self.narrow)
        bytes = 0
        return sums
    }
}

/// Per-channel least and greatest levels of a packed RGB row (lanes 0, 1, 2 of the results).
func _packedExtremes(_ row: UnsafePointer<UInt8>, _ count: Int) -> (SIMD4<UInt8>, SIMD4<UInt8>) {
    let bytes = 3 * count
    var lo0 = SIMD16<UInt8>(repeating: 255), lo1 = lo0, lo2 = lo0
    var hi0 = SIMD16<UInt8>.zero, hi1 = hi0, hi2 = hi0
    var i = 0
    while i + 48 <= bytes {
        let p = UnsafeRawPointer(row + i)
        let a = p.loadUnaligned(as: SIMD16<UInt8>.self), b = p.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
        let c = p.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self)
        lo0 = _minBytes(lo0, a); lo1 = _minBytes(lo1, b); lo2 = _minBytes(lo2, c)
        hi0 = _maxBytes(hi0, a); hi1 = _maxBytes(hi1, b); hi2 = _maxBytes(hi2, c)
        i += 48
    }
    var low = SIMD4<UInt8>(repeating: 255), high = SIMD4<UInt8>.zero
    for (k, (lo, hi)) in [(lo0, hi0), (lo1, hi1), (lo2, hi2)].enumerated() {
        for j in 0..<16 {
            low[(16 * k + j) % 3] = min(low[(16 * k + j) % 3], lo[j])
            high[(16 * k + j) % 3] = max(high[(16 * k + j) % 3], hi[j])
        }
    }
    while i < bytes {
        low[i % 3] = min(low[i % 3], row[i])
        high[i % 3] = max(high[i % 3], row[i])
        i += 1
    }
    return (low, high)
}
