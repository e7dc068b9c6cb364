import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// What every file of a batch gets: the recipe, the size, the format. Its ``hash`` names all of
/// it, so a changed recipe redoes every file and an unchanged one skips what is done.
struct BatchSettings: Sendable {
    var outputFolder: String
    var steps: [FilterStep] = []
    /// Fit inside this box (never enlarged), or keep the size.
    var thumbnail: (width: Int, height: Int)? = nil
    /// Fill the box instead and cut the overflow, centred (sfumato thumbnail --crop).
    var crop = false
    /// The resampling kernel (nil: area average down, Lanczos-3 up; thumbnail: Lanczos-3 widened).
    var sampling: Sampling? = nil
    /// The output format when the name pattern does not give one by its extension.
    var format: ImageFormat? = nil
    var encode = EncodeOptions()
    var workingSpace = WorkingSpace.linear
    var pixelLimit = 200_000_000
    /// Render threads of one file (the batch runs several files at once).
    var threads = 1
    /// Write the input's metadata (EXIF, XMP, an sRGB profile) into the output.
    var keepMetadata = true

    /// SHA-256 of everything that decides an output's bytes, with the engine's version.
    var hash: String {
        var text = "sfumato \(SfumatoCommand.version)\n"
        for step in steps {
            text += step.name + "(" + step.values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + ")\n"
        }
        if let t = thumbnail { text += "thumbnail \(t.width)x\(t.height)\(crop ? " crop" : "") \(sampling?.rawValue ?? "area")\n" }
        text += "format \(format.map { "\($0)" } ?? "by name") quality \(encode.quality) space \(workingSpace.rawValue)"
        text += " metadata \(keepMetadata ? "kept" : "stripped")\n"
        return BatchDigest.text(text)
    }
}

/// One file through the batch: hash, skip if done, decode (DCT-scaled for a thumbnail), filter,
/// resize, write atomically; the result as a manifest record. Never throws: a failure is a record.
struct BatchJob: Sendable {
    let settings: BatchSettings
    let recipeHash: String

    /// How much memory the file will take, from its header (0 when it cannot be read: the failure
    /// then costs nothing).
    func memoryEstimate(_ item: BatchItem) -> Int {
        guard Self.notARegularFile(item.input) == nil, let info = try? ImageIO.info(path: item.input) else { return 0 }
        let scale = decodeScale(info)
        let width = (info.width + scale - 1) / scale, height = (info.height + scale - 1) / scale
        // A streamed JPEG holds a band of rows a thread; anything else is decoded whole first.
        let streamed = info.format == .jpeg && info.orientation == 1
        let decoded = streamed ? width * 4 * 512 * settings.threads : width * height * 4
        let bands = width * 16 * 256 * settings.threads  // the renderer's float strips
        return decoded + bands
    }

    /// The output's size for a file of this (upright) size.
    func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let r = resizedSize(width: width, height: height)
        guard settings.crop, let box = settings.thumbnail else { return r }
        return (min(box.width, r.width), min(box.height, r.height))
    }

    /// The size the file is resampled to before any crop: fitting inside the box, or (cropping)
    /// covering it; never enlarged.
    func resizedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard let box = settings.thumbnail else { return (width, height) }
        let fx = Double(box.width) / Double(width), fy = Double(box.height) / Double(height)
        let s = min(1, settings.crop ? max(fx, fy) : min(fx, fy))
        if s >= 1 { return (width, height) }
        return (max(1, Int((Double(width) * s).rounded())), max(1, Int((Double(height) * s).rounded())))
    }

    /// JPEG's DCT-domain shrink (1, 2, 4 or 8) that still leaves at least 1.5 times the output's
    /// pixels each way for the Lanczos step. The DCT's block scaling averages encoded values, so
    /// where it did all of the shrinking a thumbnail came out darker and blockier than the linear-
    /// light Lanczos it stands for (the Hubble field to 125 px: 7.9 levels off on average, 3.1
    /// with the Lanczos step kept). libvips keeps 2x; 1.5x keeps a 6000x4000 photo to 400 px at
    /// 1/8 (0.33 levels off on average), within vipsthumbnail's memory.
    func decodeScale(_ info: ImageInfo) -> Int {
        guard info.format == .jpeg, settings.thumbnail != nil else { return 1 }
        let upright = info.orientedSize
        let out = resizedSize(width: upright.width, height: upright.height)
        for k in [8, 4, 2] where 2 * (upright.width / k) >= 3 * out.width && 2 * (upright.height / k) >= 3 * out.height { return k }
        return 1
    }

    /// Whether an earlier run already wrote this output from the same bytes and settings.
    func isDone(_ item: BatchItem, hash: String, earlier: BatchRecord?) -> Bool {
        guard let e = earlier, e.inputHash == hash, e.recipeHash == recipeHash, e.input == item.input else { return false }
        let path = outputPath(item)
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return false }
        return e.outputBytes == nil || e.outputBytes == size
    }

    func outputPath(_ item: BatchItem) -> String { settings.outputFolder + "/" + item.relativeOutput }

    func run(_ item: BatchItem, earlier: BatchRecord?) -> BatchRecord {
        let started = DispatchTime.now().uptimeNanoseconds
        var record = BatchRecord(input: item.input, output: item.relativeOutput, status: .failed, recipeHash: recipeHash)
        func finish(_ r: BatchRecord) -> BatchRecord {
            var r = r
            r.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            return r
        }
        if let problem = Self.notARegularFile(item.input) {
            record.reason = problem
            return finish(record)
        }
        guard let (hash, bytes) = BatchDigest.file(item.input) else {
            record.reason = "cannot be read"
            return finish(record)
        }
        record.inputHash = hash
        record.inputBytes = bytes
        if isDone(item, hash: hash, earlier: earlier) {
            var skipped = earlier!
            skipped.status = .skipped
            skipped.seconds = 0
            return skipped
        }
        do {
            let size = try write(item)
            record.status = .done
            record.width = size.width
            record.height = size.height
            let attributes = try? FileManager.default.attributesOfItem(atPath: outputPath(item))
            record.outputBytes = attributes?[.size] as? Int
        } catch {
            record.reason = Self.oneLine(error, path: item.input)
        }
        return finish(record)
    }

    /// Decodes, filters and writes one file; the output's size.
    private func write(_ item: BatchItem) throws -> (width: Int, height: Int) {
        if (try? FileManager.default.attributesOfItem(atPath: item.input))?[.size] as? Int == 0 {
            throw CLIError.failure("empty file")
        }
        let info = try ImageIO.info(path: item.input)
        let upright = info.orientedSize
        guard upright.width * upright.height <= settings.pixelLimit else {
            throw CLIError.failure("\(upright.width)x\(upright.height) is over the pixel limit")
        }
        let scale = decodeScale(info)
        var (image, opened) = try ImageIO.open(path: item.input, options: DecodeOptions(pixelLimit: settings.pixelLimit, jpegScale: scale))
        // Lengths in pixels shrink with the decode, so the file looks as if filtered at full size.
        let (filtered, filters) = try RecipeBuilder.build(settings.steps, on: image, pixelLimit: settings.pixelLimit, scale: 1 / Double(scale))
        image = filtered
        let resized = resizedSize(width: upright.width, height: upright.height)
        if resized.width != image.extent.width || resized.height != image.extent.height {
            image = image.resized(width: resized.width, height: resized.height, sampling: settings.sampling)
        }
        let out = outputSize(width: upright.width, height: upright.height)
        if out.width != image.extent.width || out.height != image.extent.height {
            let e = image.extent
            let x = e.x + (e.width - out.width) / 2, y = e.y + (e.height - out.height) / 2
            image = image.cropped(to: Rect(x: x, y: y, width: out.width, height: out.height)).translatedBy(dx: -x, dy: -y)
        }
        let path = outputPath(item)
        guard let format = ImageFormat.fromExtension(of: path).flatMap({ $0.isWritable ? $0 : nil }) ?? settings.format else {
            throw CLIError.failure("\(item.relativeOutput): cannot tell the output format from the name")
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        Self.removeLeftovers(of: path)
        let context = RenderContext(options: .init(workingSpace: settings.workingSpace, threads: settings.threads))
        let opaque = !info.hasAlpha && filters.allSatisfy(\.preservesOpacity)
        let rect = image.extent
        var encode = settings.encode
        if settings.keepMetadata { encode.metadata = opened.metadata }
        let writer = try ImageIO.makeWriter(
            path: path, format: format, width: rect.width, height: rect.height, hasAlpha: !opaque, options: encode)
        try context.render(image, rect: rect, format: .rgba8, to: writer)
        try writer.finish()
        return (rect.width, rect.height)
    }

    /// Removes what a killed run left of this output: the atomic writer's hidden temporary
    /// (`.NAME.XXXXXX` beside it), which only a SIGKILL can leave (other signals remove it). Only
    /// this output's own: other shards may be writing theirs in the same folder.
    static func removeLeftovers(of path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = "." + (path as NSString).lastPathComponent + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where name.hasPrefix(prefix) && name.count == prefix.count + 6 {
            unlink(folder + "/" + name)
        }
    }

    /// Why `path` is not a regular file to read, or nil: a FIFO or a device named like a photo
    /// would block or never end.
    static func notARegularFile(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else {
            return errno == ENOENT ? "no such file" : "cannot be read (\(String(cString: strerror(errno))))"
        }
        return st.st_mode & S_IFMT == S_IFREG ? nil : "not a regular file"
    }

    /// An error's description on one line, without the file's path (the record names it).
    static func oneLine(_ error: any Error, path: String) -> String {
        var text: String
        switch error {
        case let e as CLIError: text = e.description
        case let e as SfumatoError: text = e.description
        default: text = "\(error)"
        }
        if text.hasPrefix(path + ": ") { text.removeFirst(path.count + 2) }
        return text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "failed"
    }
}
