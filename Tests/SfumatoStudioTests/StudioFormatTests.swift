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
        func call(_ method: HTTPMethod, _ path: String, _ query: [String: String] = [:], body: [UInt8] = []) -> HTTPResponse {
            let done = DispatchSemaphore(value: 0)
            let box = _ResponseBox()
            h.studio.handle(HTTPRequest(method: method, path: path, query: query, body: body)) {
                box.response = $0
                done.signal()
            }
            _ = done.wait(timeout: .now() + 60)
            return box.response!
        }
        let photo = try Fixtures.photo("chelsea.png")
        var options = EncodeOptions()
        var camera = ImageMetadata()
        camera.exif = Self.exif
        options.metadata = camera
        let heic = try HEIF.encodeHEIC(photo, options: options)
        let opened = call(.post, "/api/open", ["name": "IMG_0001.HEIC"], body: heic)
        #expect(opened.status == 200, "\(String(decoding: opened.body.prefix(200), as: UTF8.self))")
        #expect(h.studio.document.width == photo.width && h.studio.document.height == photo.height)
        for format in ["jpeg", "png"] {
            let export = call(.get, "/api/export", ["format": format])
            #expect(export.status == 200)
            let info = try ImageIO.info(bytes: export.body, name: "export.\(format)")
            let exif = try #require(info.metadata.exif, "the \(format) export lost the EXIF block")
            let facts = ImageMetadata.exifFacts(exif)
            #expect(facts.orientation == 1 && facts.width == photo.width && facts.height == photo.height, "\(facts)")
        }
        // A preview is not the user's photo: it carries nothing.
        let preview = call(.get, "/api/render", ["width": "64"])
        #expect(try ImageIO.info(bytes: preview.body, name: "preview").metadata.isEmpty)
    }

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
