import CCrypto
import Foundation
import SfumatoCodecs
import SfumatoCore

/// The certificates `sfumato studio --lan` serves TLS with: a certificate authority of this
/// machine's own, made once (its root is what an iPad installs, once, to trust the studio), and a
/// server certificate it signs for the studio's addresses and names, issued again whenever those
/// change, the authority changes or it has less than 30 days left.
///
/// Everything lives in one folder (`$XDG_CONFIG_HOME/sfumato/lan`, mode 0700; the keys 0600).
/// The authority's private key never leaves it: the pairing pages serve its certificate only.
public struct StudioCertificates: Sendable {
    /// The folder holding them.
    public let folder: URL
    /// The authority's certificate (PEM): public, what devices install.
    public var authority: URL { folder.appendingPathComponent("ca.crt") }
    var authorityKey: URL { folder.appendingPathComponent("ca.key") }
    /// The server's certificate (PEM), as the TLS library loads it.
    public var server: URL { folder.appendingPathComponent("server.crt") }
    /// The server's private key (PEM).
    public var serverKey: URL { folder.appendingPathComponent("server.key") }
    /// The subjectAltName the server certificate was issued for, to notice when it changes.
    var serverNames: URL { folder.appendingPathComponent("server.names") }

    /// How many days before it expires a server certificate is issued again.
    static let renewalDays: Int32 = 30

    /// Makes whatever is missing or stale, and returns the set. `names`: DNS names (the host's
    /// name, `NAME.local`, `localhost`); `addresses`: IP literals (IPv4 or IPv6). `reset` starts
    /// over with a new authority (devices must then install its root again).
    public static func prepare(
        folder: URL, names: [String], addresses: [String], reset: Bool = false
    ) throws
        -> StudioCertificates
    {
        let set = StudioCertificates(folder: folder)
        let files = FileManager.default
        if reset { for url in [set.authority, set.authorityKey, set.server, set.serverKey, set.serverNames] { try? files.removeItem(at: url) } }
        try files.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(folder.path, 0o700)
        if !files.fileExists(atPath: set.authority.path) || !files.fileExists(atPath: set.authorityKey.path) {
            for url in [set.server, set.serverKey, set.serverNames] { try? files.removeItem(at: url) }
            let host = ProcessInfo.processInfo.hostName
            let name = "Sfumato studio CA (\(host.isEmpty ? "this machine" : String(host.prefix(40))))"
            guard sf_make_authority(set.authority.path, set.authorityKey.path, name) == 0 else {
                throw SfumatoError.io("cannot make the studio's certificate authority in \(folder.path)")
            }
        }
        let san = subjectAltName(names: names, addresses: addresses)
        let issuedFor = try? String(contentsOf: set.serverNames, encoding: .utf8)
        let current =
            issuedFor == san
            && sf_certificate_is_current(set.authority.path, set.server.path, set.serverKey.path, renewalDays) == 1
        if !current {
            let cn = names.first ?? addresses.first ?? "localhost"
            guard sf_issue_server_certificate(set.authority.path, set.authorityKey.path, set.server.path, set.serverKey.path, cn, san) == 0
            else {
                throw SfumatoError.io("cannot issue the studio's server certificate in \(folder.path)")
            }
            try Data(san.utf8).write(to: set.serverNames, options: .atomic)
        }
        return set
    }

    /// `DNS:a,DNS:b,IP:192.0.2.7`: each name and address once, in a stable order.
    static func subjectAltName(names: [String], addresses: [String]) -> String {
        var seen = Set<String>()
        var parts: [String] = []
        for n in names where !n.isEmpty && n.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." }) {
            if seen.insert("DNS:" + n.lowercased()).inserted { parts.append("DNS:" + n.lowercased()) }
        }
        for a in addresses where !a.isEmpty && a.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) {
            if seen.insert("IP:" + a).inserted { parts.append("IP:" + a) }
        }
        return parts.joined(separator: ",")
    }

    /// The authority's certificate as PEM text.
    public func authorityPEM() throws -> [UInt8] { try ImageIO.readBytes(path: authority.path) }

    /// The authority's certificate in DER (what a configuration profile carries).
    public func authorityDER() throws -> [UInt8] {
        var der = [UInt8](repeating: 0, count: 16_384)
        let n = sf_certificate_der(authority.path, &der, Int32(der.count))
        guard n > 0 else { throw SfumatoError.io("cannot read the studio's certificate authority at \(authority.path)") }
        return Array(der.prefix(Int(n)))
    }
}
