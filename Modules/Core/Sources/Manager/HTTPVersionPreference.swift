/// The HTTP version a session's transfers ask for (libcurl's `CURLOPT_HTTP_VERSION`).
public enum HTTPVersionPreference: Sendable, Hashable, CaseIterable {
    /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 in clear text. The default.
    case automatic
    /// HTTP/1.1 only, also over TLS.
    case http1_1
    /// HTTP/2 wherever possible: over TLS by ALPN, in clear text by an `Upgrade: h2c` request.
    case http2
}
