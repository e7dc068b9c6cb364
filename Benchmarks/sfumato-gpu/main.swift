import Foundation
import SfumatoCore
import SfumatoFilters

// sfumato-gpu: checks and times the GPU route against the CPU route on one photo.
//
//   sfumato-gpu check PHOTO.rgba WIDTH HEIGHT     every case on both devices, bytes compared
//   sfumato-gpu time PHOTO.rgba WIDTH HEIGHT      GPU kernel times (image resident) and CPU times, JSON
//   sfumato-gpu plan PHOTO.rgba WIDTH HEIGHT      the host's planning time per case (no GPU needed)
//
// SFUMATO_GPU_CASES=TEXT times only the cases whose names contain TEXT.
//
// PHOTO.rgba is raw opaque RGBA8 (Benchmarks/gpu_bench.py makes it from a photo). The tool
// needs only the engine, no codecs, so a static build runs on a GPU machine as it is.

/// One render to compare: filters by name with numeric arguments, in a working space.
struct Case {
    let name: String
    let space: WorkingSpace
    let steps: [String]
    /// More renders after the first, each over the one before's 8-bit result.
    var then: [[String]] = []
    /// The largest difference in levels allowed, and why when it is not 0.
    var tolerance = 0
    var why = ""

    /// Renders every stage with `context`; the last stage's recipe is left unrendered.
    func stages(_ image: Image, _ context: RenderContext) throws -> Image {
        var current = try recipe(image, steps)
        for next in then {
            current = Image(bitmap: try context.render(current))
            current = try recipe(current, next)
        }
        return current
    }

    func recipe(_ image: Image, _ steps: [String]? = nil) throws -> Image {
        var out = image
        for step in steps ?? self.steps {
            if step == "intermediate" {
                out = out.insertingIntermediate()
                continue
            }
            if step.hasPrefix("preset:") {
                guard let p = GalleryPreset.named(String(step.dropFirst(7))) else { throw SfumatoError.unknownName(step) }
                out = p.apply(to: out, reference: nil)
                continue
            }
            let parts = step.split(separator: ":", maxSplits: 1).map(String.init)
            var values: [String: ParameterValue] = [:]
            for kv in parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : [] {
                let p = kv.split(separator: "=", maxSplits: 1).map(String.init)
                guard p.count == 2, let v = Double(p[1]) else { throw SfumatoError.invalidArgument("bad argument \(kv)") }
                values[p[0]] = .number(v)
            }
            out = try FilterRegistry.make(parts[0], values: values).apply(to: out)
        }
        return out
    }
}

let pencil = ["hue-adjust:angle=1", "color-controls:saturation=2,brightness=0.1,contrast=1.2", "exposure-adjust:ev=0.5", "gamma-adjust:power=1.5"]
let cases: [Case] =
    [
        Case(name: "PencilController chain, encoded", space: .none, steps: pencil),
        Case(name: "PencilController chain, linear light", space: .linear, steps: pencil),
        Case(name: "hue-adjust", space: .none, steps: ["hue-adjust:angle=2"]),
        Case(name: "color-controls", space: .none, steps: ["color-controls:saturation=1.5,contrast=1.1"]),
        Case(name: "exposure-adjust", space: .linear, steps: ["exposure-adjust:ev=0.7"]),
        Case(name: "gamma-adjust", space: .none, steps: ["gamma-adjust:power=1.5"]),
        Case(name: "tone-curve", space: .none, steps: ["tone-curve"]),
        Case(name: "sepia-tone", space: .none, steps: ["sepia-tone"]),
        Case(name: "color-invert", space: .none, steps: ["color-invert"]),
        Case(name: "gaussian sigma 2", space: .none, steps: ["gaussian-blur:radius=2"]),
        Case(name: "gaussian sigma 10", space: .none, steps: ["gaussian-blur:radius=10"]),
        Case(name: "median 3x3", space: .none, steps: ["median:diameter=3"]),
        Case(name: "median 5x5", space: .none, steps: ["median:diameter=5"]),
        Case(name: "median 7x7", space: .none, steps: ["median:diameter=7"]),
        Case(name: "median 15x15", space: .none, steps: ["median:diameter=15"]),
        Case(name: "CIMedianFilter", space: .none, steps: ["median-filter"]),
        Case(name: "gaussian 2 + median 3x3", space: .none, steps: ["gaussian-blur:radius=2", "median:diameter=3"]),
        Case(
            name: "PencilController chain, then gaussian 2 + median 3x3 of its result", space: .none, steps: pencil,
            then: [["gaussian-blur:radius=2", "median:diameter=3"]]),
        // The same pixels in one render: an 8-bit intermediate instead of a bitmap in between.
        Case(
            name: "PencilController chain, 8-bit intermediate, gaussian 2 + median 3x3: one render", space: .none,
            steps: pencil + ["intermediate", "gaussian-blur:radius=2", "median:diameter=3"])
    ]
    + GalleryPreset.all.dropFirst().filter { !$0.needsReference }.map { p in
        // The border whose windows meet a transparent outside is redone on the CPU, in float. There
        // the CPU's sigma 5 is a recursive (Deriche) Gaussian whose values depend on where its tile
        // starts: the border as a strip of its own differs from the whole render's by a level in
        // about 130 bytes of a 6000x4000 photo's 96 million (rows 0-4, partial alpha).
        Case(
            name: "gallery: \(p.name)", space: .none, steps: ["preset:\(p.slug)"], tolerance: p.slug == "gaussian-blur" ? 1 : 0,
            why: p.slug == "gaussian-blur" ? "the CPU's recursive float border depends on its tile, by a level" : "")
    }

func load(_ args: ArraySlice<String>) throws -> Image {
    guard args.count >= 3, let w = Int(args[args.startIndex + 1]), let h = Int(args[args.startIndex + 2]),
        (1...65536).contains(w), (1...65536).contains(h)
    else {
        throw SfumatoError.invalidArgument("usage: sfumato-gpu check|time PHOTO.rgba WIDTH HEIGHT (sides 1...65536)")
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: args[args.startIndex]))
    guard data.count == w * h * 4 else { throw SfumatoError.invalidArgument("\(data.count) bytes is not \(w)x\(h) RGBA8") }
    let bitmap = try Bitmap(width: w, height: h, format: .rgba8, alpha: .straight)
    data.withUnsafeBytes { raw in
        for y in 0..<h { bitmap.row(y).copyMemory(from: raw.baseAddress! + y * w * 4, byteCount: w * 4) }
    }
    // A photo without alpha, as a decoder declares it (no render then reads 96 MB to find out).
    bitmap.declareOpaque()
    return Image(bitmap: bitmap)
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

/// The photo's top-left corner `width` × `height`, copied (an odd height, to check the GPU's
/// bands where they do not divide the image evenly).
func corner(_ photo: Image, width: Int, height: Int) throws -> Image {
    let source = try RenderContext().render(photo)
    let out = try Bitmap(width: min(width, source.width), height: min(height, source.height), format: .rgba8, alpha: .straight)
    for y in 0..<out.height { out.row(y).copyMemory(from: source.row(y), byteCount: out.width * 4) }
    out.declareOpaque()
    return Image(bitmap: out)
}

/// Compares every case's GPU render with its CPU render, on the photo, on an odd-sized corner of
/// it (bands that do not divide it evenly), on a 64x3 corner, and on a corner whose rows are not a
/// multiple of 16 bytes with 64 MiB of GPU memory allowed (bands forced small, rows copied one by
/// one); false if any exceeds its tolerance.
func check(_ photo: Image) throws -> Bool {
    let odd = try corner(photo, width: photo.extent.width - 4, height: photo.extent.height * 3 / 4 | 1)
    let unaligned = try corner(photo, width: photo.extent.width - 2, height: photo.extent.height * 3 / 4 | 1)
    let whole = check(photo, label: "")
    let banded = check(odd, label: "\(odd.extent.width)x\(odd.extent.height): ")
    // Fewer rows than an interpolating Gaussian has anchor rows (its scratch must still hold them).
    let tiny = try corner(photo, width: 64, height: 3)
    let short = check(tiny, label: "64x3: ")
    // A histogram needs the whole image on the device: not in 64 MiB.
    let bounded = check(unaligned, label: "\(unaligned.extent.width)x\(unaligned.extent.height), 64 MiB: ", limit: 64 << 20) {
        !$0.name.contains("Histogram")
    }
    // ... and says so, with .cuda; with .auto it renders on the CPU.
    var refused = false
    if let histogram = cases.first(where: { $0.name.contains("Histogram") }) {
        let limited = RenderContext(options: .init(workingSpace: .none, device: .cuda, deviceMemoryLimit: 64 << 20))
        do { _ = try limited.render(try histogram.stages(unaligned, limited)) } catch { refused = "\(error)".contains("MiB may be used") }
        let auto = RenderContext(options: .init(workingSpace: .none, device: .auto, deviceMemoryLimit: 64 << 20))
        refused = refused && (try? auto.render(try histogram.stages(unaligned, auto))) != nil
        print("\(histogram.name), 64 MiB: \(refused ? "ok (refused on the GPU, rendered by .auto on the CPU)" : "FAIL")")
    }
    return whole && banded && short && bounded && refused && checkSink(photo)
}

/// A render to a strip-encoding sink from the GPU: its strips are encoded on every core and
/// taken in order, the bytes the CPU route writes to memory.
func checkSink(_ photo: Image) -> Bool {
    final class Reversing: StripEncodingSink {
        let stripRowMultiple = 16
        var data: [UInt8] = []
        var strips: [Int] = []
        var rowWrites = 0
        func write(rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws { rowWrites += 1 }
        // An encoding that loses nothing and cannot pass for the rows: the bytes reversed.
        func encode(strip index: Int, rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws -> [UInt8] {
            UnsafeRawBufferPointer(start: rows, count: rowBytes * count).reversed()
        }
        func write(encoded: [UInt8], strip index: Int, count: Int) throws {
            strips.append(index)
            data += encoded.reversed()
        }
    }
    do {
        let recipe = try FilterRegistry.make("gaussian-blur", values: ["radius": .number(2)]).apply(to: photo)
        let cpu = try RenderContext(options: .init(workingSpace: .none)).render(recipe)
        let sink = Reversing()
        let gpu = RenderContext(options: .init(workingSpace: .none, device: .cuda))
        try gpu.render(recipe, rect: recipe.extent, to: sink)
        let same = sink.data == Array(UnsafeRawBufferPointer(start: cpu.baseAddress, count: cpu.byteCount))
        let ok = same && sink.rowWrites == 0 && sink.strips == Array(0..<sink.strips.count) && sink.strips.count > 1
        print("gaussian 2 to a strip-encoding sink: \(sink.strips.count) strips in order, \(ok ? "ok" : "FAIL")")
        return ok
    } catch {
        print("gaussian 2 to a strip-encoding sink: FAIL \(error)")
        return false
    }
}

func check(_ photo: Image, label: String, limit: Int? = nil, including: (Case) -> Bool = { _ in true }) -> Bool {
    print("device: \(RenderDevice.cuda.availability)")
    print(
        String(
            format: "%-48@ %-7@ %9@ %12@ %5@  %@", "case" as NSString, "space" as NSString, "max diff" as NSString, "bytes off" as NSString, "tol" as NSString,
            "result" as NSString))
    var ok = true
    for c in cases where including(c) {
        do {
            let cpuContext = RenderContext(options: .init(workingSpace: c.space))
            let gpuContext = RenderContext(options: .init(workingSpace: c.space, device: .cuda, deviceMemoryLimit: limit))
            let cpu = try cpuContext.render(try c.stages(photo, cpuContext))
            let gpu = try gpuContext.render(try c.stages(photo, gpuContext))
            var worst = 0, off = 0, first: [String] = []
            for y in 0..<cpu.height {
                let a = cpu.row(y).assumingMemoryBound(to: UInt8.self), b = gpu.row(y).assumingMemoryBound(to: UInt8.self)
                for i in 0..<cpu.width * 4 where a[i] != b[i] {
                    off += 1
                    worst = max(worst, abs(Int(a[i]) - Int(b[i])))
                    // Where the first few differ: pixel, channel, CPU byte, GPU byte, pixel's CPU alpha.
                    if first.count < 4 { first.append("(\(i / 4), \(y)) c\(i % 4) \(a[i])/\(b[i]) a\(a[i - i % 4 + 3])") }
                }
            }
            let pass = worst <= c.tolerance
            ok = ok && pass
            print(
                String(
                    format: "%-48@ %-7@ %9d %12d %5d  %@", label + c.name as NSString, "\(c.space)" as NSString, worst, off, c.tolerance,
                    (pass ? "ok" : "FAIL") + (c.why.isEmpty ? "" : " (\(c.why))") + (first.isEmpty ? "" : "; first at " + first.joined(separator: ", "))
                        as NSString))
        } catch {
            ok = false
            print("\(label)\(c.name): FAIL \(error)")
        }
    }
    return ok
}

/// GPU kernel times with the image resident and the CPU route's render times, as JSON lines.
func time(_ photo: Image) throws {
    let cpuContext: (WorkingSpace) -> RenderContext = { RenderContext(options: .init(workingSpace: $0)) }
    let only = ProcessInfo.processInfo.environment["SFUMATO_GPU_CASES"] ?? ""
    for c in cases where only.isEmpty || c.name.contains(only) {
        let gpu = RenderContext(options: .init(workingSpace: c.space, device: .cuda))
        do {
            // Kernel times of every stage, each with its image resident.
            var kernels = 0.0, upload = 0.0, download = 0.0, modules = 0
            var image = photo
            for (i, steps) in ([c.steps] + c.then).enumerated() {
                let recipe = try c.recipe(image, steps)
                let p = try gpu.deviceProfile(recipe, repeats: 20)
                kernels += p.kernelMilliseconds
                upload += p.uploadMilliseconds
                download += p.downloadMilliseconds
                modules = p.compiledModules
                if i < c.then.count { image = Image(bitmap: try gpu.render(recipe)) }
            }
            var cpuTimes: [Double] = []
            let ctx = cpuContext(c.space)
            let bitmap = try Bitmap(width: photo.extent.width, height: photo.extent.height, format: .rgba8)
            for _ in 0..<9 {
                let t0 = now()
                try ctx.render(try c.stages(photo, ctx), rect: photo.extent, into: bitmap)
                cpuTimes.append(now() - t0)
            }
            var gpuWhole: [Double] = []
            let out = try Bitmap(width: photo.extent.width, height: photo.extent.height, format: .rgba8)
            for _ in 0..<9 {
                let t0 = now()
                try gpu.render(try c.stages(photo, gpu), rect: photo.extent, into: out)
                gpuWhole.append(now() - t0)
            }
            // The host's share of a render: planning the recipe and lowering it to GPU steps.
            var planTimes: [Double] = []
            let last = try c.stages(photo, gpu)
            for _ in 0..<9 {
                let t0 = now()
                _ = try gpu.explain(last)
                planTimes.append(now() - t0)
            }
            let median = { (v: [Double]) in v.sorted()[v.count / 2] }
            print(
                "{\"case\": \"\(c.name)\", \"space\": \"\(c.space)\", \"kernel_ms\": \(kernels), \"upload_ms\": \(upload), "
                    + "\"download_ms\": \(download), \"gpu_whole_ms\": \(median(gpuWhole)), \"cpu_ms\": \(median(cpuTimes)), "
                    + "\"plan_ms\": \(median(planTimes)), \"modules\": \(modules)}")
        } catch {
            print("{\"case\": \"\(c.name)\", \"error\": \"\(error)\"}")
        }
    }
}

/// The host's planning time for every case (no GPU needed): medians of 20, milliseconds.
func plan(_ photo: Image) throws {
    let only = ProcessInfo.processInfo.environment["SFUMATO_GPU_CASES"] ?? ""
    for c in cases where only.isEmpty || c.name.contains(only) {
        let context = RenderContext(options: .init(workingSpace: c.space, device: .cpu))
        let recipe = try c.stages(photo, context)
        var times: [Double] = []
        for _ in 0..<200 {
            let t0 = now()
            _ = try context.explain(recipe)
            times.append(now() - t0)
        }
        print(String(format: "%8.3f ms  %@", times.sorted()[100], c.name as NSString))
    }
}

let args = CommandLine.arguments.dropFirst()
do {
    switch args.first {
    case "check": exit(try check(try load(args.dropFirst())) ? 0 : 1)
    case "time": try time(try load(args.dropFirst()))
    case "plan": try plan(try load(args.dropFirst()))
    default:
        print("usage: sfumato-gpu check|time PHOTO.rgba WIDTH HEIGHT")
        exit(2)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
