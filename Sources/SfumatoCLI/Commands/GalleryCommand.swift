import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters

/// `sfumato gallery`: the MetalImageFilters presets, one PNG each.
enum GalleryCommand {
    static let help = """
        usage: sfumato gallery INPUT -o FOLDER [--reference REF] [--preset NAME] [--working-space none|linear]
                               [--device cpu|cuda|auto]

        Writes one PNG per preset of the MetalImageFilters gallery, named after it in kebab-case
        (pass-through.png, gaussian-blur.png, ..., histogram-specification.png), computed on the
        sRGB-encoded values as the app did (--working-space none, the default).
        --reference REF is the photo whose histogram histogram-specification matches (default:
        the input itself, which changes nothing). --preset NAME writes only that preset.
        --device cuda renders on an NVIDIA GPU (or fails saying why), auto on the GPU where it
        can and on the CPU otherwise; the default is the CPU.
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--output", "-o")
        spec.value("--reference")
        spec.value("--preset")
        spec.value("--working-space")
        spec.value("--device")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        guard a.positionals.count == 1 else { throw CLIError.usage("gallery needs one INPUT image") }
        guard let folder = a.value("--output") else { throw CLIError.usage("gallery needs -o FOLDER") }
        var ws = WorkingSpace.none
        if let w = a.value("--working-space") {
            guard let parsed = WorkingSpace(rawValue: w) else { throw CLIError.usage("--working-space must be linear or none, not \(w)") }
            ws = parsed
        }
        var presets = GalleryPreset.all
        if let name = a.value("--preset") {
            guard let p = GalleryPreset.named(name) else {
                throw CLIError.usage("no preset \(name); presets are \(GalleryPreset.all.map(\.slug).joined(separator: ", "))")
            }
            presets = [p]
        }
        var isFolder: ObjCBool = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            do { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) } catch {
                throw CLIError.failure("\(folder): cannot create the folder (\(error.localizedDescription))")
            }
        } else if !isFolder.boolValue {
            throw CLIError.usage("\(folder) is a file; -o takes a folder")
        }
        // Decode once; every preset reads the same pixels.
        let decoded = try ImageIO.read(path: a.positionals[0])
        let input = Image(bitmap: decoded.bitmap)
        let reference = try a.value("--reference").map { Image(bitmap: try ImageIO.read(path: $0).bitmap) }
        let context = RenderContext(options: .init(workingSpace: ws, device: try CLIDevice.parse(a.value("--device"))))
        for preset in presets {
            let bitmap = try context.render(preset.apply(to: input, reference: reference), rect: input.extent)
            let path = (folder as NSString).appendingPathComponent(preset.slug + ".png")
            try ImageIO.write(bitmap, to: path, format: .png, options: EncodeOptions(pngCompressionLevel: 3))
            output.print(path)
        }
    }
}
