import Foundation

/// A request that goes over a Unix domain socket: the socket's path, and the URL libcurl is given.
///
/// Two ways in, as AsyncHTTPClient accepts them:
/// - the request's URL has the scheme `http+unix` or `https+unix`, and its host is the socket's path,
///   percent-encoded (`http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info`); libcurl then asks for the
///   path and query on `localhost`;
/// - the session has a socket path (``URLSessionManager/Settings/unixSocketPath``): every http and
///   https request goes to it, and its URL's host names the `Host` header.
///
/// Only the caller's own request can name a socket: a redirect to an `http+unix` URL is refused like any
/// other scheme (RedirectRules), and libcurl follows redirects only over the socket the request used.
struct UnixSocketRoute: Equatable {
    let socketPath: String
    /// What `CURLOPT_URL` gets.
    let curlURL: String

    /// The route of `url`, nil when it does not use a socket. `scheme`: the URL's scheme, lowercased (read
    /// once by the caller); `sessionSocketPath`: the session's socket.
    /// - Throws: -1000 `badURL` for an `http+unix` URL whose host is not an absolute path.
    init?(url: URL, scheme: String?, sessionSocketPath: String?) throws {
        switch scheme {
        case "http+unix", "https+unix":
            guard let path = url.host, path.hasPrefix("/"), !path.contains("\0") else {
                throw CurlErrorMapping.error(.badURL, url: url, description:
                    "An http+unix URL's host must be the socket's absolute path, percent-encoded (http+unix://%2Frun%2Fapp.sock/path).")
            }
            var target = "\(scheme == "https+unix" ? "https" : "http")://localhost\(url.path(percentEncoded: true).isEmpty ? "/" : url.path(percentEncoded: true))"
            if let query = url.query(percentEncoded: true) { target += "?\(query)" }
            socketPath = path
            curlURL = target
        default:
            guard let sessionSocketPath else { return nil }
            socketPath = sessionSocketPath
            curlURL = url.absoluteString
        }
    }

    /// Whether `url` names a socket itself (its scheme is `http+unix` or `https+unix`).
    static func isSocketScheme(lowercased scheme: String?) -> Bool {
        switch scheme {
        case "http+unix", "https+unix": true
        default: false
        }
    }
}
