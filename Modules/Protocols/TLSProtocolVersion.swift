import Foundation

/// A TLS protocol version, for the range a session's handshakes may negotiate
/// (AFCore's `URLSessionManager.Settings.tlsMinimumSupportedProtocolVersion` and
/// `tlsMaximumSupportedProtocolVersion`).
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
}
