import CCurl

/// The libcurl results that not every supported libcurl's headers name (7.85 lacks both), by their
/// numbers, which curl.h never reassigns: the package builds against any libcurl from 7.85 on.
enum CurlResultCode {
    /// `CURLE_TOO_LARGE` (libcurl 8.6): a value met one of libcurl's bounds. For a response, a header line
    /// over 100 KiB (7.x reported that as `CURLE_OUT_OF_MEMORY`) or, from 8.14, more than
    /// ``CurlRuntime/responseHeaderCountLimit`` header lines.
    static let tooLarge = CURLcode(rawValue: 100)
    /// `CURLE_ECH_REQUIRED` (libcurl 8.8): Encrypted Client Hello was required and failed.
    static let echRequired = CURLcode(rawValue: 101)
}
