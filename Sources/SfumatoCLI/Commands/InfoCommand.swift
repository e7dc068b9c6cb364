import Foundation
import SfumatoCodecs

/// `sfumato info`: what an image file's header says.
enum InfoCommand {
    static let help = """
        usage: sfumato info [--json] INPUT...

        Shows format, size, colour profile, orientation, bit depth and alpha of each image.
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.flag("--json")
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        guard !a.positionals.isEmpty else { throw CLIError.usage("info needs an INPUT image") }
        for path in a.positionals {
            let i = try ImageIO.info(path: path)
            let (w, h) = i.orientedSize
            if a.has("--json") {
                var o: [String: Any] = [
                    "file": path, "format": i.format.rawValue, "width": w, "height": h, "storedWidth": i.width,
                    "storedHeight": i.height, "orientation": i.orientation, "bitsPerChannel": i.bitsPerChannel,
                    "channels": i.colorChannels, "alpha": i.hasAlpha
                ]
                if let p = i.iccProfile { o["iccProfile"] = p }
                if let l = i.lossless { o["lossless"] = l }
                if let e = i.metadata.exif { o["exifBytes"] = e.count }
                if let x = i.metadata.xmp { o["xmpBytes"] = x.count }
                let data = try JSONSerialization.data(withJSONObject: o, options: [.sortedKeys])
                output.print(String(decoding: data, as: UTF8.self))
            } else {
                var lines = ["\(path): \(i.format) \(w)x\(h)"]
                if i.orientation != 1 { lines.append("  orientation \(i.orientation) (stored \(i.width)x\(i.height))") }
                let channels = i.colorChannels == 1 ? "grey" : i.colorChannels == 4 ? "CMYK" : "RGB"
                lines.append("  \(i.bitsPerChannel)-bit \(channels)\(i.hasAlpha ? " with alpha" : "")")
                lines.append("  colour profile: \(i.iccProfile ?? "none (sRGB assumed)")")
                if let l = i.lossless { lines.append("  \(l ? "lossless" : "lossy")") }
                if let e = i.metadata.exif { lines.append("  EXIF: \(e.count) bytes") }
                if let x = i.metadata.xmp { lines.append("  XMP: \(x.count) bytes") }
                output.print(lines.joined(separator: "\n"))
            }
        }
    }
}
