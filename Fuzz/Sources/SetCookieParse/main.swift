@_spi(Fuzzing) import AFNetworking
import Foundation
import FuzzSupport

/// Arbitrary bytes as the Set-Cookie lines of a response (one a line) from a URL the first byte picks:
/// parsing, storing, matching and the file's round trip must keep every invariant and never crash.
@_cdecl("SetCookieParse_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data, size > 0 else { return 0 }
        let bytes = UnsafeBufferPointer(start: data, count: size)
        let url = urls[Int(bytes[0]) % urls.count]
        let lines = bytes.dropFirst().split(separator: 0x0A, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        CookieFuzzing.check(lines: lines, from: url)
        return 0
    }
}

private let urls = [
    "http://a.example.co.uk/dir/page", "https://www.example.com/", "http://127.0.0.1:8080/x/y",
    "https://[::1]/", "http://co.uk/", "https://me.github.io/a", "http://localhost/", "https://h.example/docs/",
].map { URL(string: $0)! }
