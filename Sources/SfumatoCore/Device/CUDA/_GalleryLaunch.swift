import Foundation

/// Launches the hand-written gallery kernels (`Kernels/*.cu`, compiled into `_GalleryPTX`).
enum _GalleryLaunch {
    /// The kernel entries a device kernel runs, for plans.
    static func entries(for k: DeviceKernel) -> [String] {
        switch k {
        case .gaussian: ["sfumato_gaussian"]
        case .median: ["sfumato_median"]
        case .extreme: ["sfumato_extreme"]
        case .gallery(let entry, _, _): [entry]
        }
    }

    static func run(
        _ k: DeviceKernel, clamp: Bool, from src: _DeviceBuffer, to dst: _DeviceBuffer, width: Int, height: Int,
        context: _CUDAContext, name: String
    ) throws {
        throw SfumatoError.unsupported("CUDA: \(name) is not wired yet")
    }

    static func histogram(_ image: _DeviceBuffer, width: Int, height: Int, into counts: _DeviceBuffer, context: _CUDAContext) throws {
        throw SfumatoError.unsupported("CUDA: histograms are not wired yet")
    }
}
