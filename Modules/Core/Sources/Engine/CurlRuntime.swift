import CCurl
import CCurlShim

/// libcurl's process-wide initialization, done once before the first handle is made (curl_global_init
/// is not thread-safe, so every engine goes through this one lazily initialized constant).
package enum CurlRuntime {
    static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    /// Whether the loaded libcurl keeps, across transfers, a pointer to the last header it stored for the
    /// previous one, freed when the next transfer starts (curl/curl#11101, fixed in 8.1.0; Debian 12 ships
    /// 7.88.1 without the fix). On such a handle a response whose first header line begins with a space or
    /// tab is "unfolded" into that freed header: a use-after-free and a realloc of freed memory inside
    /// libcurl, so one hostile response kills the process. A handle that never ran a
    /// transfer has no such pointer and refuses the line (CURLE_BAD_FUNCTION_ARGUMENT), so the engine
    /// never runs a second transfer on one handle there (``SessionEngine/recycle(_:state:)``).
    static let reusedHandlesKeepAFreedHeader: Bool = version < 0x08_01_00

    /// The loaded libcurl's `LIBCURL_VERSION_NUM` (0xXXYYZZ), which may be newer than the headers the
    /// package was built against: behaviour that differs by version is decided from this.
    package static let version: UInt32 = afc_curl_version_num()

    /// How many response header lines libcurl accepts in one transfer (redirects and informational blocks
    /// included): 5,000 from libcurl 8.14.0, which then fails the transfer with `CURLE_TOO_LARGE`; nil
    /// before it (only the bytes are bounded, by ``TransferLimits/maximumHeaderSize``).
    package static let responseHeaderCountLimit: Int? = responseHeaderCountLimit(forVersion: version)

    /// ``responseHeaderCountLimit`` for the libcurl whose `LIBCURL_VERSION_NUM` is `version`.
    package static func responseHeaderCountLimit(forVersion version: UInt32) -> Int? {
        version >= 0x08_0E_00 ? 5_000 : nil
    }

    /// The Accept-Encoding line the engine sends when libcurl decodes the response (the request names no
    /// encodings of its own): the line libcurl itself adds for `CURLOPT_ACCEPT_ENCODING` "", which it
    /// leaves out when the header list carries one. Sent from the list because libcurl formats its own
    /// a byte at a time with its printf, twice per request (about 3,900 instructions a request on
    /// 7.88.1). Nil when this libcurl decodes nothing (libcurl then sends its own "identity").
    static let acceptEncodingLine: String? = {
        var buffer = [CChar](repeating: 0, count: 128)
        afc_curl_content_encodings(&buffer, buffer.count)
        let encodings = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return encodings.isEmpty ? nil : "Accept-Encoding: " + encodings
    }()

    /// Makes sure libcurl is initialized; call before creating any handle.
    static func ensureInitialized() {
        _ = initialized
    }
}
