import CCurl
import CCurlShim

/// A TLS protocol version, for the range a session's handshakes may negotiate
/// (``URLSessionManager/Settings/tlsMinimumSupportedProtocolVersion`` and
/// ``URLSessionManager/Settings/tlsMaximumSupportedProtocolVersion``).
///
/// Apple's `URLSessionConfiguration` has `tlsMinimumSupportedProtocolVersion` of type
/// `tls_protocol_version_t`; swift-corelibs-foundation has neither the property nor the type, so the
/// range lives in the session manager's settings instead, under the same names.
public enum TLSProtocolVersion: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// TLS 1.0 (RFC 2246): deprecated by RFC 8996; OpenSSL's default security level may refuse it anyway.
    case tlsv10 = 10
    /// TLS 1.1 (RFC 4346): deprecated by RFC 8996; OpenSSL's default security level may refuse it anyway.
    case tlsv11 = 11
    /// TLS 1.2 (RFC 5246): the default minimum, as on Apple platforms.
    case tlsv12 = 12
    /// TLS 1.3 (RFC 8446).
    case tlsv13 = 13

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// libcurl's `CURLOPT_SSLVERSION` value for handshakes from `minimum` up to `maximum` (nil: the
    /// highest libcurl and OpenSSL support).
    static func curlOption(minimum: Self, maximum: Self?) -> Int {
        let low: Int = switch minimum {
        case .tlsv10: CURL_SSLVERSION_TLSv1_0
        case .tlsv11: CURL_SSLVERSION_TLSv1_1
        case .tlsv12: CURL_SSLVERSION_TLSv1_2
        case .tlsv13: CURL_SSLVERSION_TLSv1_3
        }
        let high: Int = switch maximum {
        case nil: CURL_SSLVERSION_MAX_DEFAULT
        case .tlsv10: CURL_SSLVERSION_MAX_TLSv1_0
        case .tlsv11: CURL_SSLVERSION_MAX_TLSv1_1
        case .tlsv12: CURL_SSLVERSION_MAX_TLSv1_2
        case .tlsv13: CURL_SSLVERSION_MAX_TLSv1_3
        }
        return low | high
    }
}
