import CCurl
import CCurlShim

/// libcurl's process-wide initialization, done once before the first handle is made (curl_global_init
/// is not thread-safe, so every engine goes through this one lazily initialized constant).
enum CurlRuntime {
    static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    /// Makes sure libcurl is initialized; call before creating any handle.
    static func ensureInitialized() {
        _ = initialized
    }
}
