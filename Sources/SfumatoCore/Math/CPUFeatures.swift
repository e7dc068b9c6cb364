import Foundation
import Synchronization

/// What the processor this runs on can do beyond the x86-64 baseline the package is compiled
/// for (SSE2), read once from the kernel's CPU flags.
///
/// Kernels with a 512-bit twin in the `SfumatoAVX512` module call it when `wideVectors` is on;
/// that module is compiled for AVX-512 and must not be entered otherwise (its code would fault
/// with an illegal instruction). Results are identical either way: the twins do the same
/// arithmetic, lane for lane.
///
/// ```swift
/// if CPUFeatures.wideVectors { /* call the AVX-512 twin */ }
/// ```
public enum CPUFeatures {
    /// The instruction sets of the Ice Lake server generation that `SfumatoAVX512` is compiled
    /// for (AVX-512 F, BW, VL, DQ, CD, VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ, IFMA, with BMI and
    /// FMA), enabled by the operating system: Ice Lake, Sapphire Rapids and later Xeons, Zen 4
    /// and later. False on other architectures.
    /// The `/proc/cpuinfo` flags `hasAVX512` requires: what `-target-cpu icelake-server` lets
    /// the compiler use.
    public static let requiredFlags = [
        "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd", "avx512vbmi", "avx512_vbmi2",
        "avx512_vnni", "avx512_bitalg", "avx512_vpopcntdq", "avx512ifma", "bmi1", "bmi2", "fma",
        "f16c", "movbe", "popcnt", "gfni", "vaes", "vpclmulqdq"
    ]

    public static let hasAVX512: Bool = {
        #if arch(x86_64) && os(Linux)
            guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
                let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
            else { return false }
            let flags = Set(line.split(separator: " ").map(String.init))
            return requiredFlags.allSatisfy(flags.contains)
        #else
            return false
        #endif
    }()

    /// Whether kernels take their AVX-512 twins: `hasAVX512`, unless the environment variable
    /// `SFUMATO_SIMD=baseline` asks for the baseline code (to compare the two, or to benchmark
    /// an older machine). Tests switch it with `withBaselineVectors(_:)`.
    public static var wideVectors: Bool { wideVectorsAvailable && _baselineRequests.load(ordering: .relaxed) == 0 }

    /// Whether kernels take their AVX-512 twins when no `withBaselineVectors` call is running:
    /// `hasAVX512`, unless `SFUMATO_SIMD=baseline`.
    public static var wideVectorsAvailable: Bool { hasAVX512 && !_baselineByEnvironment }

    static let _baselineByEnvironment = ProcessInfo.processInfo.environment["SFUMATO_SIMD"] == "baseline"
    /// How many `withBaselineVectors` calls are running (a count, so overlapping calls nest).
    static let _baselineRequests = Atomic<Int>(0)

    /// Runs `body` with the wide kernels switched off, for every render in the process while
    /// it runs (for tests and measurements that compare both routes).
    public static func withBaselineVectors<T>(_ body: () throws -> T) rethrows -> T {
        _baselineRequests.add(1, ordering: .relaxed)
        defer { _baselineRequests.subtract(1, ordering: .relaxed) }
        return try body()
    }
}
