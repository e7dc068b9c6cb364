import Foundation

/// The file formats Sfumato reads and writes.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    /// JPEG (libjpeg-turbo).
    case jpeg
    /// PNG (libspng).
    case png
    /// WebP, lossy or lossless (libwebp).
    case webp
    /// HEIC/HEIF, as phones write (libheif with libde265); read only.
    case heif
    /// AVIF, HEIF's AV1 form (libheif with dav1d or libaom).
    case avif
    /// TIFF, 8 or 16 bits (libtiff).
    case tiff

    /// The format a file's first bytes announce, or nil.
    ///
    /// ```swift
    /// ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0])   // .jpeg
    /// ```
    public static func sniff<C: Collection>(_ bytes: C) -> ImageFormat? where C.Element == UInt8 {
        let b = Array(bytes.prefix(12))
        if b.count >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF { return .jpeg }
        if b.count >= 8 && b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if b.count >= 12 && b[0..<4] == [0x52, 0x49, 0x46, 0x46] && b[8..<12] == [0x57, 0x45, 0x42, 0x50] { return .webp }
        if b.count >= 4 && (b[0..<4] == [0x49, 0x49, 0x2A, 0x00] || b[0..<4] == [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if b.count >= 4 && (b[0..<4] == [0x49, 0x49, 0x2B, 0x00] || b[0..<4] == [0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }  // BigTIFF
        if b.count >= 12 && b[4..<8] == [0x66, 0x74, 0x79, 0x70] {  // an ISO base media "ftyp" box
            switch String(decoding: b[8..<12], as: UTF8.self) {
            case "avif", "avis": return .avif
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": return .heif
            default: return nil
            }
        }
        return nil
    }

    /// The format a file name's extension names (`.jpg`, `.jpeg`, `.png`, `.webp`, `.heic`,
    /// `.heif`, `.avif`, `.tif`, `.tiff`, any case), or nil.
    public static func fromExtension(of path: String) -> ImageFormat? {
        byExtension[(path as NSString).pathExtension.lowercased()]
    }

    /// The extensions ``fromExtension(of:)`` knows, lower case, without the dot.
    public static var fileExtensions: Set<String> { Set(byExtension.keys) }

    private static let byExtension: [String: ImageFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "jpe": .jpeg, "jfif": .jpeg, "png": .png, "webp": .webp,
        "heic": .heif, "heif": .heif, "hif": .heif, "avif": .avif, "tif": .tiff, "tiff": .tiff
    ]

    /// The format named by `--format` (`jpeg`, `jpg`, `png`, `webp`, `avif`, `tiff`, `tif`), or
    /// nil. HEIC is read but not written, so `heic` names no output format.
    public init?(name: String) {
        switch name.lowercased() {
        case "jpeg", "jpg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "tiff", "tif": self = .tiff
        default: return nil
        }
    }

    /// Whether Sfumato can write this format (all but HEIC).
    public var isWritable: Bool { self != .heif }

    /// Why this format cannot be written, as a sentence for an error message; nil when it can.
    public var writeRefusal: String? {
        isWritable ? nil : "Sfumato reads HEIC but does not write it; write AVIF (.avif), its AV1 form, or JPEG"
    }

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heif: "heic"
        case .avif: "avif"
        case .tiff: "tif"
        }
    }

    /// The media type, as HTTP names it.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heif: "image/heic"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        }
    }

    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .heif: "HEIF"
        case .avif: "AVIF"
        case .tiff: "TIFF"
        }
    }
}

/// How to decode.
public struct DecodeOptions: Sendable {
    /// Largest image accepted, in pixels (width x height), checked against the header before
    /// any pixel memory is allocated. Default 200 megapixels; 1...2,000,000,000.
    public var pixelLimit: Int = 200_000_000
    /// Shrink factor for JPEG previews: 1, 2, 4 or 8 (DCT-domain scaling, nearly free).
    /// Other formats ignore it.
    public var jpegScale: Int = 1
    /// Turn the image upright by its EXIF orientation.
    public var applyOrientation = true
    /// Convert embedded ICC profiles to sRGB with lcms2.
    public var convertToSRGB = true
    /// Decode greyscale files to ``PixelFormat/gray8`` bitmaps (a byte a pixel) instead of RGBA8:
    /// PNGs of 1 to 8 bits without transparency, and one-channel JPEGs, when no colour profile
    /// needs converting. Other files decode as always.
    public var keepGray = false
    /// Decode colour files without alpha to packed ``PixelFormat/rgb8`` bitmaps (3 bytes a pixel,
    /// a quarter less memory than RGBA8) instead of RGBA8. JPEG and 8-bit PNG decode to it
    /// directly when no colour profile needs converting; other opaque 8-bit results are packed
    /// after decoding. Files with alpha, 16-bit files and grey files kept as grey decode as always.
    public var packRGB = false

    public init(
        pixelLimit: Int = 200_000_000, jpegScale: Int = 1, applyOrientation: Bool = true,
        convertToSRGB: Bool = true, keepGray: Bool = false, packRGB: Bool = false
    ) {
        self.pixelLimit = pixelLimit
        self.jpegScale = jpegScale
        self.applyOrientation = applyOrientation
        self.convertToSRGB = convertToSRGB
        self.keepGray = keepGray
        self.packRGB = packRGB
    }
}

/// What a file's header says, without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
    /// The container format.
    public var format: ImageFormat
    /// Stored width (before orientation).
    public var width: Int
    /// Stored height (before orientation).
    public var height: Int
    /// EXIF orientation 1...8 (1 when absent).
    public var orientation: Int = 1
    /// Bits per channel in the file (1 to 16; 8 or 16 for most).
    public var bitsPerChannel: Int = 8
    /// Colour channels in the file (1 grey, 3 RGB, 4 CMYK).
    public var colorChannels: Int = 3
    /// Whether the file stores alpha.
    public var hasAlpha = false
    /// The embedded ICC profile's description, if any.
    public var iccProfile: String?
    /// For WebP: whether the bitstream is lossless.
    public var lossless: Bool?
    /// EXIF, XMP and whether there was a colour profile (read from JPEG files).
    public var metadata = ImageMetadata()

    /// The longest side a header may claim (16,777,216 pixels): a file claiming more is refused
    /// as too large before anything else, so sizes and their products stay far inside `Int`.
    public static let maximumSide = 1 << 24

    /// Width and height after orientation.
    public var orientedSize: (width: Int, height: Int) {
        orientation >= 5 ? (height, width) : (width, height)
    }

    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}

/// A decoded image: its pixels (RGBA8 or RGBA16, straight alpha, sRGB, upright) and header facts.
public struct DecodedImage: Sendable {
    /// The pixels.
    public var bitmap: Bitmap
    /// What the header said.
    public var info: ImageInfo

    /// Every decoder's last steps: the embedded profile `icc` converted to sRGB (when the options
    /// ask for it and lcms2 can read it; Gray8 is left alone), opacity declared for a file without
    /// alpha, an opaque RGBA8 result packed to RGB8 when the options ask for it, and the
    /// orientation applied.
    static func finishing(_ bitmap: Bitmap, info: ImageInfo, icc: [UInt8]? = nil, options: DecodeOptions) throws -> DecodedImage {
        var bitmap = bitmap
        if options.convertToSRGB, !bitmap.format.isAlwaysOpaque, let icc,
            let t = _ColorTransform(icc: icc, sixteenBit: bitmap.format == .rgba16)
        {
            t.apply(to: bitmap)
        }
        if !info.hasAlpha { bitmap.declareOpaque() }
        if options.packRGB && bitmap.format == .rgba8 && !info.hasAlpha { bitmap = try bitmap.packedToRGB8() }
        let oriented = options.applyOrientation ? try bitmap.oriented(info.orientation) : bitmap
        return DecodedImage(bitmap: oriented, info: info)
    }
}

func _checkLimit(_ w: Int, _ h: Int, _ options: DecodeOptions, _ name: String) throws {
    guard w > 0, h > 0 else { throw SfumatoError.corrupt("\(name): image has no pixels (\(w)x\(h))") }
    let limit = min(max(options.pixelLimit, 1), Bitmap.maximumPixelCount)
    if w > limit / h {
        // In Double: a TIFF's sides are 32-bit, so their product can pass Int's range.
        let megapixels = Int(Double(w) * Double(h) / 1_000_000)
        throw SfumatoError.tooLarge("\(name): \(w)x\(h) is \(megapixels) megapixels, over the limit of \(limit / 1_000_000) megapixels")
    }
}

import SfumatoCore
