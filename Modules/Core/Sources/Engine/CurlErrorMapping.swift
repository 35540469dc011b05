import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Maps libcurl results to the `URLError` codes of Foundation's URL loading system, as SPEC section 5 lists.
package enum CurlErrorMapping {
    /// The `URLError` code for `code` (never `CURLE_OK`): every result libcurl 7.85 through 8.14 can return
    /// has its own line (unit-tested as a table), so a malformed response surfaces as URLSession reports it
    /// (-1017 `cannotParseResponse`, -1011 `badServerResponse`, -1005 `networkConnectionLost`), never as
    /// -1 `unknown`. Codes only FTP, TFTP, LDAP, RTSP or SSH return are mapped by their meaning too,
    /// though the engine allows http(s) only. `unknown` is left for `CURLE_RECURSIVE_API_CALL` (a misuse of
    /// libcurl from its own callback, never caused by a server), codes newer than this table, and 34 and 41
    /// (never returned since 7.53; libcurl 8's headers name them `CURLE_OBSOLETE34` and `CURLE_OBSOLETE41`).
    static func urlErrorCode(for code: CURLcode) -> URLError.Code {
        switch code {
        // The URL, and what this libcurl can do with it.
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_NOT_BUILT_IN, CURLE_UNKNOWN_OPTION,
             CURLE_SETOPT_OPTION_SYNTAX:
            return .unsupportedURL
        case CURLE_URL_MALFORMAT: return .badURL
        // Reaching the server.
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_FTP_CANT_GET_HOST: return .cannotFindHost
        // A proxy handshake that failed (a SOCKS5 refusal or wrong credentials) is a connection that failed.
        case CURLE_COULDNT_CONNECT, CURLE_PROXY, CURLE_INTERFACE_FAILED, CURLE_NO_CONNECTION_AVAILABLE,
             CURLE_QUIC_CONNECT_ERROR, CURLE_FTP_ACCEPT_FAILED, CURLE_FTP_PORT_FAILED, CURLE_LDAP_CANNOT_BIND:
            return .cannotConnectToHost
        case CURLE_OPERATION_TIMEDOUT, CURLE_FTP_ACCEPT_TIMEOUT: return .timedOut
        // The connection broke off.
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2,
             CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_AGAIN, CURLE_UNRECOVERABLE_POLL:
            return .networkConnectionLost
        // A response that cannot be read as HTTP: a bad status line, a header line libcurl cannot store
        // (CURLE_BAD_FUNCTION_ARGUMENT: a folded line with nothing to fold into), a bad chunk size.
        // CURLE_TOO_LARGE (libcurl 8.6 and later; libcurl 7 said CURLE_OUT_OF_MEMORY): a header line over
        // 100 KiB, or (8.14 and later) more than 5,000 header lines.
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_FUNCTION_ARGUMENT, CurlResultCode.tooLarge: return .cannotParseResponse
        // A response that is well-formed but not what was asked for.
        case CURLE_HTTP_RETURNED_ERROR, CURLE_RANGE_ERROR, CURLE_BAD_DOWNLOAD_RESUME,
             CURLE_FTP_WEIRD_PASS_REPLY, CURLE_FTP_WEIRD_PASV_REPLY, CURLE_FTP_WEIRD_227_FORMAT,
             CURLE_FTP_COULDNT_SET_TYPE, CURLE_FTP_COULDNT_RETR_FILE, CURLE_QUOTE_ERROR, CURLE_UPLOAD_FAILED,
             CURLE_FTP_COULDNT_USE_REST, CURLE_LDAP_SEARCH_FAILED, CURLE_TFTP_ILLEGAL, CURLE_TFTP_UNKNOWNID,
             CURLE_FTP_PRET_FAILED, CURLE_RTSP_CSEQ_ERROR, CURLE_RTSP_SESSION_ERROR, CURLE_FTP_BAD_FILE_LIST,
             CURLE_CHUNK_FAILED:
            return .badServerResponse
        // TLS.
        case CURLE_PEER_FAILED_VERIFICATION: return .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
             CURLE_USE_SSL_FAILED, CURLE_SSH, CurlResultCode.echRequired:
            return .secureConnectionFailed
        // Credentials.
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR, CURLE_TFTP_NOSUCHUSER: return .userAuthenticationRequired
        // The body.
        case CURLE_TOO_MANY_REDIRECTS: return .httpTooManyRedirects
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_OUT_OF_MEMORY, CURLE_FAILED_INIT: return .cannotLoadFromNetwork
        case CURLE_BAD_CONTENT_ENCODING: return .cannotDecodeContentData
        case CURLE_FILESIZE_EXCEEDED: return .dataLengthExceedsMaximum
        case CURLE_SEND_FAIL_REWIND: return .requestBodyStreamExhausted
        // Files, local and remote.
        case CURLE_WRITE_ERROR, CURLE_REMOTE_DISK_FULL: return .cannotWriteToFile
        case CURLE_REMOTE_FILE_EXISTS: return .cannotCreateFile
        case CURLE_READ_ERROR: return .cannotOpenFile
        case CURLE_FILE_COULDNT_READ_FILE, CURLE_TFTP_NOTFOUND, CURLE_REMOTE_FILE_NOT_FOUND: return .fileDoesNotExist
        case CURLE_REMOTE_ACCESS_DENIED, CURLE_TFTP_PERM: return .noPermissionsToReadFile
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
