import CCrypto
import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument

/// Starting the studio: which document, where to listen, TLS and the pairing token for --lan.
public enum StudioLauncher {
    /// Where documents made from photos go by default (~/.local/share/sfumato/documents).
    public static var documentsFolder: URL {
        let base = ProcessInfo.processInfo.environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return base.appendingPathComponent("sfumato/documents")
    }

    /// The user's config folder for the studio (~/.config/sfumato).
    public static var configFolder: URL {
        let base = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return base.appendingPathComponent("sfumato")
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

    /// A random pairing token (128 bits, hex).
    public static func makeToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        _ = sf_random_bytes(&bytes, 16)
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The TLS certificate and key for --lan, made on first use and kept in the config folder.
    public static func certificate() throws -> (certificate: String, key: String) {
        let folder = configFolder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cert = folder.appendingPathComponent("studio-cert.pem").path
        let key = folder.appendingPathComponent("studio-key.pem").path
        if FileManager.default.fileExists(atPath: cert) && FileManager.default.fileExists(atPath: key) { return (cert, key) }
        var san = "DNS:localhost,IP:127.0.0.1"
        for address in localAddresses() { san += ",IP:\(address)" }
        let host = ProcessInfo.processInfo.hostName
        guard sf_make_self_signed(cert, key, host, san) == 0 else {
            throw SfumatoError.io("cannot make a TLS certificate in \(folder.path)")
        }
        chmod(key, 0o600)
        return (cert, key)
    }

    /// The machine's IPv4 addresses other than loopback (for the URL to print and the certificate).
    public static func localAddresses() -> [String] {
        var result: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let a = p {
            if let sa = a.pointee.ifa_addr, sa.pointee.sa_family == UInt16(AF_INET) {
                var host = [CChar](repeating: 0, count: 64)
                if getnameinfo(sa, socklen_t(MemoryLayout<sockaddr_in>.size), &host, 64, nil, 0, NI_NUMERICHOST) == 0 {
                    let s = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if s != "127.0.0.1" { result.append(s) }
                }
            }
            p = a.pointee.ifa_next
        }
        return result
    }

    /// A free TCP port on the host (for --port 0).
    public static func freePort(host: String) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host == "0.0.0.0" ? "0.0.0.0" : host)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : 0
    }
}
