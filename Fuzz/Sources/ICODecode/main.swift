import FuzzSupport

/// Arbitrary bytes behind the ICO signature (reserved 0, type 1) through the icon decoder, its BMP
/// entries and its PNG ones (see checkImageDecoding): must never crash.
@_cdecl("ICODecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { checkImageDecoding($0, $1, signature: [0, 0, 1, 0]) }
}
