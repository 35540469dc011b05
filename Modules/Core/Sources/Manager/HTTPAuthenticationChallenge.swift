import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP authentication challenge (Basic or Digest) the server sent with a 401: what AFNetworking's
/// challenge blocks receive as `NSURLAuthenticationChallenge`.
public struct HTTPAuthenticationChallenge: Sendable {
    /// Host, port, protocol, realm and authentication method
    /// (`NSURLAuthenticationMethodHTTPBasic` or `NSURLAuthenticationMethodHTTPDigest`).
    public let protectionSpace: URLProtectionSpace
    /// How many credentials were already tried for this task and failed (0 on the first challenge).
    public let previousFailureCount: Int
    /// The credential that failed last, if any.
    public let proposedCredential: URLCredential?
    /// The 401 response.
    public let failureResponse: HTTPURLResponse

    /// Parses the strongest scheme (Digest over Basic) from `response`'s `WWW-Authenticate`, or returns nil.
    init?(response: HTTPURLResponse, previousFailureCount: Int, proposedCredential: URLCredential?) {
        guard let url = response.url, let header = response.value(forHTTPHeaderField: "WWW-Authenticate") else {
            return nil
        }
        let lowered = header.lowercased()
        let method: String
        if lowered.contains("digest") {
            method = NSURLAuthenticationMethodHTTPDigest
        } else if lowered.contains("basic") {
            method = NSURLAuthenticationMethodHTTPBasic
        } else {
            return nil
        }
        let realm = Self.realm(in: header)
        let scheme = url.scheme?.lowercased() ?? "http"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        protectionSpace = URLProtectionSpace(host: url.host ?? "", port: port, protocol: scheme, realm: realm,
                                             authenticationMethod: method)
        self.previousFailureCount = previousFailureCount
        self.proposedCredential = proposedCredential
        failureResponse = response
    }

    /// The `realm="..."` parameter of a challenge header.
    static func realm(in header: String) -> String? {
        guard let range = header.range(of: "realm=", options: .caseInsensitive) else { return nil }
        var rest = header[range.upperBound...]
        if rest.first == "\"" {
            rest = rest.dropFirst()
            return String(rest.prefix { $0 != "\"" })
        }
        return String(rest.prefix { $0 != "," && $0 != " " })
    }
}
