import FuzzDriver
import SfumatoFuzzing

@_cdecl("fuzz_recipes_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.recipes, argc, argv)
}
