import FuzzSupport

/// Arbitrary bytes behind the little-endian TIFF signature through libtiff's reader (see
/// checkImageDecoding): must never crash, leak or allocate past the pixel limit's bound.
@_cdecl("TIFFDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { checkImageDecoding($0, $1, signature: [0x49, 0x49, 0x2A, 0x00]) }
}
