import SfumatoCore

/// The `--device cpu|cuda|auto` option of the commands that render.
enum CLIDevice {
    /// The device an option names (absent: the CPU).
    static func parse(_ value: String?) throws -> RenderDevice {
        guard let value else { return .cpu }
        guard let d = RenderDevice(rawValue: value) else {
            throw CLIError.usage("--device must be cpu, cuda or auto, not \(value)")
        }
        return d
    }
}
