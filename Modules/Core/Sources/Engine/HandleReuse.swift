/// What an idle easy handle was last configured for.
///
/// Handles go back to the engine's pool after each transfer. A handle whose last transfer was a plain one
/// (no body, credentials, trust or client-certificate hook, ended normally) keeps its options, so the
/// next plain transfer with the same ``PlainTransferOptions`` skips `curl_easy_reset` and sets only its
/// URL, headers and callback data: a small request's setup is then a handful of calls instead of two dozen.
enum HandleState: Equatable {
    /// Never configured.
    case fresh
    /// Configured for a plain transfer with these options, which it still holds.
    case plain(PlainTransferOptions)
    /// Configured for anything else: reset before reuse.
    case dirty
}

/// What becomes of a handle whose transfer ended (``SessionEngine/recycle(_:state:)``).
enum HandleRecycling: Equatable {
    /// Back to the pool as it is, for the next transfer (libcurl 8.1 and later).
    case keep
    /// Its `curl_easy_duphandle` copy goes to the pool, the handle is freed: a copy has the options
    /// without the per-transfer state, such as the freed header libcurl before 8.1 keeps.
    case duplicate
    /// Freed: the pool is full, or (before libcurl 8.1) its options are not worth copying.
    case free

    /// The decision for a handle last configured as `state`.
    init(state: HandleState, poolIsFull: Bool, keepsAFreedHeader: Bool) {
        if poolIsFull {
            self = .free
        } else if !keepsAFreedHeader {
            self = .keep
        } else if case .plain = state {
            self = .duplicate
        } else {
            self = .free
        }
    }
}

/// The options a transfer sets that depend on its session and request (every other option a plain
/// transfer sets is the same for all of them): a plain handle is reused when these are equal.
struct PlainTransferOptions: Equatable {
    var idleTimeoutMilliseconds: Int?
    var resourceTimeoutMilliseconds: Int?
    var followsRedirectsManually: Bool
    var maximumRedirects: Int
    var httpVersion: HTTPVersionPreference
    /// The handshake's versions and identity for https (nil for http).
    var tls: TLSOptions?
    /// The Unix domain socket the transfer connects to (nil: TCP). Part of the reuse key because libcurl
    /// keeps it on the handle: a plain handle never carries a socket into another request.
    var unixSocketPath: String?
    /// The proxy for the request's scheme and host (nil: direct).
    var proxy: String?
    /// The HTTP/2 stream weight of the task's priority.
    var streamWeight: Int
    /// libcurl asks for and decodes compressed bodies (the request names no Accept-Encoding of its own).
    var decodesContent: Bool
    /// The transfer waits for a busy connection to its host rather than opening one (`CURLOPT_PIPEWAIT`):
    /// only when the host is known to multiplex, so a slow HTTP/1.1 response never holds back the
    /// requests queued behind it.
    var waitsForMultiplexing: Bool
}
