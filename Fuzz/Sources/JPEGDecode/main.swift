import FuzzSupport

/// Arbitrary bytes behind the JPEG SOI marker through the JPEG decoder (see checkImageDecoding): must never crash.
@_cdecl("JPEGDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { checkImageDecoding($0, $1, signature: [0xFF, 0xD8, 0xFF]) }
}
