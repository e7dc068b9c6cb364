import Foundation
import SfumatoCodecs
import SfumatoCore

/// Reads a recipe or scene file given on the command line; a plain failure (exit 1) naming
/// the file when it is missing, a folder or unreadable.
func _readInputFile(_ path: String, what: String) throws -> Data {
    do {
        return Data(try ImageIO.readBytes(path: path))
    } catch let e as SfumatoError {
        throw CLIError.failure(e.description.replacingOccurrences(of: "is a folder, not an image", with: "is a folder, not a \(what)"))
    }
}
