import FuzzDriver
import SfumatoFuzzing

@_cdecl("fuzz_studio_messages_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.studioMessages, argc, argv)
}
