import SfumatoCore

extension ParameterSpec {
    /// The sampling parameter the geometry filters share (Core Image's filters take none: its
    /// sampler is bilinear; bicubic is the default here, sharper for the same cost class).
    static func sampling(default value: Sampling = .bicubic) -> ParameterSpec {
        .choice(
            "inputSampling", short: "sampling", default: value.rawValue, Sampling.allCases.map(\.rawValue),
            help: "how pixels are read between centres: nearest, bilinear, bicubic or lanczos3 (widened when shrinking)")
    }
}
