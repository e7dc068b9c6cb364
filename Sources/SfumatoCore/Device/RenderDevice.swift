/// Where a ``RenderContext`` computes: the CPU's cores, an NVIDIA GPU, or the GPU when there is
/// one. The filters' definitions are the same on each; only the schedule differs.
///
/// ```swift
/// let context = RenderContext(options: .init(workingSpace: .none, device: .auto))
/// print(RenderDevice.cuda.availability)   // "NVIDIA H200 (sm_90, ...)" or why not
/// ```
public enum RenderDevice: String, Sendable, CaseIterable {
    /// Every core of the CPU (the default).
    case cpu
    /// The first NVIDIA GPU, through the driver's own library (no CUDA toolkit needed). A render
    /// that the GPU route cannot run (a filter without a GPU kernel, a streamed source) fails
    /// with ``SfumatoError/unsupported(_:)`` saying why.
    case cuda
    /// The GPU where a driver and a device are present and the render's filters all have GPU
    /// kernels; otherwise the CPU (``RenderContext/explain(_:rect:format:)`` says which and why).
    case auto

    /// What this device is on this machine, or why it cannot be used.
    public var availability: Availability {
        switch self {
        case .cpu: return .available("CPU, \(defaultThreadCount) thread(s)")
        case .cuda, .auto:
            switch _CUDAContext.shared {
            case .success(let c): return .available(c.summary)
            case .failure(let e): return .unavailable("\(e)")
            }
        }
    }

    /// Whether a device can be used, with its description or the reason it cannot.
    public enum Availability: Sendable, Equatable {
        /// Usable; the description names it (e.g. `NVIDIA H200 (sm_90, 139 GiB, driver CUDA 12.8)`).
        case available(String)
        /// Not usable here, and why (e.g. `no NVIDIA driver: libcuda.so.1 could not be loaded`).
        case unavailable(String)

        /// Whether the device can be used.
        public var isAvailable: Bool { if case .available = self { true } else { false } }
    }
}
