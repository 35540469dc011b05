import FuzzSupport

/// Arbitrary bytes behind the GIF signature through the GIF decoder (see checkImageDecoding): must never crash.
@_cdecl("GIFDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { checkImageDecoding($0, $1, signature: Array("GIF89a".utf8)) }
}
