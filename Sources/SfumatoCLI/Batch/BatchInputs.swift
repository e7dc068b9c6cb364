import Foundation
import SfumatoCodecs

/// One file of a batch: where it is, and where its output goes under the output folder.
struct BatchItem: Sendable, Equatable {
    /// The input's path as given or found.
    var input: String
    /// The output's path relative to the output folder (mirrors the input tree).
    var relativeOutput: String
}

/// What `sfumato batch` reads: files, folders (recursively), list files and standard input,
/// filtered by include/exclude globs and split into shards.
struct BatchInputs {
    /// Extensions a folder's files must have to be taken (files named directly are always tried).
    static let imageExtensions = ImageFormat.fileExtensions

    var paths: [String] = []
    /// Lists of paths, one a line (`-` is standard input).
    var lists: [String] = []
    /// fnmatch(3) patterns matched against a found file's path relative to its folder and its name.
    var include: [String] = []
    var exclude: [String] = []
    /// Folders never descended into (the output folder, when it lies inside an input folder).
    var skipFolders: [String] = []

    /// Every input and its output's relative path, in a stable order; throws on a missing path or
    /// two inputs that would write the same output.
    func items(outputName: (String) -> String) throws -> [BatchItem] {
        var found: [(input: String, relative: String)] = []
        var loose: [String] = []
        let folders = paths.filter(Self.isFolder)
        for path in paths {
            if Self.isFolder(path) {
                // One folder mirrors under the output folder; several each get their own name there.
                let prefix = folders.count > 1 ? (path as NSString).standardizingPath.split(separator: "/").last.map(String.init) ?? "" : ""
                for relative in try walk(path) {
                    found.append((join(path, relative), prefix.isEmpty ? relative : prefix + "/" + relative))
                }
            } else {
                loose.append(path)
            }
        }
        for list in lists { loose += try Self.readList(list) }
        // Files named one by one (or listed) mirror their paths below the folder they share.
        let root = Self.commonFolder(loose)
        for path in loose {
            let full = Self.absolute(path)
            let relative = root.isEmpty ? (full as NSString).lastPathComponent : String(full.dropFirst(root.count + 1))
            found.append((path, relative))
        }
        var seen: [String: String] = [:]
        var items: [BatchItem] = []
        for (input, relative) in found {
            let directory = (relative as NSString).deletingLastPathComponent
            let name = outputName((relative as NSString).lastPathComponent)
            let output = directory.isEmpty ? name : directory + "/" + name
            if let other = seen[output] {
                if other == input { continue }  // the same file named twice
                throw CLIError.usage("\(other) and \(input) would both write \(output); rename one or use --name")
            }
            seen[output] = input
            items.append(BatchItem(input: input, relativeOutput: output))
        }
        return items.sorted { $0.relativeOutput < $1.relativeOutput }
    }

    /// The image files under `folder`, as paths relative to it, sorted; hidden entries skipped.
    func walk(_ folder: String) throws -> [String] {
        var result: [String] = []
        let skip = Set(skipFolders.map(Self.absolute))
        func visit(_ relative: String) throws {
            let here = relative.isEmpty ? folder : join(folder, relative)
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: here).sorted()
            } catch {
                throw CLIError.failure("\(here): cannot read the folder")
            }
            for name in names where !name.hasPrefix(".") {
                let child = relative.isEmpty ? name : relative + "/" + name
                let path = join(folder, child)
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                    // A link to nothing is still a file someone meant to process: it is reported.
                    if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil && wanted(child) { result.append(child) }
                    continue
                }
                if isDirectory.boolValue {
                    if !skip.contains(Self.absolute(path)) { try visit(child) }
                } else if wanted(child) {
                    result.append(child)
                }
            }
        }
        try visit("")
        return result
    }

    /// Whether a found file is taken: an image extension (or an include pattern), no exclude pattern.
    func wanted(_ relative: String) -> Bool {
        let name = (relative as NSString).lastPathComponent
        let matches = { (pattern: String) in fnmatch(pattern, relative, 0) == 0 || fnmatch(pattern, name, 0) == 0 }
        if exclude.contains(where: matches) { return false }
        if !include.isEmpty { return include.contains(where: matches) }
        return Self.imageExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    private func join(_ folder: String, _ relative: String) -> String {
        folder.hasSuffix("/") ? folder + relative : folder + "/" + relative
    }

    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            // A missing file is reported with the others (the batch goes on); only folders are walked.
            return false
        }
        return isDirectory.boolValue
    }

    /// Paths from a list file (or standard input for `-`), one a line; blank lines and lines
    /// starting with # are skipped.
    static func readList(_ list: String) throws -> [String] {
        let text: String
        if list == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            text = String(decoding: try _readInputFile(list, what: "list"), as: UTF8.self)
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (full as NSString).standardizingPath
    }

    /// The deepest folder holding every path ("" for none).
    static func commonFolder(_ paths: [String]) -> String {
        let folders = paths.map { (absolute($0) as NSString).deletingLastPathComponent.split(separator: "/").map(String.init) }
        guard var common = folders.first else { return "" }
        for f in folders.dropFirst() {
            var n = 0
            while n < common.count && n < f.count && common[n] == f[n] { n += 1 }
            common = Array(common.prefix(n))
        }
        return "/" + common.joined(separator: "/")
    }
}

/// `--shard I/N`: the part of a batch one machine takes. Inputs are assigned by a hash of their
/// output's relative path, so every machine computes the same split from the same tree, wherever
/// it is mounted, and shards 0..N-1 together cover every input once.
struct BatchShard: Sendable, Equatable {
    var index: Int
    var count: Int

    static let whole = BatchShard(index: 0, count: 1)

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `I/N` with 0 <= I < N <= 1,000,000.
    init(parsing text: String) throws {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 1_000_000, i >= 0, i < n else {
            throw CLIError.usage("--shard takes I/N with 0 <= I < N (N at most 1000000), not \(text)")
        }
        self.init(index: i, count: n)
    }

    func contains(_ item: BatchItem) -> Bool {
        count == 1 || Int(Self.fnv1a(item.relativeOutput) % UInt64(count)) == index
    }

    /// FNV-1a, 64 bits: small, fixed by its definition, the same on every machine and version.
    static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x100_0000_01b3
        }
        return h
    }
}
