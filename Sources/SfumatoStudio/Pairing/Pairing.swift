import CCrypto
import Foundation

/// What a new device needs to trust the studio: the certificate authority's root, offered as a
/// configuration profile for iPad and iPhone and as a bare certificate for everything else, and a
/// page that says, step by step, how to install and trust it. Served at ``paths`` without the
/// token (the root is public; the token and the authority's key never appear here).
public struct Pairing: Sendable {
    /// The pages, reachable without the token.
    public static let paths: Set<String> = ["/pair", "/pair/ca.crt", "/pair/ca.mobileconfig"]

    /// The authority's certificate, PEM and DER.
    public let authorityPEM: [UInt8]
    public let authorityDER: [UInt8]
    /// This machine's name, as the profile and page show it.
    public let hostName: String

    public init(certificates: StudioCertificates, hostName: String = ProcessInfo.processInfo.hostName) throws {
        authorityPEM = try certificates.authorityPEM()
        authorityDER = try certificates.authorityDER()
        self.hostName = String(hostName.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }.prefix(63))
    }

    /// The response for one of ``paths``.
    public func response(for path: String) -> HTTPResponse {
        switch path {
        case "/pair/ca.crt":
            return HTTPResponse(
                contentType: "application/x-x509-ca-cert", body: authorityPEM,
                headers: [("content-disposition", "attachment; filename=\"sfumato-ca.crt\""), ("cache-control", "no-cache")])
        case "/pair/ca.mobileconfig":
            return HTTPResponse(
                contentType: "application/x-apple-aspen-config", body: profile(),
                headers: [("content-disposition", "attachment; filename=\"sfumato-ca.mobileconfig\""), ("cache-control", "no-cache")])
        default:
            return HTTPResponse(contentType: "text/html; charset=utf-8", body: Array(page().utf8), headers: [("cache-control", "no-cache")])
        }
    }

    /// SHA-256 of the root, hex: names the profile (the same root, the same profile, so
    /// installing it again replaces it) and lets the user compare what the device shows.
    public var fingerprint: String {
        var digest = [UInt8](repeating: 0, count: 32)
        SHA256(authorityDER, authorityDER.count, &digest)
        return digest.map { String(format: "%02X", $0) }.joined()
    }

    /// A UUID made from the fingerprint (and a salt per payload), stable across restarts.
    func uuid(_ salt: UInt8) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let input = authorityDER + [salt]
        SHA256(input, input.count, &digest)
        digest[6] = (digest[6] & 0x0F) | 0x50  // a name-based UUID's version and variant bits
        digest[8] = (digest[8] & 0x3F) | 0x80
        let hex = digest.prefix(16).map { String(format: "%02X", $0) }.joined()
        let c = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(c[$0]) }.joined(separator: "-")
    }

    /// The configuration profile (an XML property list, unsigned) holding the root as a
    /// `com.apple.security.root` payload.
    public func profile() -> [UInt8] {
        let id = "org.sfumato.studio.ca." + fingerprint.prefix(16).lowercased()
        let certificate: [String: Any] = [
            "PayloadCertificateFileName": "sfumato-ca.crt",
            "PayloadContent": Data(authorityDER),
            "PayloadDescription": "Lets this device trust the Sfumato studio on \(hostName).",
            "PayloadDisplayName": "Sfumato studio CA (\(hostName))",
            "PayloadIdentifier": id + ".root",
            "PayloadType": "com.apple.security.root",
            "PayloadUUID": uuid(1),
            "PayloadVersion": 1
        ]
        let profile: [String: Any] = [
            "PayloadContent": [certificate],
            "PayloadDescription": "Installs the certificate authority of the Sfumato studio on \(hostName), so Safari opens it over TLS.",
            "PayloadDisplayName": "Sfumato studio on \(hostName)",
            "PayloadIdentifier": id,
            "PayloadRemovalDisallowed": false,
            "PayloadType": "Configuration",
            "PayloadUUID": uuid(0),
            "PayloadVersion": 1
        ]
        let data = (try? PropertyListSerialization.data(fromPropertyList: profile, format: .xml, options: 0)) ?? Data()
        return Array(data)
    }

    /// The pairing page: what to install, where, and how to trust it.
    func page() -> String {
        let groups = stride(from: 0, to: fingerprint.count, by: 4).map { i -> String in
            let a = fingerprint.index(fingerprint.startIndex, offsetBy: i)
            return String(fingerprint[a..<fingerprint.index(a, offsetBy: 4)])
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Pair with the Sfumato studio</title>
            <style>
              body { font: 17px/1.5 -apple-system, system-ui, sans-serif; max-width: 40em; margin: 2em auto; padding: 0 1em; color: #222; }
              h1 { font-size: 1.5em; } li { margin: 0.4em 0; } code { font-size: 0.85em; word-break: break-all; }
              a.button { display: inline-block; padding: 0.6em 1em; border-radius: 0.5em; background: #2a6df4; color: #fff; text-decoration: none; }
              .note { color: #666; font-size: 0.9em; }
            </style></head>
            <body>
            <h1>Pair this device with the Sfumato studio on \(hostName)</h1>
            <p>The studio speaks TLS with a certificate from its own small certificate authority. Install that
            authority once, and Safari (or any browser) opens the studio without warnings and keeps its connection.</p>
            <h2>iPad or iPhone</h2>
            <ol>
              <li><a class="button" href="/pair/ca.mobileconfig">Download the profile</a> and tap <b>Allow</b>.</li>
              <li>Open <b>Settings &gt; General &gt; VPN &amp; Device Management</b>, tap <b>Sfumato studio on \(hostName)</b>,
                  then <b>Install</b> (twice) and enter your passcode.</li>
              <li>Open <b>Settings &gt; General &gt; About &gt; Certificate Trust Settings</b> and turn on full trust for
                  <b>Sfumato studio CA (\(hostName))</b>.</li>
              <li>Scan the QR code the studio printed in its terminal again (or type the URL with its token): the studio opens.</li>
            </ol>
            <h2>Other devices</h2>
            <p><a href="/pair/ca.crt">Download the certificate</a> and add it to the system's or the browser's trusted
            authorities (Firefox: Settings &gt; Privacy &amp; Security &gt; Certificates &gt; View Certificates &gt; Authorities &gt; Import).</p>
            <p class="note">Its SHA-256 fingerprint, to compare with what the device shows:<br><code>\(groups.joined(separator: " "))</code></p>
            <p class="note">This authority can only vouch for studios this machine runs; its private key never leaves it.
            <code>sfumato studio --lan --reset-certificates</code> makes a new one (devices then pair again).</p>
            </body></html>
            """
    }
}
