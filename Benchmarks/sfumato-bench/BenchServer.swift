import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoInk
import SfumatoDocument

/// A line protocol on standard input so the Python harness can interleave Sfumato with its
/// peers in one run without paying process start-up per sample:
///
///   load KEY PATH                    decode an image into memory (and, when opaque, a packed
///                                    RGB8 copy for OUT rgb8)               -> ok W H
///   load-gray KEY PATH               decode, keep its luminance as Gray8   -> ok W H
///   bytes KEY PATH                   read a file's bytes into memory      -> ok N
///   decode KEY [rgb8]                time decoding those bytes (rgb8: packed RGB8 when opaque) -> ms T
///   encode-jpeg KEY Q                time JPEG encoding of an image       -> ms T
///   filter KEY WS OUT SPEC...        time rendering filters over an image -> ms T
///       WS linear|none; OUT rgba8|rgb8|float|gray (rgb8: packed RGB8 in and out, images
///       named by @NAME too; float: input and output RGBA Float32; gray: a load-gray image in,
///       Gray8 out)
///       SPEC like the CLI's -f: NAME or NAME:key=value,...; `preset:SLUG` for gallery presets
///   explain KEY WS SPEC...           the render plan                      -> plan lines, then end
///   threads N                        threads for later renders            -> ok
///   fusion on|off                    fuse consecutive point filters (on)  -> ok
///   ink N WIDTH [pencil]             an N-sample stroke on a 1920x1280 layer -> ms T batch4 T p99 T
///                                    (pencil: a flat pencil's shading, 60 px wide whatever WIDTH)
///   doc PHOTO FOLDER                 document commit times and size         -> edit T batch T end T size BYTES
///   quit
/// Errors answer `error MESSAGE`.
enum BenchServer {
    nonisolated(unsafe) static var images: [String: Bitmap] = [:]
    nonisolated(unsafe) static var floats: [String: Bitmap] = [:]
    nonisolated(unsafe) static var grays: [String: Bitmap] = [:]
    nonisolated(unsafe) static var packed: [String: Bitmap] = [:]
    /// Whether `@NAME` parameters take the packed copies (while building an `rgb8` recipe).
    nonisolated(unsafe) static var packedParameters = false
    nonisolated(unsafe) static var files: [String: [UInt8]] = [:]
    nonisolated(unsafe) static var threads = defaultThreadCount
    nonisolated(unsafe) static var fusion = true
    /// Tile width and strip height (`tiles W H`), for measuring tile shapes.
    nonisolated(unsafe) static var tileSize = (width: 1024, height: 64)

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }

    static func reply(_ s: String) {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    static func main() {
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            do {
                try handle(command, Array(words.dropFirst()))
            } catch {
                reply("error \(error)")
            }
            if command == "quit" { return }
        }
    }

    static func handle(_ command: String, _ a: [String]) throws {
        switch command {
        case "load":
            let b = try ImageIO.read(path: a[1]).bitmap
            images[a[0]] = b
            if b.format == .rgba8 && b.isOpaque { packed[a[0]] = try b.packedToRGB8() }
            floats[a[0]] = try RenderContext().render(Image(bitmap: b), format: .rgbaFloat32, alpha: .premultiplied)
            reply("ok \(b.width) \(b.height)")
        case "load-gray":
            let b = try ImageIO.read(path: a[1]).bitmap
            let context = RenderContext(options: .init(workingSpace: .none))
            grays[a[0]] = try context.render(Image(bitmap: b), format: .gray8)
            reply("ok \(b.width) \(b.height)")
        case "bytes":
            files[a[0]] = try ImageIO.readBytes(path: a[1])
            reply("ok \(files[a[0]]!.count)")
        case "decode":
            let bytes = files[a[0]]!
            let options = DecodeOptions(packRGB: a.count > 1 && a[1] == "rgb8")
            let t0 = now()
            _ = try ImageIO.read(bytes: bytes, options: options)
            reply("ms \(now() - t0)")
        case "encode-jpeg":
            let b = images[a[0]]!
            let t0 = now()
            var options = EncodeOptions(quality: Int(a[1]) ?? 90)
            options.threads = threads
            _ = try JPEG.encode(b, options: options)
            reply("ms \(now() - t0)")
        case "encode-png":
            let b = images[a[0]]!
            let t0 = now()
            _ = try PNG.encode(b, options: EncodeOptions(pngCompressionLevel: Int(a[1]) ?? 6))
            reply("ms \(now() - t0)")
        case "threads":
            threads = Int(a[0]) ?? defaultThreadCount
            reply("ok")
        case "tiles":
            tileSize = (Int(a[0]) ?? 1024, Int(a[1]) ?? 64)
            reply("ok")
        case "fusion":
            fusion = a.first != "off"
            reply("ok")
        case "filter", "explain":
            let key = command == "filter" ? a[0] : a[0]
            // "linear-float": linear light with the 16-bit word kernels off (the float route).
            let ws = WorkingSpace(rawValue: a[1]) ?? .linear
            let float = command == "filter" && a[2] == "float"
            let gray = command == "filter" ? a[2] == "gray" : grays[key] != nil
            let rgb = command == "filter" && a[2] == "rgb8"
            let specs = Array(a.dropFirst(command == "filter" ? 3 : 2))
            guard let source = float ? floats[key] : gray ? grays[key] : rgb ? packed[key] : images[key] else {
                throw SfumatoError.invalidArgument("no \(a[2]) image \(key)")
            }
            var recipe = Image(bitmap: source)
            packedParameters = rgb
            defer { packedParameters = false }
            for spec in specs { recipe = try apply(spec, to: recipe) }
            var options = RenderContext.Options(
                workingSpace: ws, threads: threads, tileWidth: tileSize.width,
                tileHeight: tileSize.height, fusion: fusion)
            options.linearBytes = a[1] != "linear-float"
            let context = RenderContext(options: options)
            if command == "explain" {
                reply(try context.explain(recipe, rect: source.bounds, format: gray ? .gray8 : .rgba8))
                reply("end")
                return
            }
            // The output is allocated inside the timed region, as the peers' are (and freed before
            // the next run, so a same-sized render may reuse its memory, as theirs could).
            let t0 = now()
            // Filters that change the size (a resize, a crop, a reduction) render their own extent.
            let e = recipe.extent
            let rect = e.isInfinite || e.contains(source.bounds) ? source.bounds : e
            let out = try context.render(
                recipe, rect: rect, format: float ? .rgbaFloat32 : gray ? .gray8 : rgb ? .rgb8 : .rgba8,
                alpha: float ? .premultiplied : .straight)
            let ms = now() - t0
            withExtendedLifetime(out) {}
            reply("ms \(ms)")
        case "ink":
            // ink N WIDTH: a N-sample stroke WIDTH px wide across a 1920x1280 layer (whole, median of 15),
            // then the median time of extending a stroke by batches of 4 samples. With `pencil`, the
            // pencil's graphite shading (altitude 0.1: 60 px wide) at half pressure.
            let n = Int(a[0]) ?? 1000, width = Double(a[1]) ?? 60
            let pencil = a.count > 2 && a[2] == "pencil"
            let samples = (0..<n).map { k -> PenSample in
                let t = Double(k) / Double(n - 1)
                return PenSample(
                    x: 100 + 1700 * t, y: 640 + 400 * sin(t * 9), pressure: pencil ? 0.5 : 1, altitude: pencil ? 0.1 : 1.2,
                    timestamp: Double(k))
            }
            let settings = pencil ? BrushSettings(kind: .pencil) : BrushSettings(kind: .pen, color: "#336699", width: [width, width])
            let layer = try InkLayer(width: 1920, height: 1280)
            // A warm layer, as in the studio (the first touch of fresh pages is the kernel's cost).
            layer.draw(Stroke(brush: settings, samples: samples))
            layer.clear()
            var wholes: [Double] = []
            for _ in 0..<15 {
                layer.clear()
                let t0 = now()
                layer.draw(Stroke(brush: settings, samples: samples))
                wholes.append(now() - t0)
            }
            let whole = wholes.sorted()[wholes.count / 2]
            let r = layer.begin(settings)
            var batches: [Double] = []
            var i = 0
            while i < n {
                let t1 = now()
                r.append(Array(samples[i..<min(n, i + 4)]))
                batches.append(now() - t1)
                i += 4
            }
            batches.sort()
            reply("ms \(whole) batch4 \(batches[batches.count / 2]) p99 \(batches[batches.count * 99 / 100])")
        case "doc":
            // doc PHOTO FOLDER: median time to commit one edit, one stroke batch (4 samples) and one
            // stroke end; then the file size with 1,000 strokes of 100 samples.
            let path = a[1] + "/bench-\(getpid()).sfumato"
            unlink(path)
            let doc = try Document.create(at: path, image: try ImageIO.readBytes(path: a[0]), name: "photo")
            defer { unlink(path); unlink(path + "-wal"); unlink(path + "-shm") }
            var edits: [Double] = [], batches: [Double] = [], ends: [Double] = []
            for i in 0..<50 {
                let t0 = now()
                try doc.apply(.curve([0, 0.25, 0.5 + Double(i % 10) / 100, 0.75, 1]))
                edits.append(now() - t0)
            }
            for stroke in 0..<1000 {
                let id = try doc.beginStroke(layer: .sketch, brush: BrushSettings(kind: .forcePen), fades: false)
                for b in 0..<25 {
                    let samples = (0..<4).map { k in PenSample(x: Double(b * 4 + k) * 5, y: Double(stroke % 400), pressure: 0.5, timestamp: Double(k)) }
                    let t0 = now()
                    try doc.appendSamples(stroke: id, samples)
                    if stroke < 40 { batches.append(now() - t0) }
                }
                let t0 = now()
                try doc.endStroke(id)
                if stroke < 40 { ends.append(now() - t0) }
            }
            try doc.checkpoint()
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
            reply("edit \(median(edits)) batch \(median(batches)) end \(median(ends)) size \(size)")
        case "quit":
            return
        default:
            reply("error unknown command \(command)")
        }
    }

    static func apply(_ spec: String, to image: Image) throws -> Image {
        if spec.hasPrefix("preset:") {
            guard let p = GalleryPreset.named(String(spec.dropFirst(7))) else { throw SfumatoError.unknownName(spec) }
            return p.apply(to: image, reference: nil)
        }
        if spec == "no-fusion-barrier" { return image }
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        var values: [String: ParameterValue] = [:]
        var inputs: [String: (Image, String)] = [:]
        if parts.count == 2 {
            for kv in splitTopLevel(parts[1]) {
                let p = kv.split(separator: "=", maxSplits: 1).map(String.init)
                guard p.count == 2 else { throw SfumatoError.invalidArgument("bad parameter \(kv)") }
                if p[1].hasPrefix("[") {
                    values[p[0]] = .vector(p[1].dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == ";" }).compactMap { Double($0) })
                } else if let d = Double(p[1]) {
                    values[p[0]] = .number(d)
                } else if p[1] == "true" || p[1] == "false" {
                    values[p[0]] = .flag(p[1] == "true")
                } else if p[1].hasPrefix("@"), let b = (packedParameters ? packed : images)[String(p[1].dropFirst())] {
                    // key=@NAME: a loaded image as an image parameter (a blend's background).
                    let type = try FilterRegistry.filterType(named: parts[0])
                    guard let spec = type.descriptor.parameter(named: p[0]) else { throw SfumatoError.invalidArgument("no parameter \(p[0])") }
                    inputs[spec.key] = (Image(bitmap: b), p[1])
                } else {
                    values[p[0]] = .text(p[1])
                }
            }
        }
        return try FilterRegistry.make(parts[0], values: values, images: inputs).apply(to: image)
    }

    static func splitTopLevel(_ s: String) -> [String] {
        var parts: [String] = [], current = "", depth = 0
        for ch in s {
            if ch == "[" { depth += 1 }
            if ch == "]" { depth -= 1 }
            if ch == "," && depth == 0 { parts.append(current); current = "" } else { current.append(ch) }
        }
        parts.append(current)
        return parts
    }
}
