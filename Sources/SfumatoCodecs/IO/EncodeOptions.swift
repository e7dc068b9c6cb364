import SfumatoCore

/// How to encode.
public struct EncodeOptions: Sendable {
    /// Chroma subsampling of JPEG output.
    public enum ChromaSubsampling: Int, Sendable, CaseIterable {
        /// Full-resolution colour.
        case s444 = 444
        /// Half horizontal colour resolution.
        case s422 = 422
        /// Half horizontal and vertical colour resolution (the usual default).
        case s420 = 420
    }

    /// JPEG, lossy WebP and AVIF quality, 1...100 (default 90).
    public var quality: Int = 90
    /// JPEG chroma subsampling (default 4:2:0).
    public var chromaSubsampling: ChromaSubsampling = .s420
    /// PNG bits per channel: 8 or 16 (default 8).
    public var pngBitDepth: Int = 8
    /// PNG zlib level 0...9 (default 6).
    public var pngCompressionLevel: Int = 6
    /// WebP: lossless instead of lossy.
    public var webpLossless = false
    /// Colour that JPEG output (which has no alpha) is composited over, straight sRGB 0...1.
    public var background: SIMD3<Float> = SIMD3(1, 1, 1)
    /// JPEG: the fast integer DCT (slightly less exact; for previews that go out many times a second).
    public var fastDCT = false
    /// What to write beside the pixels (nil: nothing): the EXIF block (orientation 1, dimensions
    /// of the output), the XMP packet and, when the input had a profile, an sRGB profile (the
    /// pixels are sRGB). TIFF writes the XMP packet and the profile, not the EXIF block.
    public var metadata: ImageMetadata? = nil
    /// Threads an in-memory JPEG encoding of a megapixel or more may use, 1...512 (default every
    /// core): each compresses a band of rows, and restart markers join them. 1 writes one
    /// uninterrupted scan; any number gives the same pixels once decoded.
    public var threads: Int = defaultThreadCount

    public init(
        quality: Int = 90, chromaSubsampling: ChromaSubsampling = .s420, pngBitDepth: Int = 8,
        pngCompressionLevel: Int = 6, webpLossless: Bool = false
    ) {
        self.quality = quality
        self.chromaSubsampling = chromaSubsampling
        self.pngBitDepth = pngBitDepth
        self.pngCompressionLevel = pngCompressionLevel
        self.webpLossless = webpLossless
    }

    /// Checks every value against its range.
    public func validate() throws {
        guard (1...100).contains(quality) else {
            throw SfumatoError.invalidArgument("quality must be 1...100, not \(quality)")
        }
        guard pngBitDepth == 8 || pngBitDepth == 16 else {
            throw SfumatoError.invalidArgument("PNG bit depth must be 8 or 16, not \(pngBitDepth)")
        }
        guard (0...9).contains(pngCompressionLevel) else {
            throw SfumatoError.invalidArgument("PNG compression level must be 0...9, not \(pngCompressionLevel)")
        }
        guard (1...512).contains(threads) else {
            throw SfumatoError.invalidArgument("encoder threads must be 1...512, not \(threads)")
        }
    }
}

/// Whether every one of `count` RGBA8 pixels has alpha 255: rows that are need no flattening
/// and go to an encoder as they are. Two pixels a word, ANDed in blocks (which vectorise).
func _isOpaque(_ src: UnsafeRawPointer, _ count: Int) -> Bool {
    let alpha: UInt64 = 0xFF00_0000_FF00_0000
    var x = 0
    while x + 64 <= count {
        var all = alpha
        for i in 0..<32 { all &= src.loadUnaligned(fromByteOffset: 8 * (x / 2 + i), as: UInt64.self) }
        if all != alpha { return false }
        x += 64
    }
    while x < count {
        if src.load(fromByteOffset: 4 * x + 3, as: UInt8.self) != 255 { return false }
        x += 1
    }
    return true
}

/// Straight RGBA8 rows composited over an opaque background (for formats without alpha).
func _flatten(_ src: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>, _ count: Int, background: SIMD3<Float>) {
    let bg = SIMD3<UInt32>(UInt32(background.x * 255 + 0.5), UInt32(background.y * 255 + 0.5), UInt32(background.z * 255 + 0.5))
    for x in 0..<count {
        let s = src + 4 * x, d = dst + 4 * x
        let a = UInt32(s[3])
        if a == 255 {
            if s != UnsafePointer(d) { d[0] = s[0]; d[1] = s[1]; d[2] = s[2] }
        } else {
            for c in 0..<3 { d[c] = UInt8((UInt32(s[c]) * a + bg[c] * (255 - a) + 127) / 255) }
        }
        d[3] = 255
    }
}
