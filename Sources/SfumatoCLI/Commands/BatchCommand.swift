import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// `sfumato batch`: many files through one recipe, in parallel within a memory budget, resumable.
enum BatchCommand {
    static let help = """
        usage: sfumato batch INPUT... -o OUTDIR [--recipe R.json | -f FILTER...] [options]

        Runs every INPUT through the recipe and writes the results under OUTDIR, mirroring the input
        tree. INPUT is a file, a folder (searched recursively for JPEG, PNG, WebP, HEIC, AVIF and TIFF files;
        hidden files skipped), or - for a list of paths on standard input. Each output is written
        atomically; a file that fails is reported and the batch goes on. The manifest records every
        result, so a batch that was stopped or killed continues where it left off when run again:
        outputs whose input bytes and settings are unchanged are skipped, everything else is redone.

        options:
          -o, --output OUTDIR      where the outputs go (created)
          -f, --filter FILTER      a filter step, as in sfumato apply (repeatable)
          --recipe FILE            a JSON recipe, as in sfumato apply
          --thumbnail WxH          fit inside W x H pixels (or W for a square), never enlarged; JPEGs
                                   are decoded DCT-scaled when that still leaves enough pixels
          --format jpeg|png|webp|avif|tiff  output format (default: the input's own; jpeg for HEIC)
          --quality Q              JPEG/WebP/AVIF quality 1...100 (default 90)
          --name PATTERN           output file name: {stem} (the input's name without extension),
                                   {name} (with it), {ext} (the output format's); default {stem}.{ext}
          --from LIST              also take the paths listed in LIST, one a line (- is standard input)
          --include GLOB           in folders, take the files matching GLOB (repeatable; by path
                                   below the folder or by name)
          --exclude GLOB           in folders, skip the files matching GLOB (repeatable)
          --jobs N                 files at once (default: one a core)
          --memory BUDGET          memory for the files in flight, e.g. 512M or 4G (default: half of
                                   this machine's memory, at most 8G)
          --shard I/N              only the I-th of N parts (0-based; split by a hash of each path)
          --manifest FILE          the manifest, JSON lines (default OUTDIR/.sfumato-batch.jsonl)
          --strip                  write no metadata (kept by default, as sfumato apply keeps it)
          --json                   one JSON line a file on standard output, and a summary line
          --dry-run                list what would be done, do nothing
          --working-space linear|none, --pixel-limit MP   as in sfumato apply

        Exit status: 0 when every file is done (now or earlier), 1 when any failed, 2 for a usage error.
        """

    static func run(_ args: [String], output: TextOutput) throws -> Int32 {
        var spec = Arguments.Spec()
        for name in [
            "--recipe", "--thumbnail", "--format", "--quality", "--name", "--jobs", "--memory", "--shard", "--manifest", "--working-space", "--pixel-limit"
        ] {
            spec.value(name)
        }
        spec.value("--output", "-o")
        spec.value("--filter", "-f", repeatable: true)
        spec.value("--from", repeatable: true)
        spec.value("--include", repeatable: true)
        spec.value("--exclude", repeatable: true)
        spec.flag("--json")
        spec.flag("--strip")
        spec.flag("--dry-run")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") {
            output.print(help)
            return 0
        }
        guard let outputFolder = a.value("--output") else { throw CLIError.usage("batch needs -o OUTDIR") }
        var inputs = BatchInputs()
        inputs.paths = a.positionals.filter { $0 != "-" }
        inputs.lists = a.all("--from") + (a.positionals.contains("-") ? ["-"] : [])
        inputs.include = a.all("--include")
        inputs.exclude = a.all("--exclude")
        inputs.skipFolders = [outputFolder]
        guard !inputs.paths.isEmpty || !inputs.lists.isEmpty else { throw CLIError.usage("batch needs INPUT files, folders, --from LIST or -") }

        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = try a.integer("--jobs", in: 1...1024) ?? cores
        var settings = BatchSettings(outputFolder: (outputFolder as NSString).standardizingPath)
        settings.threads = max(1, cores / jobs)
        settings.steps = try steps(a)
        if let t = a.value("--thumbnail") { settings.thumbnail = try thumbnail(t) }
        if let f = a.value("--format") {
            guard let parsed = ImageFormat(name: f) else { throw CLIError.usage("--format must be jpeg, png, webp, avif or tiff, not \(f)") }
            settings.format = parsed
        }
        if let q = try a.integer("--quality", in: 1...100) { settings.encode.quality = q }
        if let ws = a.value("--working-space") {
            guard let w = WorkingSpace(rawValue: ws) else { throw CLIError.usage("--working-space must be linear or none, not \(ws)") }
            settings.workingSpace = w
        }
        settings.pixelLimit = (try a.integer("--pixel-limit", in: 1...2000) ?? 200) * 1_000_000
        settings.keepMetadata = !a.has("--strip")
        let pattern = a.value("--name") ?? "{stem}.{ext}"
        try checkPattern(pattern)
        let shard = try a.value("--shard").map(BatchShard.init(parsing:)) ?? .whole
        let budget = try a.value("--memory").map(memoryBudget) ?? defaultBudget()

        let format = settings.format
        let items = try inputs.items { name in outputName(pattern, input: name, format: format) }.filter(shard.contains)
        let manifestPath = a.value("--manifest") ?? settings.outputFolder + "/.sfumato-batch.jsonl"
        let json = a.has("--json")
        if a.has("--dry-run") {
            let job = BatchJob(settings: settings, recipeHash: settings.hash)
            let earlier =
                FileManager.default.fileExists(atPath: manifestPath)
                ? try BatchManifest(path: manifestPath, waiting: {}).earlier : [:]
            for item in items {
                let hash = BatchDigest.file(item.input)?.hash ?? ""
                let done = job.isDone(item, hash: hash, earlier: earlier[item.relativeOutput])
                output.print("\(done ? "skip" : "make") \(job.outputPath(item)) <- \(item.input)")
            }
            output.error(
                "batch: \(items.count) files, \(items.filter { job.isDone($0, hash: BatchDigest.file($0.input)?.hash ?? "", earlier: earlier[$0.relativeOutput]) }.count) already done (dry run: nothing written)"
            )
            return 0
        }
        try FileManager.default.createDirectory(atPath: settings.outputFolder, withIntermediateDirectories: true)
        let manifest = try BatchManifest(path: manifestPath) {
            output.error("batch: another batch is writing \(manifestPath); waiting for it to end")
        }
        let style: BatchProgress.Style = json ? .json : output.errorIsTerminal ? .bar : .quiet
        let progress = BatchProgress(total: items.count, style: style, output: output)
        let runner = BatchRunner(
            items: items, job: BatchJob(settings: settings, recipeHash: settings.hash), manifest: manifest,
            jobs: jobs, memory: BatchMemory(budget: budget), progress: progress)
        let records = runner.run()
        progress.summary(records)
        return records.contains { $0.status == .failed } ? 1 : 0
    }

    /// The -f steps, then the recipe's, each checked against the filters' declarations first.
    static func steps(_ a: Arguments) throws -> [FilterStep] {
        var steps = try a.all("--filter").map(FilterSpecParser.parse)
        for step in steps {
            do { try ApplyCommand.validate(step) } catch let e as SfumatoError { throw CLIError.usage(e.description) }
        }
        if let recipe = a.value("--recipe") {
            let recipeSteps = try FilterSpecParser.parseRecipe(try _readInputFile(recipe, what: "recipe"), name: recipe)
            for step in recipeSteps {
                do { try ApplyCommand.validate(step) } catch let e as SfumatoError { throw CLIError.usage("\(recipe): \(e.description)") }
            }
            steps += recipeSteps
        }
        // Batch sizes every output itself (and may decode at a reduced scale): a filter that
        // moves pixels would be undone or misplaced by that.
        for step in steps where (try? FilterRegistry.filterType(named: step.name))?.descriptor.category == .geometry {
            throw CLIError.usage("\(step.name): batch sizes its outputs itself and takes no geometry filter; use sfumato apply")
        }
        return steps
    }

    /// `WxH` or `W` (a square), each 1...65500.
    static func thumbnail(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let sides = parts.map { Int($0) }
        guard (parts.count == 1 || parts.count == 2), let w = sides[0], let h = sides.last!, (1...65500).contains(w), (1...65500).contains(h) else {
            throw CLIError.usage("--thumbnail takes WxH (each 1...65500) or W, not \(text)")
        }
        return (w, h)
    }

    /// `512M`, `4G`, `100000K` or bytes; 16 MiB...1 TiB.
    static func memoryBudget(_ text: String) throws -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = text.uppercased()
        if digits.hasSuffix("B") { digits.removeLast() }
        var unit = 1
        if let last = digits.last, let u = units[last] {
            unit = u
            digits.removeLast()
        }
        guard let n = Double(digits), n.isFinite, n > 0, n * Double(unit) >= Double(1 << 24), n * Double(unit) <= Double(1 << 40) else {
            throw CLIError.usage("--memory takes a size from 16M to 1T, such as 512M or 4G, not \(text)")
        }
        return Int(n * Double(unit))
    }

    static func defaultBudget() -> Int {
        min(Int(ProcessInfo.processInfo.physicalMemory / 2), 8 << 30)
    }

    static func checkPattern(_ pattern: String) throws {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
        guard !pattern.isEmpty, !pattern.hasPrefix("/"), !parts.contains(where: { $0 == ".." || $0.isEmpty }) else {
            throw CLIError.usage("--name must be a relative name without .. or empty parts, not \(pattern)")
        }
        var rest = pattern
        for token in ["{stem}", "{name}", "{ext}"] { rest = rest.replacingOccurrences(of: token, with: "") }
        guard !rest.contains("{") && !rest.contains("}") else {
            throw CLIError.usage("--name knows {stem}, {name} and {ext}, not \(pattern)")
        }
    }

    /// The output's file name for an input's file name.
    static func outputName(_ pattern: String, input name: String, format: ImageFormat?) -> String {
        let stem = (name as NSString).deletingPathExtension
        let own = ImageFormat.fromExtension(of: name)
        // An input in a format Sfumato does not write (HEIC) becomes a JPEG.
        let target = format ?? own.flatMap { $0.isWritable ? $0 : nil } ?? .jpeg
        // Without --format, a file keeps its own spelling of its extension (.jpeg, .TIF).
        let ext = target == own && format == nil ? (name as NSString).pathExtension : target.fileExtension
        return pattern.replacingOccurrences(of: "{stem}", with: stem).replacingOccurrences(of: "{name}", with: name)
            .replacingOccurrences(of: "{ext}", with: ext)
    }
}
