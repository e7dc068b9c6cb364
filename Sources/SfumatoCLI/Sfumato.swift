import Foundation
import SfumatoCodecs
import SfumatoCore

/// `sfumato`: the command-line tool.
public enum SfumatoCommand {
    public static let version = "0.1.0"

    static let usage = """
        sfumato \(version): a Core-Image-style image engine and pen-driven studio

        usage: sfumato COMMAND [ARGS]

        commands:
          studio    the pen-driven studio in the browser (the main job)
          apply     filter an image:        sfumato apply IN -o OUT [-f FILTER]... [--recipe R.json]
          filters   list filters and their parameters
          info      show an image file's format, size, orientation and colour profile
          gallery   the twelve MetalImageFilters presets, one PNG each
          batch     many files: sfumato batch IN... -o OUTDIR [--recipe R.json] [--thumbnail 400x400]
          thumbnail small copies, fast: sfumato thumbnail IN... [-s 400x400] [--crop] [-o DIR|PATTERN]
          ink       render a scene of pen strokes (brushes, pressure, tilt, fade)
          doc       documents: new, apply, ink, undo, redo, log, render, check
          devices   where renders can compute: the CPU, an NVIDIA GPU (or why not)

        sfumato COMMAND --help shows each command's options.
        """

    /// Runs the process's command line and exits.
    public static func main() {
        // An interrupted command leaves no temporary file behind (the studio sets its own handlers).
        TemporaryFiles.installSignalCleanup()
        let args = Array(CommandLine.arguments.dropFirst())
        let code = run(args)
        exit(code)
    }

    /// Runs a command line (without the program name); returns the exit code.
    public static func run(_ args: [String], output: TextOutput = .standard) -> Int32 {
        guard let command = args.first else {
            output.error(usage)
            return 2
        }
        let rest = Array(args.dropFirst())
        do {
            switch command {
            case "apply": try ApplyCommand.run(rest, output: output)
            case "filters": try FiltersCommand.run(rest, output: output)
            case "info": try InfoCommand.run(rest, output: output)
            case "gallery": try GalleryCommand.run(rest, output: output)
            case "ink": try InkCommand.run(rest, output: output)
            case "batch": return try BatchCommand.run(rest, output: output)
            case "thumbnail": return try ThumbnailCommand.run(rest, output: output)
            case "doc": try DocCommand.run(rest, output: output)
            case "studio": try StudioCommand.run(rest, output: output)
            case "devices": try DevicesCommand.run(rest, output: output)
            case "--help", "-h", "help":
                output.print(usage)
            case "--version":
                output.print("sfumato \(version)")
            default:
                throw CLIError.usage("unknown command \(command); try sfumato --help")
            }
            return 0
        } catch let e as CLIError {
            output.error("sfumato: \(e.description)")
            return e.exitCode
        } catch let e as SfumatoError {
            output.error("sfumato: \(e.description)")
            return 1
        } catch {
            output.error("sfumato: \(error)")
            return 1
        }
    }
}

/// Where commands print: the terminal, or a buffer in tests.
public final class TextOutput: @unchecked Sendable {
    public private(set) var out = ""
    public private(set) var err = ""
    private let capture: Bool

    public init(capture: Bool) { self.capture = capture }

    public static let standard = TextOutput(capture: false)

    /// Whether lines go to a terminal (colours and drawings may use its escape sequences).
    var isTerminal: Bool { !capture && isatty(STDOUT_FILENO) == 1 }
    /// Whether standard error is a terminal (a progress bar may be redrawn there).
    var errorIsTerminal: Bool { !capture && isatty(STDERR_FILENO) == 1 }

    func print(_ s: String) {
        if capture { out += s + "\n" } else { StandardStream.output.write(s + "\n") }
    }

    func error(_ s: String, terminator: String = "\n") {
        if capture { err += s + terminator } else { StandardStream.error.write(s + terminator) }
    }
}
