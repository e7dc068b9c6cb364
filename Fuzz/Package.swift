// swift-tools-version: 6.0
// The fuzzers: libFuzzer harnesses around Sfumato's entry points (Sources/SfumatoFuzzing), built by
// scripts/fuzz with `-sanitize=fuzzer,address`. A package of its own: its executables get their
// `main` from libFuzzer, so an ordinary `swift build` of the project must never try to link them.
import PackageDescription

let targets = ["decoders", "recipes", "studio-messages", "studio-requests", "documents"]

let package = Package(
    name: "SfumatoFuzz",
    dependencies: [.package(name: "Sfumato", path: "..")],
    targets: [.target(name: "FuzzDriver", dependencies: [.product(name: "SfumatoFuzzing", package: "Sfumato")])]
        + targets.map { name in
            .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzDriver"], path: "Sources/fuzz-\(name)",
                              swiftSettings: [.unsafeFlags(["-parse-as-library"])])
        },
    swiftLanguageModes: [.v6]
)
