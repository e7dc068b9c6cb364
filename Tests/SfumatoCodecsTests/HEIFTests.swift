@_spi(Testing) import SfumatoCodecs
import Foundation
import SfumatoCore
import SfumatoTestSupport
import Testing

/// HEIC and AVIF through libheif: real photos decode close to what was encoded, alpha and high bit
/// depths survive, metadata blocks are read back, and hostile files fail with typed errors.
@Suite("HEIF and AVIF")
struct HEIFTests {
    @Test("this libheif decodes HEIC and AVIF and encodes AVIF")
    func capabilities() {
        let c = HEIF.capabilities
        #expect(c.heic && c.avifDecode && c.avifEncode)
    }

    @Test("AVIF and HEIC of real photos decode within the codec's loss (PSNR over 32 dB at quality 90, 4:2:0 chroma)")
    func photos() throws {
        for name in ["rocket.jpg", "chelsea.png", "coffee.png"] {
            let photo = try Fixtures.photo(name)
            for (format, bytes) in [(ImageFormat.avif, try HEIF.encodeAVIF(photo)), (.heif, try HEIF.encodeHEIC(photo))] {
                #expect(ImageFormat.sniff(bytes) == format, "\(name) as \(format)")
                let info = try ImageIO.info(bytes: bytes, name: name)
                #expect(info.format == format && info.width == photo.width && info.height == photo.height)
                #expect(!info.hasAlpha && info.bitsPerChannel == 8)
                let back = try ImageIO.read(bytes: bytes, name: name).bitmap
                #expect(back.format == .rgba8 && back.isOpaque)
                let psnr = Pixels.psnr(back, photo)
                #expect(psnr > 32, "\(name) as \(format): PSNR \(psnr) dB")
            }
        }
    }

    @Test("colour given by nclx code points only (Display P3, as phones write) converts to sRGB; BT.709 is taken as sRGB")
    func nclxColour() throws {
        let photo = try Fixtures.photo("coffee.png")
        // The photo's colours written as Display P3 values (linear sRGB to linear P3, CSS Color 4's matrix).
        let m: [[Double]] = [[0.8224621, 0.177538, 0], [0.0331941, 0.9668058, 0], [0.0170827, 0.0723974, 0.9105199]]
        let p3 = try photo.copy()
        for y in 0..<p3.height {
            let row = p3.row(y).assumingMemoryBound(to: UInt8.self)
            for x in 0..<p3.width {
                let linear = (0..<3).map { SRGB.decode(Double(row[4 * x + $0]) / 255) }
                for c in 0..<3 {
                    let v = m[c][0] * linear[0] + m[c][1] * linear[1] + m[c][2] * linear[2]
                    row[4 * x + c] = UInt8((SRGB.encode(min(max(v, 0), 1)) * 255).rounded())
                }
            }
        }
        let labelled = try HEIF.encodeHEIC(p3, nclx: (primaries: 12, transfer: 13))
        let info = try ImageIO.info(bytes: labelled, name: "p3.heic")
        #expect(info.iccProfile?.contains("Display P3") == true, "\(info.iccProfile ?? "no profile")")
        let back = try ImageIO.read(bytes: labelled, name: "p3.heic").bitmap
        let converted = Pixels.psnr(back, photo)
        #expect(converted > 32, "Display P3 by nclx, converted: PSNR \(converted) dB against the sRGB photo")
        // The same values labelled BT.709 are taken as they are: far from the photo's colours.
        let unlabelled = try ImageIO.read(bytes: try HEIF.encodeHEIC(p3, nclx: (primaries: 1, transfer: 13)), name: "709.heic").bitmap
        let asIs = Pixels.psnr(unlabelled, photo)
        #expect(asIs < converted - 3, "BT.709-labelled P3 values: PSNR \(asIs) dB (not converted)")
        #expect(try ImageIO.info(bytes: try HEIF.encodeHEIC(p3, nclx: (primaries: 1, transfer: 13)), name: "709.heic").iccProfile == nil)
    }

    @Test("alpha survives AVIF: a ramp from opaque to clear comes back within 3 levels")
    func alpha() throws {
        let photo = try Fixtures.photo("coffee.png")
        let ramp = try Pixels.make(128, 96) { x, y in
            var p = photo.pixel(x: x + 100, y: y + 100)
            p.w = Float(x) / 127
            return p
        }
        let bytes = try HEIF.encodeAVIF(ramp, options: EncodeOptions(quality: 95))
        #expect(try HEIF.info(bytes).hasAlpha)
        let back = try HEIF.decode(bytes).bitmap
        var worst: Float = 0
        for y in 0..<96 { for x in 0..<128 { worst = max(worst, abs(back.pixel(x: x, y: y).w - ramp.pixel(x: x, y: y).w)) } }
        #expect(worst * 255 <= 3, "alpha off by \(worst * 255) levels")
    }

    @Test("EXIF (with the output's size and orientation 1), XMP and an sRGB profile go into AVIF and come back")
    func metadata() throws {
        let photo = try Pixels.noise(48, 32, seed: 9)
        var options = EncodeOptions()
        options.metadata = MetadataSamples.camera
        for bytes in [try HEIF.encodeAVIF(photo, options: options), try HEIF.encodeHEIC(photo, options: options)] {
            let info = try HEIF.info(bytes)
            let exif = try #require(info.metadata.exif)
            let facts = ImageMetadata.exifFacts(exif)
            #expect(facts.orientation == 1 && facts.width == 48 && facts.height == 32)
            #expect(MetadataSamples.make(of: exif) == "Sfumato Camera Co.")
            #expect(info.metadata.xmp == MetadataSamples.camera.xmp)
            #expect(info.metadata.hadColorProfile && info.iccProfile?.contains("sRGB") == true)
            #expect(info.orientation == 1)
        }
        let bare = try HEIF.info(try HEIF.encodeAVIF(photo))
        #expect(bare.metadata.isEmpty)
    }

    @Test("HEIC is read, not written: asking for it says so")
    func heicIsReadOnly() throws {
        #expect(!ImageFormat.heif.isWritable && ImageFormat(name: "heic") == nil)
        #expect(ImageFormat.fromExtension(of: "IMG_0001.HEIC") == .heif)
        #expect(throws: SfumatoError.self) { try ImageIO.encode(try Pixels.noise(4, 4), format: .heif) }
    }

    @Test("hostile HEIF: truncations, flipped bytes and a pixel limit give typed errors, never a crash")
    func hostile() throws {
        let bytes = try HEIF.encodeAVIF(try Pixels.noise(64, 48, seed: 5))
        try Damage.decodeEach(Damage.truncations(bytes))
        try Damage.decodeEach(Damage.mutations(bytes, count: 200, changes: 4, seed: 0x5EED))
        #expect {
            _ = try ImageIO.read(bytes: bytes, name: "big", options: DecodeOptions(pixelLimit: 1000))
        } throws: { e in
            guard case SfumatoError.tooLarge = e else { return false }
            return true
        }
        // A file that is only the "ftyp" box.
        #expect(throws: SfumatoError.self) { try ImageIO.read(bytes: Array(bytes.prefix(24)), name: "header") }
    }
}
