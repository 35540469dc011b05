import FuzzSupport

/// Arbitrary bytes behind the BMP signature through the BMP decoder (see checkImageDecoding): must never crash.
@_cdecl("BMPDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { checkImageDecoding($0, $1, signature: Array("BM".utf8)) }
}
