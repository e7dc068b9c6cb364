import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// `sfumato thumbnail`: small copies of photos, fast. The batch engine with a thumbnailer's
/// defaults: shrink-on-load (TurboJPEG's DCT scaling), then Lanczos-3 in linear light for the
/// rest, the EXIF orientation applied, colour profiles converted to sRGB (and an sRGB profile
/// embedded where the input had one), metadata kept unless --strip; several files at once.
enum ThumbnailCommand {
    static let help = """
        usage: sfumato thumbnail INPUT... [-s WxH] [--crop] [-o DIR | -o PATTERN] [options]

        Writes a thumbnail of each INPUT (files or folders of JPEG, PNG, WebP, HEIC, AVIF or TIFF), fitting
        inside W x H pixels (never enlarged), or with --crop filling W x H and cut to it, centred.
        JPEGs are decoded DCT-scaled (1/2, 1/4, 1/8) where that still leaves 1.5 times the output's
        pixels; the rest is Lanczos-3 in linear light. EXIF orientation is applied (and reset to 1), colour profiles
        are converted to sRGB, EXIF and XMP are kept (--strip drops them).

        options:
          -s, --size WxH       the box (or W for a square), default 128
          --crop               fill the box and cut the overflow
          -o, --output DIR     write DIR/NAME.jpg; or a PATTERN with %s for the input's name
                               without extension, e.g. -o thumbs/tn_%s.webp (default: tn_%s.jpg here)
          --format jpeg|png|webp|avif|tiff  output format when the name has none of those extensions
          --quality Q          JPEG/WebP/AVIF quality 1...100 (default 90)
          --strip              write no metadata
          --jobs N             files at once (default: one a core)
          --pixel-limit MP     refuse inputs over MP million pixels (default 200)

        Exit status: 0 when every file was written, 1 when any failed, 2 for a usage error.
        """

    static func run(_ args: [String], output: TextOutput) throws -> Int32 {
        var spec = Arguments.Spec()
        for name in ["--format", "--quality", "--jobs", "--pixel-limit"] { spec.value(name) }
        spec.value("--size", "-s")
        spec.value("--output", "-o")
        spec.flag("--crop")
        spec.flag("--strip")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") {
            output.print(help)
            return 0
        }
        guard !a.positionals.isEmpty else { throw CLIError.usage("thumbnail needs INPUT files or folders") }
        let target = a.value("--output") ?? "tn_%s.jpg"
        // A pattern names files (its folder holds them); anything else is a folder.
        let (folder, pattern): (String, String)
        if target.contains("%s") {
            let name = (target as NSString).lastPathComponent
            guard name.contains("%s"), name.components(separatedBy: "%s").count == 2 else {
                throw CLIError.usage("-o PATTERN takes one %s, in the file name: \(target)")
            }
            let parent = (target as NSString).deletingLastPathComponent
            (folder, pattern) = (parent.isEmpty ? "." : parent, name.replacingOccurrences(of: "%s", with: "{stem}"))
        } else {
            (folder, pattern) = (target, "{stem}.{ext}")
        }
        var settings = BatchSettings(outputFolder: (folder as NSString).standardizingPath)
        settings.thumbnail = try BatchCommand.thumbnail(a.value("--size") ?? "128")
        settings.crop = a.has("--crop")
        settings.sampling = .lanczos3
        settings.keepMetadata = !a.has("--strip")
        if let f = a.value("--format") {
            guard let parsed = ImageFormat(name: f) else { throw CLIError.usage("--format must be jpeg, png, webp, avif or tiff, not \(f)") }
            settings.format = parsed
        } else if let refusal = ImageFormat.fromExtension(of: pattern)?.writeRefusal {
            throw CLIError.usage("\(pattern): \(refusal)")
        } else if ImageFormat.fromExtension(of: pattern) == nil {
            settings.format = .jpeg
        }
        if let q = try a.integer("--quality", in: 1...100) { settings.encode.quality = q }
        settings.pixelLimit = (try a.integer("--pixel-limit", in: 1...2000) ?? 200) * 1_000_000
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = try a.integer("--jobs", in: 1...1024) ?? cores
        settings.threads = max(1, cores / jobs)

        var inputs = BatchInputs()
        inputs.paths = a.positionals
        inputs.skipFolders = [settings.outputFolder]
        let format = settings.format
        let items = try inputs.items { name in
            let out = BatchCommand.outputName(pattern, input: name, format: format)
            // A pattern with its own extension keeps it; otherwise the format's.
            return out
        }
        try FileManager.default.createDirectory(atPath: settings.outputFolder, withIntermediateDirectories: true)
        // Every file is made again (no resuming): the record goes to a temporary manifest.
        let manifestPath = NSTemporaryDirectory() + "/sfumato-thumbnail-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: manifestPath) }
        let manifest = try BatchManifest(path: manifestPath) {}
        let progress = BatchProgress(total: items.count, style: output.errorIsTerminal && items.count > 1 ? .bar : .quiet, output: output)
        let runner = BatchRunner(
            items: items, job: BatchJob(settings: settings, recipeHash: settings.hash), manifest: manifest,
            jobs: jobs, memory: BatchMemory(budget: BatchCommand.defaultBudget()), progress: progress)
        let records = runner.run()
        for r in records where r.status == .failed { output.error("thumbnail: \(r.input): \(r.reason ?? "failed")") }
        return records.contains { $0.status == .failed } ? 1 : 0
    }
}
