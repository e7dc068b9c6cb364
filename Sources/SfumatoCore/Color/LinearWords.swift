import Foundation

/// Tables for kernels that compute linear light on 16-bit words: 8-bit sRGB in, 8-bit sRGB out,
/// and in between linear values scaled to 0...65280 (the range of a byte times 256, so kernels
/// written for bytes-as-words keep their overflow margins and rounding constants).
///
/// One level of 8-bit sRGB is at least 19.8 units of this scale (at the dark end, where the curve
/// is the straight 1/12.92 segment), so a kernel whose words stay within 19 units of the exact
/// linear result gives the float route's byte or its neighbour.
public final class _LinearWords: @unchecked Sendable {
    public static let shared = _LinearWords()

    /// The scale: linear 1.0 is this word.
    public static let one = 65280

    /// What byte kernels add before their final shift (half a level, x 256); a linear-light
    /// variant adds it too, and its encoding table's offset takes it off again.
    public static let rounding = 128

    /// decode(k / 255) x 65280, rounded, for k in 0...255.
    public let decode: UnsafeMutablePointer<UInt16>
    private let lock = NSLock()
    private var encodings: [Int: UnsafeMutablePointer<UInt8>] = [:]

    init() {
        decode = .allocate(capacity: 256)
        for k in 0..<256 { decode[k] = UInt16((SRGB.decode(Double(k) / 255) * Double(Self.one)).rounded()) }
    }

    /// The sRGB byte of every word w in 0...65535: encode((w − offset) / 65280), correctly rounded
    /// (``_SRGBTables/encodeToByte(_:)``, as float tiles are stored). `offset` is what a kernel's
    /// words carry above the linear value: its rounding constant less its expected truncation.
    /// Built once per offset (64 KiB), kept for the process.
    public func encode(offset: Int) -> UnsafePointer<UInt8> {
        lock.lock()
        defer { lock.unlock() }
        if let t = encodings[offset] { return UnsafePointer(t) }
        let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 65536)
        let srgb = _SRGBTables.shared
        for w in 0..<65536 { t[w] = srgb.encodeToByte(Float(w - offset) / Float(Self.one)) }
        encodings[offset] = t
        return UnsafePointer(t)
    }
}
