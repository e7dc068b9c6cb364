import Foundation
import SfumatoCodecs

/// A camera's metadata, written by hand so the tests need no camera file: an EXIF block with a
/// make, an orientation and pixel dimensions, and an XMP packet.
enum MetadataSamples {
    static let xmpPacket = Array(
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Sfumato test</dc:creator>\
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """.utf8)

    /// Big-endian TIFF: IFD0 with Make (ASCII, at offset 50), Orientation 6, and a pointer to an
    /// EXIF IFD holding PixelXDimension and PixelYDimension.
    static let exifBlock: [UInt8] = {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        let make = Array("Sfumato Camera Co.".utf8) + [0]
        var t: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + u32(8)
        // IFD0 at 8: three entries (2 + 3 x 12 + 4 = 42 bytes), so data starts at 50.
        t += u16(3)
        t += u16(0x010F) + u16(2) + u32(make.count) + u32(50)
        t += u16(0x0112) + u16(3) + u32(1) + u16(6) + u16(0)
        t += u16(0x8769) + u16(4) + u32(1) + u32(50 + make.count)
        t += u32(0)
        t += make
        // The EXIF IFD: two LONG entries.
        t += u16(2)
        t += u16(0xA002) + u16(4) + u32(1) + u32(4000)
        t += u16(0xA003) + u16(4) + u32(1) + u32(3000)
        t += u32(0)
        return Array("Exif".utf8) + [0, 0] + t
    }()

    /// Big-endian TIFF whose EXIF IFD holds only tags libtiff does not know (a vendor's private
    /// tags): 0xC4A5 an UNDEFINED blob, 0xC4A6 ASCII text, 0xC4A7 three SHORTs, 0xC4A8 the
    /// RATIONAL 7/9.
    static let privateTagsBlock: [UInt8] = {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        let blob = Array("private-tag".utf8), text = Array("private text".utf8) + [0]
        var t: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + u32(8)
        // IFD0 at 8: the EXIF pointer alone (2 + 12 + 4 bytes), so the EXIF IFD starts at 26.
        t += u16(1) + u16(0x8769) + u16(4) + u32(1) + u32(26) + u32(0)
        // The EXIF IFD: four entries (2 + 4 x 12 + 4 = 54 bytes), so data starts at 80.
        t += u16(4)
        t += u16(0xC4A5) + u16(7) + u32(blob.count) + u32(80)
        t += u16(0xC4A6) + u16(2) + u32(text.count) + u32(80 + blob.count)
        t += u16(0xC4A7) + u16(3) + u32(3) + u32(80 + blob.count + text.count)
        t += u16(0xC4A8) + u16(5) + u32(1) + u32(86 + blob.count + text.count)
        t += u32(0)
        t += blob + text + u16(3) + u16(500) + u16(65535) + u32(7) + u32(9)
        return Array("Exif".utf8) + [0, 0] + t
    }()

    static let camera = ImageMetadata(
        exif: exifBlock, xmp: Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xmpPacket, hadColorProfile: true)

    /// The Make entry of an EXIF block in this file's layout or as libexif rewrote it.
    static func make(of exif: [UInt8]) -> String? {
        let needle = Array("Sfumato Camera Co.".utf8)
        guard exif.count >= needle.count else { return nil }
        for i in 0...(exif.count - needle.count) where Array(exif[i..<(i + needle.count)]) == needle {
            return "Sfumato Camera Co."
        }
        return nil
    }
}
