import FuzzDriver
import SfumatoFuzzing

@_cdecl("fuzz_decoders_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.decoders, argc, argv)
}
