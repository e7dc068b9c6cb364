@_spi(Testing) import SfumatoCodecs
import Foundation
import SfumatoCore
import SfumatoStudio
import SfumatoTestSupport
import Testing

/// What an iPad sends when the page's file picker takes a photo from the library: HEIC, with the
/// camera's EXIF. The studio opens it as a document and its export keeps the metadata.
@Suite("Studio: phone photos in, metadata out")
struct StudioFormatTests {
    @Test("a HEIC photo opens as a document; its JPEG and PNG exports keep the EXIF, sized to the export")
    func heicOpensAndExportsKeepMetadata() throws {
        let h = try StudioHarness()
        let photo = try Fixtures.photo("chelsea.png")
        var options = EncodeOptions()
        var camera = ImageMetadata()
        camera.exif = Self.exif
        options.metadata = camera
        let heic = try HEIF.encodeHEIC(photo, options: options)
        let opened = h.call(.post, "/api/open", ["name": "IMG_0001.HEIC"], body: heic)
        #expect(opened.status == 200, "\(String(decoding: opened.body.prefix(200), as: UTF8.self))")
        #expect(h.studio.document.width == photo.width && h.studio.document.height == photo.height)
        for format in ["jpeg", "png"] {
            let export = h.call(.get, "/api/export", ["format": format])
            #expect(export.status == 200)
            let info = try ImageIO.info(bytes: export.body, name: "export.\(format)")
            let exif = try #require(info.metadata.exif, "the \(format) export lost the EXIF block")
            let facts = ImageMetadata.exifFacts(exif)
            #expect(facts.orientation == 1 && facts.width == photo.width && facts.height == photo.height, "\(facts)")
        }
        // A preview is not the user's photo: it carries nothing.
        let preview = h.call(.get, "/api/render", ["width": "64"])
        #expect(try ImageIO.info(bytes: preview.body, name: "preview").metadata.isEmpty)
    }

    @Test("hostile phone files at /api/open: a TIFF claiming 100000x100000, a bare ftyp box, damaged HEIC; the document stays")
    func hostileOpens() throws {
        let h = try StudioHarness()
        let before = h.studio.document.path
        // 413 from the header alone: the pixels are never allocated.
        #expect(h.call(.post, "/api/open", ["name": "scan.tif"], body: Self.claimingTIFF).status == 413)
        let ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        #expect(h.call(.post, "/api/open", ["name": "IMG.HEIC"], body: ftyp).status == 400)
        let heic = try HEIF.encodeHEIC(try Pixels.noise(64, 48, seed: 3))
        for damaged in Damage.truncations(heic, count: 8) + Damage.mutations(heic, count: 8, changes: 8, seed: 11) {
            let status = h.call(.post, "/api/open", ["name": "IMG.HEIC"], body: damaged).status
            #expect(status == 200 || status == 400 || status == 413, "\(status)")
            if status == 200 { return }  // a mutation that still decodes opens, as any photo does
        }
        #expect(h.studio.document.path == before)
    }

    /// A little-endian TIFF header claiming 100000 x 100000 RGB pixels, with one 3-byte strip.
    static let claimingTIFF: [UInt8] = {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            u16(tag) + u16(type) + u32(1) + (type == 3 ? u16(value) + u16(0) : u32(value))
        }
        var t: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8) + u16(8)
        t += entry(256, 4, 100_000) + entry(257, 4, 100_000) + entry(258, 3, 8) + entry(262, 3, 2)
        t += entry(273, 4, 200) + entry(277, 3, 3) + entry(278, 4, 100_000) + entry(279, 4, 3)
        t += u32(0)
        return t + [UInt8](repeating: 0, count: 200 - t.count) + [1, 2, 3]
    }()

    /// A big-endian EXIF block with an orientation (6) and pixel dimensions in its EXIF IFD.
    static let exif: [UInt8] = {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        var t: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + u32(8) + u16(2)
        t += u16(0x0112) + u16(3) + u32(1) + u16(6) + u16(0)
        t += u16(0x8769) + u16(4) + u32(1) + u32(38)
        t += u32(0)
        t += u16(2) + u16(0xA002) + u16(4) + u32(1) + u32(4032) + u16(0xA003) + u16(4) + u32(1) + u32(3024) + u32(0)
        return Array("Exif".utf8) + [0, 0] + t
    }()
}
