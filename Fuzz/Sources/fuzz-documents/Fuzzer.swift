import FuzzDriver
import SfumatoFuzzing

@_cdecl("fuzz_documents_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.documents, argc, argv)
}
