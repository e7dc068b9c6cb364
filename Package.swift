// swift-tools-version: 6.0
// Sfumato: a Core-Image-style engine, an ink engine and a pen-driven studio, in Swift, on Linux.
import PackageDescription

#if arch(x86_64)
let wideVectorFlags: [SwiftSetting] = [.unsafeFlags(["-target-cpu", "icelake-server"])]
#else
let wideVectorFlags: [SwiftSetting] = []
#endif

let package = Package(
    name: "Sfumato",
    products: [
        .library(name: "SfumatoCore", targets: ["SfumatoCore"]),
        .library(name: "SfumatoCodecs", targets: ["SfumatoCodecs"]),
        .library(name: "SfumatoFilters", targets: ["SfumatoFilters"]),
        .library(name: "SfumatoInk", targets: ["SfumatoInk"]),
        .library(name: "SfumatoDocument", targets: ["SfumatoDocument"]),
        .library(name: "SfumatoStudio", targets: ["SfumatoStudio"]),
        .library(name: "SfumatoCLI", targets: ["SfumatoCLI"]),
        // The fuzzers' entry points (Fuzz/ builds them with libFuzzer; the regression tests run them plain).
        .library(name: "SfumatoFuzzing", targets: ["SfumatoFuzzing"]),
        .executable(name: "sfumato", targets: ["sfumato"]),
    ],
    targets: [
        // C libraries from Debian, each wrapped as a system library (module map + shim header).
        .systemLibrary(name: "CJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev", "libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CSPNG", pkgConfig: "spng", providers: [.apt(["libspng-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMalloc"),
        // Which cores a thread runs on (glibc's affinity calls).
        .systemLibrary(name: "CThreads"),
        // AVX-512 intrinsics that are C macros (gathers), as inline functions Swift can call.
        .systemLibrary(name: "CWideVectors"),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CExif", pkgConfig: "libexif", providers: [.apt(["libexif-dev"])]),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),

        // The engine.
        // Twins of the hottest 8-bit loops in 512-bit vectors, compiled for AVX-512 and entered
        // only where `CPUFeatures.wideVectors` says the processor has it.
        .target(name: "SfumatoAVX512", dependencies: ["CWideVectors"], swiftSettings: wideVectorFlags),
        // Device/CUDA/Kernels holds the CUDA C sources of the GPU kernels; scripts/cuda-kernels
        // compiles them to the PTX text that _GalleryPTX.swift carries.
        .target(name: "SfumatoCore", dependencies: ["SfumatoAVX512", "CThreads"], exclude: ["Device/CUDA/Kernels"]),
        .target(name: "SfumatoCodecs", dependencies: ["SfumatoCore", "CJPEG", "CSPNG", "CWebP", "CLCMS2", "CExif", "CHeif", "CTIFF"]),
        .target(name: "SfumatoFilters", dependencies: ["SfumatoCore", "SfumatoAVX512"]),
        .target(name: "SfumatoInk", dependencies: ["SfumatoCore", "SfumatoFilters"]),
        .target(name: "SfumatoDocument", dependencies: ["SfumatoCore", "SfumatoCodecs", "SfumatoFilters", "SfumatoInk", "CSQLite", "CCrypto"]),
        .target(name: "SfumatoStudio", dependencies: ["SfumatoCore", "SfumatoCodecs", "SfumatoFilters", "SfumatoInk", "SfumatoDocument",
                                                       "CWebSockets", "CCrypto", "CQREncode"],
                resources: [.copy("Resources/web"), .copy("Resources/photos")]),

        // The command-line tool: its commands live in a library so tests can drive them.
        .target(name: "SfumatoCLI", dependencies: ["SfumatoCore", "SfumatoCodecs", "SfumatoFilters", "SfumatoInk", "SfumatoDocument", "SfumatoStudio", "CCrypto", "CMalloc"]),
        .executableTarget(name: "sfumato", dependencies: ["SfumatoCLI"]),
        .target(name: "SfumatoFuzzing", dependencies: ["SfumatoCore", "SfumatoCodecs", "SfumatoFilters", "SfumatoDocument", "SfumatoStudio", "SfumatoCLI"]),

        // The benchmark helper that Benchmarks/bench.py drives (times Sfumato in-process).
        .executableTarget(name: "sfumato-bench", dependencies: ["SfumatoCore", "SfumatoCodecs", "SfumatoFilters", "SfumatoInk", "SfumatoDocument"],
                          path: "Benchmarks/sfumato-bench"),
        // The GPU route's bytes check and timings (engine only, so a static build runs on a GPU machine).
        .executableTarget(name: "sfumato-gpu", dependencies: ["SfumatoCore", "SfumatoFilters"], path: "Benchmarks/sfumato-gpu"),

        // Tests, with shared support (reference implementations, photo loading).
        .target(name: "SfumatoTestSupport", dependencies: ["SfumatoCore", "SfumatoCodecs", "SfumatoFilters"], path: "Tests/SfumatoTestSupport"),
        .testTarget(name: "SfumatoCoreTests", dependencies: ["SfumatoCore", "SfumatoTestSupport"]),
        .testTarget(name: "SfumatoCodecsTests", dependencies: ["SfumatoCodecs", "SfumatoTestSupport", "CTIFF"]),
        .testTarget(name: "SfumatoFiltersTests", dependencies: ["SfumatoFilters", "SfumatoCodecs", "SfumatoTestSupport"]),
        .testTarget(name: "SfumatoInkTests", dependencies: ["SfumatoInk", "SfumatoCodecs", "SfumatoTestSupport"]),
        .testTarget(name: "SfumatoDocumentTests", dependencies: ["SfumatoDocument", "SfumatoCodecs", "SfumatoTestSupport", "CSQLite"]),
        .testTarget(name: "SfumatoStudioTests", dependencies: ["SfumatoStudio", "SfumatoDocument", "SfumatoCodecs", "SfumatoTestSupport"]),
        .testTarget(name: "SfumatoFuzzTests", dependencies: ["SfumatoFuzzing", "SfumatoTestSupport"]),
        .testTarget(name: "SfumatoCLITests", dependencies: ["SfumatoCLI", "SfumatoFilters", "SfumatoTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
