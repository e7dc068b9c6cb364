import SfumatoFuzzing

/// libFuzzer's driver (in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer over one target. SwiftPM names an executable's entry point `<target>_main` and
/// links `main` to it, so each fuzzer defines that and calls this (libFuzzer's own `main` stays out).
public func runFuzzer(_ target: FuzzTarget, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    _current = target
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v) { data, size in
        _current.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }
}

nonisolated(unsafe) var _current = FuzzTarget.decoders
