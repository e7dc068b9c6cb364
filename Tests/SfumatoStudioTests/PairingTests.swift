import Foundation
import SfumatoStudio
import Testing

@Suite("Pairing: the studio's certificate authority, its profile and the QR code")
struct PairingTests {
    /// A fresh folder of certificates for this test.
    func certificates(names: [String] = ["studio", "localhost"], addresses: [String] = ["127.0.0.1"]) throws -> StudioCertificates {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sfumato-pairing-\(UUID().uuidString)")
        return try StudioCertificates.prepare(folder: folder, names: names, addresses: addresses)
    }

    @Test("the authority is made once; the server certificate again only when its names change")
    func reuseAndReissue() throws {
        let first = try certificates()
        defer { try? FileManager.default.removeItem(at: first.folder) }
        let ca = try Data(contentsOf: first.authority), server = try Data(contentsOf: first.server)
        let again = try StudioCertificates.prepare(folder: first.folder, names: ["studio", "localhost"], addresses: ["127.0.0.1"])
        #expect(try Data(contentsOf: again.authority) == ca && Data(contentsOf: again.server) == server)
        let moved = try StudioCertificates.prepare(folder: first.folder, names: ["studio", "localhost"], addresses: ["127.0.0.1", "192.0.2.7"])
        #expect(try Data(contentsOf: moved.authority) == ca && Data(contentsOf: moved.server) != server)
        // A hostile name or address never reaches OpenSSL's configuration syntax.
        let odd = try StudioCertificates.prepare(folder: first.folder, names: ["a,DNS:evil.example", "ok"], addresses: ["1.2.3.4,IP:5.6.7.8"])
        let text = try String(contentsOf: odd.folder.appendingPathComponent("server.names"), encoding: .utf8)
        #expect(text == "DNS:ok")
        // Reset: a new authority.
        let reset = try StudioCertificates.prepare(folder: first.folder, names: ["studio"], addresses: [], reset: true)
        #expect(try Data(contentsOf: reset.authority) != ca)
    }

    @Test("the profile is a property list carrying the authority's DER as a root payload; the page holds no secret")
    func profile() throws {
        let set = try certificates()
        defer { try? FileManager.default.removeItem(at: set.folder) }
        let pairing = try Pairing(certificates: set, hostName: "studio")
        let plist = try #require(try PropertyListSerialization.propertyList(from: Data(pairing.profile()), format: nil) as? [String: Any])
        #expect(plist["PayloadType"] as? String == "Configuration")
        let payloads = try #require(plist["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1 && payloads[0]["PayloadType"] as? String == "com.apple.security.root")
        #expect(payloads[0]["PayloadContent"] as? Data == Data(pairing.authorityDER))
        #expect(pairing.profile() == pairing.profile(), "the same authority, the same profile (and UUIDs)")
        let page = String(decoding: pairing.response(for: "/pair").body, as: UTF8.self)
        #expect(page.contains("Certificate Trust Settings") && page.contains("/pair/ca.mobileconfig"))
        #expect(!page.contains("PRIVATE"))
        #expect(pairing.response(for: "/pair/ca.crt").body == pairing.authorityPEM)
        #expect(!String(decoding: pairing.authorityPEM, as: UTF8.self).contains("PRIVATE KEY"))
    }

    @Test("the QR code's text drawing: two modules a character, a quiet zone all round, finder patterns at three corners")
    func qrCode() throws {
        let code = try #require(QRCode("https://192.0.2.7:8080/?token=0123456789abcdef0123456789abcdef"))
        #expect(code.size >= 21 && (code.size - 17) % 4 == 0, "a QR version's size is 17 + 4 v")
        let lines = code.lines(quiet: 4, colors: false)
        #expect(lines.count == (code.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.count == code.size + 8 })
        #expect(lines[0].allSatisfy { $0 == " " } && lines[1].allSatisfy { $0 == " " }, "the quiet zone")
        // The finder patterns: dark 7x7 rings at three corners, never the fourth.
        for (x, y) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            #expect((0..<7).allSatisfy { code.isDark(x + $0, y) && code.isDark(x, y + $0) && code.isDark(x + 6, y + $0) })
            #expect(!code.isDark(x + 1, y + 1) && code.isDark(x + 3, y + 3))
        }
        #expect(!(0..<7).allSatisfy { code.isDark(code.size - 7 + $0, code.size - 7) })
        let colored = code.lines(colors: true)
        #expect(colored.allSatisfy { $0.hasPrefix("\u{1B}[30;47m") && $0.hasSuffix("\u{1B}[0m") })
    }
}
