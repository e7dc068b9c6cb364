import CCrypto
import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument

/// Starting the studio: which document, where to listen, TLS and the pairing token for --lan.
public enum StudioLauncher {
    /// Where documents made from photos go by default: `$XDG_DATA_HOME/sfumato/documents`
    /// (`~/.local/share/sfumato/documents`).
    public static var documentsFolder: URL {
        UserFolders.data.appendingPathComponent("sfumato/documents")
    }

    /// The user's config folder for the studio: `$XDG_CONFIG_HOME/sfumato` (`~/.config/sfumato`).
    public static var configFolder: URL {
        UserFolders.config.appendingPathComponent("sfumato")
    }

    /// Opens a `.sfumato` document, or makes (or reopens) the document for an image: at
    /// `documentPath` when given, else in the documents folder named after the image. With no
    /// input, the bundled sample photo.
    public static func document(for input: String?, documentPath: String?) throws -> Document {
        if let input, input.hasSuffix(".sfumato") {
            return try Document(open: input)
        }
        let imagePath = input ?? Studio.samplePhoto?.path
        guard let imagePath else { throw SfumatoError.io("the bundled sample photo is missing") }
        let name = (imagePath as NSString).lastPathComponent
        let path: String
        if let documentPath {
            path = documentPath
        } else {
            try FileManager.default.createDirectory(at: documentsFolder, withIntermediateDirectories: true)
            path = documentsFolder.appendingPathComponent((name as NSString).deletingPathExtension + ".sfumato").path
        }
        let bytes = try ImageIO.readBytes(path: imagePath)
        if FileManager.default.fileExists(atPath: path) {
            // Reopen the same photo's document (keeps the work); a different photo gets a new name.
            let existing = try Document(open: path)
            if try existing.photoBytes() == bytes { return existing }
            var n = 2
            var alternative = path
            while FileManager.default.fileExists(atPath: alternative) {
                alternative = (path as NSString).deletingPathExtension + "-\(n).sfumato"
                n += 1
            }
            return try Document.create(at: alternative, image: bytes, name: name)
        }
        return try Document.create(at: path, image: bytes, name: name)
    }

    /// The studio's secret token, kept in the config folder (`studio-token`, readable by the
    /// user alone) so bookmarks and open pages keep working across restarts; a new one when
    /// there is none, it is damaged, or `renew` asks for one.
    public static func token(renew: Bool = false) throws -> String {
        let folder = configFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("studio-token").path
        if !renew, let bytes = try? ImageIO.readBytes(path: path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.count == 32, text.allSatisfy(\.isHexDigit) {
                chmod(path, 0o600)
                return text.lowercased()
            }
        }
        let token = makeToken()
        let temporary = path + ".\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw SfumatoError.io("\(folder.path): cannot keep the studio's token there (\(String(cString: strerror(errno))))") }
        let line = Array((token + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == line.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw SfumatoError.io("\(path): cannot write the studio's token")
        }
        return token
    }

    /// A random token (128 bits, hex).
    public static func makeToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = sf_random_bytes(&bytes, 16)
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The certificates for --lan (see ``StudioCertificates``), kept in the config folder's `lan`
    /// folder: issued for every address the studio listens on and the host's names. `reset`
    /// starts over with a new certificate authority.
    public static func certificates(listeningOn addresses: [String], reset: Bool = false) throws -> StudioCertificates {
        let folder = configFolder
        // The self-signed pair earlier versions kept: not trusted by anything, so not kept.
        for old in ["studio-cert.pem", "studio-key.pem"] { try? FileManager.default.removeItem(at: folder.appendingPathComponent(old)) }
        let names = hostNames().sorted { ($0.count, $0) < ($1.count, $1) } + ["localhost"]  // the short host name first: the CN
        let every = Set(addresses + ["127.0.0.1", "::1"] + _localAddresses(includingLoopback: false))
        return try StudioCertificates.prepare(
            folder: folder.appendingPathComponent("lan"), names: names, addresses: every.sorted(), reset: reset)
    }

    /// The machine's IPv4 addresses other than loopback (for the URL to print and the certificate).
    public static func localAddresses() -> [String] {
        _localAddresses(includingLoopback: false).filter { !$0.contains(":") }
    }

    /// The names other machines may use for this one with `--lan`: its host name, and that name
    /// with `.local` (mDNS), lowercased.
    public static func hostNames() -> Set<String> {
        let name = ProcessInfo.processInfo.hostName.lowercased()
        guard !name.isEmpty else { return [] }
        let short = name.split(separator: ".").first.map(String.init) ?? name
        return [name, short, short + ".local"]
    }
}

/// The user's folders, as the XDG base-directory rules place them: `$XDG_DATA_HOME` and
/// `$XDG_CONFIG_HOME` when set to absolute paths, else `$HOME/.local/share` and `$HOME/.config`;
/// `$HOME` when set to an absolute path, else the account's home folder.
public enum UserFolders {
    /// `$HOME`, or the account's home folder.
    public static var home: URL {
        if let h = ProcessInfo.processInfo.environment["HOME"], h.hasPrefix("/") { return URL(fileURLWithPath: h) }
        if let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir { return URL(fileURLWithPath: String(cString: dir)) }
        return URL(fileURLWithPath: "/tmp")
    }

    /// `$XDG_DATA_HOME` or `~/.local/share`.
    public static var data: URL { folder("XDG_DATA_HOME", ".local/share") }

    /// `$XDG_CONFIG_HOME` or `~/.config`.
    public static var config: URL { folder("XDG_CONFIG_HOME", ".config") }

    private static func folder(_ variable: String, _ fallback: String) -> URL {
        // The rules: a relative path in the variable is invalid and ignored.
        if let v = ProcessInfo.processInfo.environment[variable], v.hasPrefix("/") { return URL(fileURLWithPath: v) }
        return home.appendingPathComponent(fallback)
    }
}
