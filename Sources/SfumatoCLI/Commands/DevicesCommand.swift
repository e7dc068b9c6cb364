import SfumatoCore

/// `sfumato devices`: where renders can compute on this machine, and why a GPU cannot be used.
enum DevicesCommand {
    static let help = """
        usage: sfumato devices

        Lists the devices renders can use (--device cpu|cuda|auto of apply and gallery): the CPU,
        and the NVIDIA GPU with its driver, or why there is none. Exit status 0 either way.
        """

    static func run(_ args: [String], output: TextOutput) throws {
        var spec = Arguments.Spec()
        spec.flag("--help", "-h")
        let a = try Arguments(args, spec: spec)
        if a.has("--help") { output.print(help); return }
        guard a.positionals.isEmpty else { throw CLIError.usage("devices takes no arguments") }
        for device in [RenderDevice.cpu, .cuda] {
            switch device.availability {
            case .available(let what): output.print("\(device.rawValue): \(what)")
            case .unavailable(let why): output.print("\(device.rawValue): unavailable: \(why)")
            }
        }
        let auto = RenderDevice.cuda.availability.isAvailable ? "the GPU where a render's filters all have GPU kernels" : "the CPU"
        output.print("auto: \(auto)")
    }
}
