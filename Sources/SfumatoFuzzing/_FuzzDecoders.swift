import SfumatoCodecs
import SfumatoCore

/// Decoders: the header facts, then a whole decode with and without orientation, colour
/// conversion, grey and packed RGB, under a small pixel limit (so a fuzzer spends its time on parsing).
enum _FuzzDecoders {
    static func run(_ data: [UInt8]) {
        _ = try? ImageIO.info(bytes: data, name: "fuzz")
        let flags = data.last ?? 0
        var options = DecodeOptions(pixelLimit: 1 << 20)
        options.applyOrientation = flags & 1 == 0
        options.convertToSRGB = flags & 2 == 0
        options.keepGray = flags & 4 != 0
        options.jpegScale = [1, 2, 4, 8][Int(flags >> 3) & 3]
        options.packRGB = flags & 32 != 0
        if let decoded = try? ImageIO.read(bytes: data, name: "fuzz", options: options) {
            // What came out is a real bitmap: every row readable, re-encodable.
            _ = try? ImageIO.encode(decoded.bitmap, format: .png, options: EncodeOptions(pngCompressionLevel: 0))
        }
    }
}
