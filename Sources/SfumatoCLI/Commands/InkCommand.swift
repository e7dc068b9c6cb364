import Foundation
import SfumatoCodecs
import SfumatoCore
import SfumatoFilters
import SfumatoInk

/// `sfumato ink`: renders a scene of pen strokes.
enum InkCommand {
    static let help = """
        usage: sfumato ink SCENE.json -o OUT.png [--fade-steps N] [--over PHOTO] [--scale S]

        Renders a scene: {"canvas": {"width": W, "height": H, "background": "#ffffff"},
        "strokes": [{"brush": "force-pen"|"pencil"|"pen"|"eraser", "color": "#336699",
        "samples": [{"x": 10.5, "y": 20, "pressure": 0.4, "altitude": 1.1, "azimuth": 0.3, "t": 0}]}]}
        (a sample may give tiltX/tiltY in degrees instead of the angles).
          --fade-steps N   then run N frames of ForceSketch's fade on the ink layer (8-bit, as the app)
          --over PHOTO     draw over a photo (scaled to the canvas) instead of the background
          --scale S        render at S times the canvas size (0.1...8)
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.value("--output", "-o")
        spec.value("--fade-steps")
        spec.value("--over")
        spec.value("--scale")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        guard a.positionals.count == 1 else { throw CLIError.usage("ink needs one SCENE.json") }
        guard let out = a.value("--output") else { throw CLIError.usage("ink needs -o OUT") }
        guard let format = ImageFormat.fromExtension(of: out) else {
            throw CLIError.usage("\(out): cannot tell the format from the name; use .png, .jpg, .webp, .avif or .tif")
        }
        let fadeSteps = try a.integer("--fade-steps", in: 0...10_000) ?? 0
        var scale = 1.0
        if let s = a.value("--scale") {
            guard let v = Double(s), v >= 0.1, v <= 8 else { throw CLIError.usage("--scale must be 0.1...8, not \(s)") }
            scale = v
        }
        let path = a.positionals[0]
        let data = try _readInputFile(path, what: "scene")
        let scene = try Scene.decode(data, name: path)
        let layer = try scene.layer(scale: scale, format: fadeSteps > 0 ? .rgba8 : .rgbaFloat32)
        for _ in 0..<fadeSteps {
            if layer.fadeStep() == 0 { break }
        }
        let extent = layer.accumulator.extent
        var background: Image?
        if let photo = a.value("--over") {
            let decoded = try ImageIO.read(path: photo)
            background = Image(bitmap: decoded.bitmap).resized(width: extent.width, height: extent.height)
        } else if let bg = scene.canvas.background, bg != "transparent", let c = parseColor(bg) {
            background = Image(color: SIMD4(c.x, c.y, c.z, 1)).cropped(to: extent)
        }
        var recipe = layer.image
        if let background { recipe = SourceOverCompositing(background: background).apply(to: recipe) }
        let bitmap = try RenderContext(workingSpace: .none).render(recipe, rect: extent)
        try ImageIO.write(bitmap, to: out, format: format)
    }
}
