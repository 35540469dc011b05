import FuzzSupport

/// Arbitrary bytes behind the PNG signature through the PNG decoder (see checkImageDecoding): must never crash.
@_cdecl("PNGDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { checkImageDecoding($0, $1, signature: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }
}
