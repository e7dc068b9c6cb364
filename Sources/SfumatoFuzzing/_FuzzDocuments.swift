import Foundation
import SfumatoDocument

/// Documents: the bytes as a `.sfumato` file, opened, checked, its history listed and the
/// picture rendered small.
enum _FuzzDocuments {
    static let folder: URL = {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sfumato-fuzz-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static func run(_ data: [UInt8]) {
        let path = folder.appendingPathComponent("input.sfumato").path
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        guard FileManager.default.createFile(atPath: path, contents: Data(data)) else { return }
        guard let doc = try? Document(open: path) else { return }
        _ = try? doc.check()
        _ = try? doc.history()
        _ = try? doc.render(width: 24)
        _ = try? doc.undo()
        _ = try? doc.redo()
    }
}
