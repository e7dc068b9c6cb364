import CJPEG
import Foundation
import SfumatoCore

extension JPEG {
    /// Encodes an RGBA8 bitmap (straight alpha, composited over `options.background` where not
    /// opaque; an RGB8 one is expanded first), or a Gray8 bitmap as a one-channel JPEG, with its metadata (see ``EncodeOptions``);
    /// an image of a megapixel or more is compressed in bands on every core, joined by restart
    /// markers.
    public static func encode(_ bitmap: Bitmap, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        try options.validate()
        if bitmap.format == .rgb8 { return try encode(try bitmap.expandedToRGBA8(), options: options) }
        guard bitmap.format == .rgba8 || bitmap.format == .gray8 else {
            throw SfumatoError.unsupported("JPEG encoding takes RGBA8, RGB8 or Gray8 bitmaps, not \(bitmap.format)")
        }
        let gray = bitmap.format == .gray8
        try checkSize(bitmap.width, bitmap.height)
        var source = bitmap
        if !gray && !bitmap.isOpaque {
            source = try bitmap.copy()
            for y in 0..<source.height {
                let r = source.row(y).assumingMemoryBound(to: UInt8.self)
                _flatten(r, r, source.width, background: options.background)
            }
        }
        let (icc, blocks) = (options.metadata ?? ImageMetadata())._jpegSegments(
            width: bitmap.width, height: bitmap.height, gray: gray)
        return try withExtendedLifetime(source) {
            try _JPEGSegmentedEncoder.encode(
                rows: source.baseAddress, width: source.width, height: source.height, rowBytes: source.rowBytes, gray: gray,
                options: options, icc: icc, markers: blocks.map { (marker: Int32(JPEG_APP0 + 1), data: $0) })
        }
    }

    /// Encodes rows already in memory without copying them: opaque RGBA8 (alpha ignored), or
    /// grey when `gray`. A region of a bitmap is its first row's address and the bitmap's row bytes.
    public static func encode(
        rows: UnsafeRawPointer, width: Int, height: Int, rowBytes: Int, gray: Bool = false,
        options: EncodeOptions = EncodeOptions()
    ) throws -> [UInt8] {
        try options.validate()
        try checkSize(width, height)
        guard rowBytes >= width * (gray ? 1 : 4) else {
            throw SfumatoError.invalidArgument("JPEG rows of \(width) pixels cannot be \(rowBytes) bytes apart")
        }
        return try _JPEGSegmentedEncoder.encode(
            rows: rows, width: width, height: height, rowBytes: rowBytes, gray: gray, options: options)
    }

    private static func checkSize(_ width: Int, _ height: Int) throws {
        guard width > 0, height > 0, width <= 65_500, height <= 65_500 else {
            throw SfumatoError.invalidArgument("JPEG encoding takes 1...65500 pixels a side, not \(width)x\(height)")
        }
    }
}

extension ImageMetadata {
    /// What a JPEG of `width` x `height` carries: the sRGB profile where the input had one (not in
    /// grey), and the APP1 blocks that fit a marker, EXIF first (viewers look for it in the first
    /// APP1), then XMP.
    func _jpegSegments(width: Int, height: Int, gray: Bool) -> (icc: [UInt8], app1: [[UInt8]]) {
        let blocks = [exif(forUprightWidth: width, height: height), xmp].compactMap { $0 }.filter { $0.count <= 65533 }
        return (hadColorProfile && !gray ? ImageMetadata.sRGBProfile : [], blocks)
    }
}
