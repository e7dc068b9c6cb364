import Foundation
import SfumatoCodecs
import SfumatoCore

/// Test photographs and temporary folders, shared by every test target.
public enum Fixtures {
    /// The repository's root folder.
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The public-domain and CC0 photos copied into the repository (Tests/Fixtures/photos).
    public static let photoFolder = root.appendingPathComponent("Tests/Fixtures/photos")

    /// Names of the bundled photos.
    public static let bundledPhotos = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "hubble_deep_field.jpg", "rocket.jpg"]

    /// More photos to test on, which may be used in tests but not shipped (a camera original
    /// without a licence, say): the paths in `SFUMATO_EXTRA_PHOTOS`, separated by colons.
    public static var extraPhotos: [String] {
        (ProcessInfo.processInfo.environment["SFUMATO_EXTRA_PHOTOS"] ?? "").split(separator: ":").map(String.init)
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Paths of every available real photo.
    public static var photoPaths: [String] {
        bundledPhotos.map { photoFolder.appendingPathComponent($0).path } + extraPhotos
    }

    /// Path of a bundled photo.
    public static func path(_ name: String) -> String { photoFolder.appendingPathComponent(name).path }

    /// A bundled photo decoded (RGBA8, straight, upright, sRGB).
    public static func photo(_ name: String) throws -> Bitmap {
        try ImageIO.read(path: path(name)).bitmap
    }

    /// A fresh empty folder under the system's temporary folder.
    public static func temporaryFolder(_ label: String = "test") throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sfumato-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// Bitmap helpers for tests.
public enum Pixels {
    /// A bitmap from a function of (x, y) giving straight RGBA 0...1.
    public static func make(
        _ w: Int, _ h: Int, format: PixelFormat = .rgba8, alpha: AlphaMode = .straight,
        encoding: ColorEncoding? = nil, _ f: (Int, Int) -> SIMD4<Float>
    ) throws -> Bitmap {
        let b = try Bitmap(width: w, height: h, format: format, encoding: encoding, alpha: alpha)
        for y in 0..<h { for x in 0..<w { b.setPixel(x: x, y: y, f(x, y)) } }
        return b
    }

    /// A deterministic pseudo-random bitmap (xorshift), opaque unless `alpha` is true.
    public static func noise(_ w: Int, _ h: Int, seed: UInt64 = 1, alpha: Bool = false) throws -> Bitmap {
        var s = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next() -> Float {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return Float(s % 256) / 255
        }
        return try make(w, h) { _, _ in SIMD4(next(), next(), next(), alpha ? next() : 1) }
    }

    /// The largest difference between two bitmaps of equal size, per channel, in the stored
    /// units (levels for 8-bit, values for float).
    public static func maxDifference(_ a: Bitmap, _ b: Bitmap) -> Float {
        precondition(a.width == b.width && a.height == b.height && a.format == b.format)
        let scale: Float = a.format.bitsPerChannel == 8 ? 255 : (a.format == .rgba16 ? 65535 : 1)
        var m: Float = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let v = a.pixel(x: x, y: y) - b.pixel(x: x, y: y)
                let d = v.replacing(with: -v, where: v .< 0) * scale
                m = max(m, d.max())
            }
        }
        return m
    }

    /// Mean absolute difference per channel (RGB) in stored units.
    public static func meanDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.format == b.format)
        let scale: Float = a.format.bitsPerChannel == 8 ? 255 : (a.format == .rgba16 ? 65535 : 1)
        var total = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let v = a.pixel(x: x, y: y) - b.pixel(x: x, y: y)
                let d = v.replacing(with: -v, where: v .< 0) * scale
                total += Double(d.x + d.y + d.z)
            }
        }
        return total / Double(3 * a.width * a.height)
    }

    /// Peak signal-to-noise ratio of 8-bit RGB, in dB.
    public static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        var se = 0.0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let d = (a.pixel(x: x, y: y) - b.pixel(x: x, y: y)) * 255
                se += Double(d.x * d.x + d.y * d.y + d.z * d.z)
            }
        }
        let mse = se / Double(3 * a.width * a.height)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// Evenly spread sample coordinates (about `count`, corners included).
    public static func samplePoints(_ w: Int, _ h: Int, count: Int = 400) -> [(Int, Int)] {
        let side = max(2, Int(Double(count).squareRoot()))
        var pts: [(Int, Int)] = []
        for j in 0..<side {
            for i in 0..<side {
                pts.append((min(w - 1, i * (w - 1) / (side - 1)), min(h - 1, j * (h - 1) / (side - 1))))
            }
        }
        return pts
    }
}

/// Inserts an EXIF APP1 segment holding only an orientation tag right after the JPEG's SOI.
public func withOrientation(_ jpeg: [UInt8], _ orientation: Int) -> [UInt8] {
    var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]  // big-endian TIFF, IFD at 8
    tiff += [0, 1]  // one entry
    tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation), 0, 0]
    tiff += [0, 0, 0, 0]  // no next IFD
    let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
}
