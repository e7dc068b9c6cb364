import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// `sfumato apply`: decode, filter, encode, streaming strip by strip where the formats allow.
enum ApplyCommand {
    static let help = """
        usage: sfumato apply INPUT -o OUTPUT [-f FILTER]... [--recipe RECIPE.json] [options]

        Filters INPUT through each -f FILTER (in order), then the recipe's steps, and writes OUTPUT.
        FILTER is NAME or NAME:key=value,key=value; vectors go in brackets:
          -f CIHueAdjust:inputAngle=1.2 -f exposure-adjust:ev=0.5
          -f 'CIToneCurve:inputPoint1=[0.25 0.4]'   -f gaussian-blur:radius=8,edges=clamp
        RECIPE.json is a JSON array: [{"filter": "CIHueAdjust", "inputAngle": 1.2}, ...]
        INPUT or OUTPUT - means standard input / output. The output covers the input's extent, or the
        result's after a geometry filter or a reduction (crop, scale, turn, area average).

        options:
          -o, --output FILE           output file (.jpg .png .webp .avif .tif) or -
          -f, --filter FILTER         a filter step (repeatable)
          --recipe FILE               a JSON recipe
          --working-space linear|none compute on linear light (default) or on the encoded values
          --linear-float              in linear light, compute in float throughout: 8-bit
                                      images skip the 16-bit linear word kernels (blurs),
                                      slower, and bytes may differ from the default by a level
          --quality Q                 JPEG/WebP/AVIF quality 1...100 (default 90)
          --format jpeg|png|webp|avif|tiff  output format (default: from the output name)
          --gray                      work on the input's luminance, one grey channel, and
                                      write a greyscale file (WebP: grey as RGB); with
                                      --working-space none, convolution and morphology run
                                      a byte a pixel
          --strip                     write no metadata (by default JPEG output keeps the
                                      input's EXIF, orientation set to 1 and dimensions
                                      updated, its XMP, and an sRGB profile if it had one;
                                      PNG output keeps the EXIF)
          --device cpu|cuda|auto      where to compute (default cpu): cuda renders on an
                                      NVIDIA GPU or fails saying why; auto takes the GPU
                                      when there is one and every filter has a GPU kernel
          --explain                   print the render plan (passes, fusion, tiles, threads,
                                      device; on the GPU its kernels and transfers)
          --no-fusion                 run each point filter as its own pass (for measuring)
          --threads N                 threads rendering and encoding (default: all cores)
          --pixel-limit MP            largest input in megapixels (default 200)
          --full-decode               with --working-space none, decode JPEGs whole even when
                                      a Lanczos scale shrinks them to half or less (by default
                                      they are then decoded DCT-scaled to 1/2, 1/4 or 1/8,
                                      leaving at least a 2x Lanczos step: faster, about a level
                                      off on average; not in linear light, where it would
                                      darken fine detail)
        """

    /// Checks a step's filter name and every non-image value against the declarations.
    static func validate(_ step: FilterStep) throws {
        let d = try FilterRegistry.filterType(named: step.name).descriptor
        var values = step.values
        for key in step.values.keys where d.parameter(named: key)?.kind == .image { values[key] = nil }
        _ = try d.arguments(values: values, images: [:], requireImages: false)
    }

    static func run(_ args: [String], output: TextOutput) throws {
        // One image, once: strips and tiles freed go back to the system at once, so the peak is
        // what is in use (6000x4000 JPEG, Gaussian 2, to JPEG: 55.7 -> 47.1 MiB, medians of 7).
        ProcessMemory.returnLargeBlocks()
        var spec = Arguments.Spec()
        spec.value("--output", "-o")
        spec.value("--filter", "-f", repeatable: true)
        spec.value("--recipe")
        spec.value("--working-space")
        spec.value("--quality")
        spec.value("--format")
        spec.value("--threads")
        spec.value("--pixel-limit")
        spec.value("--device")
        spec.flag("--explain")
        spec.flag("--no-fusion")
        spec.flag("--linear-float")
        spec.flag("--gray")
        spec.flag("--strip")
        spec.flag("--full-decode")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }

        guard a.positionals.count == 1 else {
            throw CLIError.usage(a.positionals.isEmpty ? "apply needs an INPUT image" : "apply takes one INPUT, got \(a.positionals.count)")
        }
        let input = a.positionals[0]
        let outputPath = a.value("--output")
        if outputPath == nil && !a.has("--explain") { throw CLIError.usage("apply needs -o OUTPUT") }

        var workingSpace = WorkingSpace.linear
        if let ws = a.value("--working-space") {
            guard let w = WorkingSpace(rawValue: ws) else {
                throw CLIError.usage("--working-space must be linear or none, not \(ws)")
            }
            workingSpace = w
        }
        var encode = EncodeOptions()
        if let q = try a.integer("--quality", in: 1...100) { encode.quality = q }
        let threads = try a.integer("--threads", in: 1...512) ?? defaultThreadCount
        encode.threads = threads
        let pixelLimit = (try a.integer("--pixel-limit", in: 1...2000) ?? 200) * 1_000_000

        var format: ImageFormat?
        if let f = a.value("--format") {
            guard let parsed = ImageFormat(name: f) else { throw CLIError.usage("--format must be jpeg, png, webp, avif or tiff, not \(f)") }
            format = parsed
        } else if let o = outputPath, o != "-" {
            format = ImageFormat.fromExtension(of: o)
            if format == nil { throw CLIError.usage("\(o): cannot tell the format from the name; use .jpg, .png, .webp, .avif, .tif or --format") }
            if let refusal = format?.writeRefusal { throw CLIError.usage("\(o): \(refusal)") }
        } else if outputPath == "-" {
            throw CLIError.usage("writing to standard output needs --format")
        }

        var steps = try a.all("--filter").map(FilterSpecParser.parse)
        // Check every step before touching the input, so a typo costs nothing: a bad -f is a
        // usage error, a bad recipe a failure naming the file.
        for step in steps {
            do { try validate(step) } catch let e as SfumatoError { throw CLIError.usage(e.description) }
        }
        if let recipe = a.value("--recipe") {
            let recipeSteps = try FilterSpecParser.parseRecipe(try _readInputFile(recipe, what: "recipe"), name: recipe)
            for step in recipeSteps {
                do { try validate(step) } catch let e as SfumatoError { throw CLIError.usage("\(recipe): \(e.description)") }
            }
            steps += recipeSteps
        }

        let device = try CLIDevice.parse(a.value("--device"))
        let gray = a.has("--gray")
        // Grey files decode straight to Gray8; colour ones are turned to grey by a render.
        var options = DecodeOptions(pixelLimit: pixelLimit, keepGray: gray)
        // On encoded values, a JPEG scaled down to half or less is decoded DCT-scaled (the pixel
        // limit still counts the whole file's pixels).
        var shrink: (plan: ShrinkOnLoad, fullSize: (width: Int, height: Int))?
        if input != "-" && !a.has("--full-decode"), let header = try? ImageIO.info(path: input),
            header.width * header.height <= pixelLimit, let plan = ShrinkOnLoad.plan(steps, info: header, workingSpace: workingSpace)
        {
            shrink = (plan, header.orientedSize)
            options.jpegScale = plan.factor
        }
        var renderOptions = RenderContext.Options(
            workingSpace: workingSpace, threads: threads, fusion: !a.has("--no-fusion"), device: device)
        renderOptions.linearBytes = !a.has("--linear-float")
        let context = RenderContext(options: renderOptions)
        func openSource() throws -> (Image, ImageInfo) {
            var (source, info) = try ImageIO.open(path: input, options: options)
            if device != .cpu && !gray {
                // The GPU takes the whole image at once: decode it rather than stream it.
                let decoded = try ImageIO.read(path: input, options: options)
                (source, info) = (Image(bitmap: decoded.bitmap), decoded.info)
            }
            if gray { source = Image(bitmap: try context.render(source, format: .gray8)) }
            return (source, info)
        }
        var (source, info) = try openSource()
        var built: (Image, [any Filter])?
        if let (plan, fullSize) = shrink {
            built = try plan.build(steps, on: source, fullSize: fullSize, pixelLimit: pixelLimit)
            if built == nil {
                // The steps before the resize change the extent: decode whole after all.
                shrink = nil
                options.jpegScale = 1
                (source, info) = try openSource()
            }
        }
        let (recipe, filters) = try built ?? RecipeBuilder.build(steps, on: source, pixelLimit: pixelLimit)
        // Geometry and reductions set the frame: the output covers the result's extent. Otherwise
        // it covers the input's (a blur's soft margin or a generator's plane is cut to it).
        let reframes = filters.contains { [.geometry, .reduction].contains(type(of: $0).descriptor.category) }
        let result = recipe.extent
        let rect = reframes && !result.isInfinite ? result : source.extent
        guard !rect.isEmpty else { throw CLIError.failure("the filters leave nothing to write (an empty extent)") }
        guard rect.width <= 1 << 20, rect.height <= 1 << 20, rect.width * rect.height <= pixelLimit else {
            throw CLIError.failure("the output would be \(rect.width)x\(rect.height), over the pixel limit (--pixel-limit)")
        }

        if a.has("--explain") {
            var plan = try context.explain(recipe, rect: rect, format: gray ? .gray8 : .rgba8)
            if let (shrinking, fullSize) = shrink { plan = shrinking.explanation(fullSize: fullSize) + "\n" + plan }
            if outputPath == "-" { output.error(plan) } else { output.print(plan) }
        }
        guard let outputPath, let format else { return }

        let opaque = !info.hasAlpha && filters.allSatisfy(\.preservesOpacity)
        if !a.has("--strip") { encode.metadata = info.metadata }
        let sixteen = !gray && [.png, .tiff].contains(format) && info.bitsPerChannel > 8
        let pixels: PixelFormat = gray ? .gray8 : sixteen ? .rgba16 : .rgba8
        if outputPath == "-" {
            let bitmap = try context.render(recipe, rect: rect, format: pixels)
            try writeFileAtomically(try ImageIO.encode(bitmap, format: format, options: encode), to: "-")
            return
        }
        let writer = try ImageIO.makeWriter(
            path: outputPath, format: format, width: rect.width, height: rect.height,
            hasAlpha: !opaque, sixteenBit: sixteen, gray: gray, options: encode)
        try context.render(recipe, rect: rect, format: pixels, to: writer)
        try writer.finish()
    }
}
