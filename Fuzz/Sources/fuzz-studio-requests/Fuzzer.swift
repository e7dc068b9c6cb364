import FuzzDriver
import SfumatoFuzzing

@_cdecl("fuzz_studio_requests_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.studioRequests, argc, argv)
}
