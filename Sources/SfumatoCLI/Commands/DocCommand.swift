import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoDocument
import SfumatoFilters
import SfumatoInk

/// `sfumato doc`: documents that keep every edit, with unlimited undo.
enum DocCommand {
    static let help = """
        usage: sfumato doc COMMAND DOC [ARGS]

          doc new IMAGE -o DOC.sfumato        create a document for an image
          doc apply DOC --recipe R.json       add filter steps (each one action); -f FILTER works too
          doc ink DOC SCENE.json              add the scene's strokes (each one action) [--layer sketch|shade]
          doc undo DOC [N]                    take back N actions (default 1)
          doc redo DOC [N]                    re-apply N undone actions
          doc log DOC                         the history (* marks applied actions)
          doc render DOC -o OUT [--width W] [--strip]   export (full size, or W wide; EXIF/XMP kept unless --strip)
          doc check DOC                       integrity check, schema version, counts
        """

    static func run(_ args: [String], output: TextOutput) throws {
        guard let sub = args.first, sub != "--help", sub != "-h" else { output.print(help); return }
        let rest = Array(args.dropFirst())
        switch sub {
        case "new": try new(rest, output)
        case "apply": try apply(rest, output)
        case "ink": try ink(rest, output)
        case "undo", "redo": try undoRedo(sub == "undo", rest, output)
        case "log": try log(rest, output)
        case "render": try render(rest, output)
        case "check": try check(rest, output)
        case "stress": try stress(rest, output)
        default: throw CLIError.usage("unknown doc command \(sub); try sfumato doc --help")
        }
    }

    static func open(_ a: Arguments, _ what: String) throws -> Document {
        guard let path = a.positionals.first else { throw CLIError.usage("doc \(what) needs a DOC") }
        return try Document(open: path)
    }

    static func new(_ args: [String], _ output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--output", "-o")
        let a = try Arguments(args, spec: spec)
        guard a.positionals.count == 1 else { throw CLIError.usage("doc new needs one IMAGE") }
        guard let out = a.value("--output") else { throw CLIError.usage("doc new needs -o DOC.sfumato") }
        let image = a.positionals[0]
        let doc = try Document.create(at: out, image: try ImageIO.readBytes(path: image), name: (image as NSString).lastPathComponent)
        output.print("\(out): \(doc.width)x\(doc.height) \(doc.name)")
    }

    static func apply(_ args: [String], _ output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--recipe")
        spec.value("--filter", "-f", repeatable: true)
        spec.value("--working-space")
        let a = try Arguments(args, spec: spec)
        let doc = try open(a, "apply")
        var ws = WorkingSpace.linear
        if let w = a.value("--working-space") {
            guard let p = WorkingSpace(rawValue: w) else { throw CLIError.usage("--working-space must be linear or none") }
            ws = p
        }
        var steps = try a.all("--filter").map(FilterSpecParser.parse)
        if let r = a.value("--recipe") {
            steps += try FilterSpecParser.parseRecipe(try _readInputFile(r, what: "recipe"), name: r)
        }
        guard !steps.isEmpty else { throw CLIError.usage("doc apply needs --recipe R.json or -f FILTER") }
        // Check every step before recording any.
        let recipe = steps.map { RecipeStep(filter: $0.name, values: $0.values, workingSpace: ws) }
        for s in recipe {
            do {
                let d = try FilterRegistry.filterType(named: s.filter).descriptor
                _ = try d.arguments(values: s.values)
            } catch let e as SfumatoError { throw CLIError.usage(e.description) }
        }
        for s in recipe { try doc.apply(.edit(s)) }
        output.print("\(doc.path): \(recipe.count) edit(s) added; history \(doc.historyPosition)/\(doc.historyLength)")
    }

    static func ink(_ args: [String], _ output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--layer")
        let a = try Arguments(args, spec: spec)
        guard a.positionals.count == 2 else { throw CLIError.usage("doc ink needs DOC and SCENE.json") }
        let doc = try Document(open: a.positionals[0])
        var layer = LayerKind.sketch
        if let l = a.value("--layer") {
            guard let k = LayerKind(rawValue: l) else { throw CLIError.usage("--layer must be sketch or shade") }
            layer = k
        }
        let scene = try Scene.decode(try _readInputFile(a.positionals[1], what: "scene"), name: a.positionals[1])
        for s in scene.strokes { try doc.addStroke(s.stroke, layer: layer) }
        output.print("\(doc.path): \(scene.strokes.count) stroke(s) added; history \(doc.historyPosition)/\(doc.historyLength)")
    }

    static func undoRedo(_ undo: Bool, _ args: [String], _ output: TextOutput) throws {
        let a = try Arguments(args, spec: Arguments.Spec())
        let doc = try open(a, undo ? "undo" : "redo")
        var n = 1
        if a.positionals.count > 1 {
            guard let v = Int(a.positionals[1]), v >= 1 else { throw CLIError.usage("N must be a positive whole number") }
            n = v
        }
        let done = undo ? try doc.undo(n) : try doc.redo(n)
        output.print("\(doc.path): \(undo ? "undid" : "redid") \(done); history \(doc.historyPosition)/\(doc.historyLength)")
    }

    static func log(_ args: [String], _ output: TextOutput) throws {
        let a = try Arguments(args, spec: Arguments.Spec())
        let doc = try open(a, "log")
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for e in try doc.history() {
            output.print("\(e.applied ? "*" : " ") \(e.sequence)  \(f.string(from: e.date))  \(e.action.summary)")
        }
        output.print("position \(doc.historyPosition) of \(doc.historyLength)")
    }

    static func render(_ args: [String], _ output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--output", "-o")
        spec.value("--width")
        spec.value("--quality")
        spec.flag("--strip")
        let a = try Arguments(args, spec: spec)
        let doc = try open(a, "render")
        guard let out = a.value("--output") else { throw CLIError.usage("doc render needs -o OUT") }
        guard let format = ImageFormat.fromExtension(of: out) else { throw CLIError.usage("\(out): use .png, .jpg, .webp, .avif or .tif") }
        let width = try a.integer("--width", in: 1...20000)
        let bitmap = try doc.render(width: width)
        var options = EncodeOptions()
        if let q = try a.integer("--quality", in: 1...100) { options.quality = q }
        if !a.has("--strip") { options.metadata = doc.photoMetadata() }
        try ImageIO.write(bitmap, to: out, format: format, options: options)
        output.print("\(out): \(bitmap.width)x\(bitmap.height)")
    }

    static func check(_ args: [String], _ output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.flag("--json")
        let a = try Arguments(args, spec: spec)
        let doc = try open(a, "check")
        let r = try doc.check()
        if a.has("--json") {
            let o: [String: Any] = [
                "ok": r.ok, "schemaVersion": r.schemaVersion, "integrity": r.integrity, "problems": r.problems, "actions": r.actions,
                "position": r.position, "strokes": r.strokes, "samples": r.samples,
                "unfinishedStrokes": r.unfinishedStrokes, "images": r.images, "bytes": r.bytes
            ]
            output.print(String(decoding: try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys]), as: UTF8.self))
        } else {
            output.print(
                """
                \(doc.path): \(r.ok ? "ok" : "PROBLEMS: \(r.summary)")
                  schema version \(r.schemaVersion), \(r.bytes) bytes
                  \(r.actions) actions (position \(r.position)), \(r.strokes) strokes (\(r.unfinishedStrokes) unfinished), \(r.samples) samples, \(r.images) image(s)
                """)
        }
        if !r.ok { throw CLIError.failure("\(doc.path): the check found \(r.problems.count + (r.integrity == "ok" ? 0 : 1)) problem(s): \(r.summary)") }
    }

    /// For the crash test: applies a stream of edits and strokes, printing `committed K` after
    /// each action is durable, until killed.
    static func stress(_ args: [String], _ output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--seed")
        spec.value("--count")
        let a = try Arguments(args, spec: spec)
        let doc = try open(a, "stress")
        var seed = UInt64(try a.integer("--seed", in: 0...Int(Int32.max)) ?? 1) &* 6_364_136_223_846_793_005 &+ 1
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let count = try a.integer("--count", in: 1...1_000_000) ?? 1_000_000
        for _ in 0..<count {
            if next() < 0.5 {
                try doc.apply(.curve((0..<5).map { Double($0) / 4 * 0.5 + next() * 0.5 }))
            } else {
                let id = try doc.beginStroke(layer: .sketch, brush: BrushSettings(kind: .forcePen), fades: false)
                for b in 0..<5 {
                    try doc.appendSamples(
                        stroke: id,
                        (0..<4).map { k in
                            PenSample(x: next() * Double(doc.width), y: next() * Double(doc.height), pressure: next(), timestamp: Double(b * 4 + k))
                        })
                }
                try doc.endStroke(id)
            }
            // One line per durable action, flushed, so the parent knows what was committed.
            StandardStream.output.write("committed \(doc.historyLength)\n")
        }
    }
}
