import FuzzSupport

/// Arbitrary bytes behind a RIFF/WEBP header through libwebp and libwebpdemux (see checkImageDecoding):
/// must never crash. The first 12 bytes are the signature ("RIFF", a size the input keeps, "WEBP").
@_cdecl("WebPDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data, size >= 12 else { return 0 }
        var bytes = Array(UnsafeBufferPointer(start: data, count: size))
        bytes.replaceSubrange(0..<4, with: Array("RIFF".utf8))
        bytes.replaceSubrange(8..<12, with: Array("WEBP".utf8))
        return bytes.withUnsafeBufferPointer { checkImageDecoding($0.baseAddress, $0.count, signature: []) }
    }
}
