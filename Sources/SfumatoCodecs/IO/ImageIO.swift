import Foundation
import SfumatoCore

/// A destination for rows that becomes a file when finished (and no file at all otherwise).
public protocol ImageFileWriter: RowSink {
    /// Completes the file: flushes, closes and moves it into place.
    func finish() throws
}

/// Reading and writing image files of any supported format.
///
/// ```swift
/// let photo = try ImageIO.read(path: "photo.jpg")                 // DecodedImage
/// let image = try ImageIO.open(path: "photo.jpg")                 // Image, streamed when possible
/// try ImageIO.write(bitmap, to: "out.png")
/// ```
public enum ImageIO {
    /// Reads a whole file into memory (`-` reads standard input), refusing files over 4 GB.
    public static func readBytes(path: String) throws -> [UInt8] {
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return [UInt8](data)
        }
        guard let f = fopen(path, "rb") else {
            throw SfumatoError.io("\(path): cannot open (\(String(cString: strerror(errno))))")
        }
        defer { fclose(f) }
        var st = stat()
        guard fstat(fileno(f), &st) == 0 else { throw SfumatoError.io("\(path): cannot read") }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw SfumatoError.io("\(path): is a folder, not an image") }
        let size = Int(st.st_size)
        guard size <= 4 << 30 else { throw SfumatoError.tooLarge("\(path): file of \(size) bytes is too large") }
        var bytes = [UInt8](repeating: 0, count: size)
        let n = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, size, f) }
        guard n == size else { throw SfumatoError.io("\(path): read failed") }
        return bytes
    }

    /// The format of some bytes, or a clear error.
    public static func format(of bytes: [UInt8], name: String) throws -> ImageFormat {
        if bytes.isEmpty { throw SfumatoError.truncated("\(name): empty file") }
        guard let f = ImageFormat.sniff(bytes) else {
            throw SfumatoError.unsupported("\(name): not a JPEG, PNG, WebP, HEIF, AVIF or TIFF image")
        }
        return f
    }

    /// Header facts of image bytes.
    public static func info(bytes: [UInt8], name: String = "image") throws -> ImageInfo {
        switch try format(of: bytes, name: name) {
        case .jpeg: try JPEG.info(bytes, name: name)
        case .png: try PNG.info(bytes, name: name)
        case .webp: try WebP.info(bytes, name: name)
        case .heif, .avif: try HEIF.info(bytes, name: name)
        case .tiff: try TIFF.info(bytes, name: name)
        }
    }

    /// Header facts of an image file.
    public static func info(path: String) throws -> ImageInfo {
        // A JPEG's header is read from the file: a batch asks every file for its size first, and
        // reading whole files for that cost a copy of each in memory.
        if path != "-", sniffFile(path) == .jpeg { return try _JPEGDecoder(path: path).info }
        return try info(bytes: try readBytes(path: path), name: path)
    }

    /// The format of a file from its first bytes, or nil (unreadable, unknown, standard input).
    static func sniffFile(_ path: String) -> ImageFormat? {
        var head = [UInt8](repeating: 0, count: 12)
        guard let f = fopen(path, "rb") else { return nil }
        let n = fread(&head, 1, 12, f)
        fclose(f)
        return ImageFormat.sniff(Array(head.prefix(n)))
    }

    /// Decodes image bytes (JPEG, PNG, WebP, HEIF, AVIF or TIFF, by content) to an upright sRGB bitmap.
    public static func read(bytes: [UInt8], name: String = "image", options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        switch try format(of: bytes, name: name) {
        case .jpeg: try JPEG.decode(bytes, name: name, options: options)
        case .png: try PNG.decode(bytes, name: name, options: options)
        case .webp: try WebP.decode(bytes, name: name, options: options)
        case .heif, .avif: try HEIF.decode(bytes, name: name, options: options)
        case .tiff: try TIFF.decode(bytes, name: name, options: options)
        }
    }

    /// Decodes an image file.
    public static func read(path: String, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        try read(bytes: try readBytes(path: path), name: path, options: options)
    }

    /// An image recipe for a file. JPEG and non-interlaced PNG files that need no rotation are
    /// streamed (decoded row by row while rendering, so the whole image is never in memory);
    /// others are decoded first.
    public static func open(path: String, options: DecodeOptions = DecodeOptions()) throws -> (Image, ImageInfo) {
        if path != "-" {
            if sniffFile(path) == .jpeg {
                let source = try JPEGRowSource(path: path, options: options)
                if source.info.orientation == 1 || !options.applyOrientation {
                    // Decode the first rows now so damage in the header shows up as an error here.
                    return (Image(rows: source), source.info)
                }
            }
        }
        let bytes = try readBytes(path: path)
        if try format(of: bytes, name: path) == .png {
            let probe = try _PNGDecoder(bytes: bytes, name: path, options: options)
            if !probe.interlaced && (probe.info.orientation == 1 || !options.applyOrientation) {
                return (Image(rows: PNGRowSource(bytes: bytes, name: path, options: options, probe: probe)), probe.info)
            }
        }
        let decoded = try read(bytes: bytes, name: path, options: options)
        return (Image(bitmap: decoded.bitmap), decoded.info)
    }

    /// Encodes a bitmap (RGBA8, or Gray8; RGBA16 for 16-bit PNG and TIFF) in a format.
    public static func encode(_ bitmap: Bitmap, format: ImageFormat, options: EncodeOptions = EncodeOptions()) throws -> [UInt8] {
        switch format {
        case .jpeg: try JPEG.encode(bitmap, options: options)
        case .png: try PNG.encode(bitmap, options: options)
        case .webp: try WebP.encode(bitmap, options: options)
        case .avif: try HEIF.encodeAVIF(bitmap, options: options)
        case .tiff: try TIFF.encode(bitmap, options: options)
        case .heif: throw SfumatoError.unsupported(format.writeRefusal ?? "")
        }
    }

    /// Writes a bitmap to a file atomically, in the format its extension names (or `format`).
    public static func write(
        _ bitmap: Bitmap, to path: String, format: ImageFormat? = nil,
        options: EncodeOptions = EncodeOptions()
    ) throws {
        guard let f = format ?? ImageFormat.fromExtension(of: path) else {
            throw SfumatoError.unsupported("\(path): cannot tell the output format from the name; use .jpg, .png, .webp, .avif or .tif")
        }
        try writeFileAtomically(try encode(bitmap, format: f, options: options), to: path)
    }

    /// A writer that takes straight RGBA8 rows (RGBA16 when `sixteenBit`; one byte a pixel when
    /// `gray`, written as a greyscale file) top to bottom and produces the file when finished.
    /// JPEG and PNG stream; WebP, AVIF and TIFF collect the image first.
    public static func makeWriter(
        path: String, format: ImageFormat, width: Int, height: Int, hasAlpha: Bool,
        sixteenBit: Bool = false, gray: Bool = false,
        options: EncodeOptions = EncodeOptions()
    ) throws -> any ImageFileWriter {
        try options.validate()
        switch format {
        case .jpeg:
            return try _JPEGFileWriter(path: path, width: width, height: height, gray: gray, options: options)
        case .png:
            return try _PNGWriter(
                path: path, width: width, height: height, sixteenBit: sixteenBit, alpha: hasAlpha,
                gray: gray, options: options, inputSixteenBit: sixteenBit)
        case .webp, .avif, .tiff:
            return try _CollectingWriter(
                path: path, width: width, height: height, format: format,
                pixelFormat: gray ? .gray8 : sixteenBit && format == .tiff ? .rgba16 : .rgba8, options: options)
        case .heif:
            throw SfumatoError.unsupported("\(path): \(format.writeRefusal ?? "")")
        }
    }
}

/// Gathers rows into a bitmap and encodes it at the end (for formats without row streaming).
final class _CollectingWriter: ImageFileWriter {
    let bitmap: Bitmap
    let path: String
    let format: ImageFormat
    let options: EncodeOptions
    private var row = 0

    init(
        path: String, width: Int, height: Int, format: ImageFormat, pixelFormat: PixelFormat = .rgba8,
        options: EncodeOptions
    ) throws {
        bitmap = try Bitmap(width: width, height: height, format: pixelFormat, alpha: .straight)
        self.path = path
        self.format = format
        self.options = options
    }

    func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws {
        for r in 0..<count {
            memcpy(bitmap.row(row + r), rows + r * rowBytes, bitmap.rowBytes)
        }
        row += count
    }

    func finish() throws {
        try ImageIO.write(bitmap, to: path, format: format, options: options)
    }
}
