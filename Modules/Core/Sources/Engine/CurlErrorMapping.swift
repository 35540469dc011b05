import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Maps libcurl results to the `URLError` codes of Foundation's URL loading system, as SPEC section 5 lists.
package enum CurlErrorMapping {
    /// The `URLError` code for `code` (never `CURLE_OK`).
    static func urlErrorCode(for code: CURLcode) -> URLError.Code {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL: return .unsupportedURL
        case CURLE_URL_MALFORMAT: return .badURL
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .cannotFindHost
        // A proxy handshake that failed (a SOCKS5 refusal or wrong credentials) is a connection that failed.
        case CURLE_COULDNT_CONNECT, CURLE_PROXY: return .cannotConnectToHost
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2,
             CURLE_HTTP2_STREAM:
            return .networkConnectionLost
        case CURLE_PEER_FAILED_VERIFICATION: return .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return .secureConnectionFailed
        case CURLE_TOO_MANY_REDIRECTS: return .httpTooManyRedirects
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_OUT_OF_MEMORY: return .cannotLoadFromNetwork
        case CURLE_BAD_CONTENT_ENCODING: return .cannotDecodeContentData
        case CURLE_FILESIZE_EXCEEDED: return .dataLengthExceedsMaximum
        case CURLE_WRITE_ERROR: return .cannotWriteToFile
        case CURLE_READ_ERROR: return .cannotOpenFile
        default: return .unknown
        }
    }

    /// As ``urlErrorCode(for:)`` for a numeric CURLcode.
    static func urlErrorCode(rawCurlCode: Int) -> URLError.Code {
        urlErrorCode(for: CURLcode(UInt32(rawCurlCode)))
    }

    /// A `URLError` with `code` and Foundation's failing-URL keys (and `extra` userInfo).
    package static func error(_ code: URLError.Code, url: URL?, description: String? = nil,
                      extra: [String: Any] = [:]) -> URLError {
        var userInfo: [String: Any] = extra
        if let url {
            userInfo[NSURLErrorFailingURLErrorKey] = url
            userInfo[failingURLStringErrorKey] = url.absoluteString
        }
        userInfo[NSLocalizedDescriptionKey] = description ?? defaultDescription(for: code)
        return URLError(code, userInfo: userInfo)
    }

    /// The error for a failed transfer: `code` mapped, with libcurl's own message kept as the reason.
    static func error(for code: CURLcode, url: URL?, detail: String?) -> URLError {
        let mapped = urlErrorCode(for: code)
        var extra: [String: Any] = [:]
        if let detail, !detail.isEmpty { extra[NSLocalizedFailureReasonErrorKey] = detail }
        return error(mapped, url: url, extra: extra)
    }

    /// SPEC section 4's -1202 error for `host`, carrying the rejected trust under ``peerTrustErrorKey``.
    static func untrustedServerError(url: URL?, host: String, trust: ServerTrust?) -> URLError {
        var extra: [String: Any] = [:]
        if let trust { extra[peerTrustErrorKey] = trust }
        let description = "The certificate for this server is invalid. You might be connecting to a server "
            + "that is pretending to be “\(host)” which could put your confidential information at risk."
        return error(.serverCertificateUntrusted, url: url, description: description, extra: extra)
    }

    /// Foundation's wording for the codes the engine produces.
    static func defaultDescription(for code: URLError.Code) -> String {
        switch code {
        case .cancelled: return "cancelled"
        case .badURL: return "bad URL"
        case .unsupportedURL: return "unsupported URL"
        case .timedOut: return "The request timed out."
        case .cannotFindHost: return "A server with the specified hostname could not be found."
        case .cannotConnectToHost: return "Could not connect to the server."
        case .networkConnectionLost: return "The network connection was lost."
        case .secureConnectionFailed: return "An SSL error has occurred and a secure connection to the server cannot be made."
        case .httpTooManyRedirects: return "too many HTTP redirects"
        case .cannotDecodeContentData: return "cannot decode raw data"
        case .userAuthenticationRequired: return "The operation couldn’t be completed. (NSURLErrorDomain error -1013.)"
        default: return "The operation couldn’t be completed. (NSURLErrorDomain error \(code.rawValue).)"
        }
    }
}

/// `NSURLErrorFailingURLStringErrorKey`'s string (the constant itself is deprecated in Foundation, but
/// SPEC section 4 asks for the key).
let failingURLStringErrorKey = "NSErrorFailingURLStringKey"
