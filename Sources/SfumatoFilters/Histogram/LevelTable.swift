import SfumatoCore

/// Maps v through a per-channel table of 256 levels: bin = floor(v x 256) clamped, out = table[bin] / 255.
struct _LevelTable: ChannelCurve {
    let tables: [[UInt8]]
    let name: String
    func apply(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for i in 0..<count {
            var v = p[i]
            for c in 0..<3 {
                let bin = Int((v[c] * 256).bounded(0, 255))
                v[c] = Float(tables[c][bin]) / 255
            }
            p[i] = v
        }
    }
}
