import Foundation

/// What a TLS server presented: its certificate chain as sent (DER, leaf first) and the host the client
/// asked for. The Linux stand-in for `SecTrustRef`, built by Core inside the handshake.
public struct ServerTrust: Sendable, Hashable {
    /// The chain as the server sent it, DER-encoded, leaf first.
    public var certificateChain: [Data]
    /// The host name (or IP address literal) the connection was made to.
    public var host: String

    /// Creates a trust value.
    public init(certificateChain: [Data], host: String) {
        self.certificateChain = certificateChain
        self.host = host
    }
}

/// AFNetworking's pinning modes (AFSSLPinningMode), with its raw values.
public enum SSLPinningMode: Int, Sendable, Codable, CaseIterable {
    /// No pinning: the chain must be valid against the system trust store.
    case none = 0
    /// A chain certificate's public key must equal a pinned one.
    case publicKey = 1
    /// The chain must validate against the pinned certificates, and contain one of them.
    case certificate = 2
}

/// Why a server trust was rejected.
public enum ServerTrustFailureReason: Sendable, Hashable, CustomStringConvertible {
    /// The server sent no certificate.
    case emptyChain
    /// A certificate could not be parsed.
    case malformedCertificate(index: Int)
    /// The chain does not lead to a trusted anchor.
    case untrustedChain(detail: String)
    /// A certificate in the chain is outside its validity period.
    case expired(index: Int)
    /// The leaf does not name the host.
    case hostMismatch(host: String)
    /// No certificate or public key matched a pin.
    case noPinMatched
    /// The policy itself cannot validate (a domain check on self-signed certificates without pins).
    case invalidPolicy(String)

    public var description: String {
        switch self {
        case .emptyChain: return "the server sent no certificate"
        case .malformedCertificate(let index): return "certificate \(index) of the chain could not be parsed"
        case .untrustedChain(let detail): return "the certificate chain is not trusted: \(detail)"
        case .expired(let index): return "certificate \(index) of the chain is expired or not yet valid"
        case .hostMismatch(let host): return "the certificate does not name \(host)"
        case .noPinMatched: return "no pinned certificate or public key matched the chain"
        case .invalidPolicy(let why): return "invalid security policy: \(why)"
        }
    }
}

/// The error a throwing trust evaluation raises.
public struct ServerTrustEvaluationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the trust was rejected.
    public var reason: ServerTrustFailureReason
    /// The host evaluated.
    public var host: String

    /// Creates an error.
    public init(reason: ServerTrustFailureReason, host: String) {
        self.reason = reason
        self.host = host
    }

    public var description: String { "Server trust for \(host) rejected: \(reason)" }
}

/// Decides whether to trust a server (AFSecurityPolicy's role). When a session has one, it replaces
/// libcurl's own peer and host verification and runs inside the TLS handshake.
///
/// Threading: called on the engine thread, possibly for several connections in turn; must not block
/// on the network and must be safe to call concurrently.
public protocol ServerTrustEvaluating: Sendable {
    /// The pinning mode; a session manager refuses a policy with a mode other than `.none` unless its
    /// base URL is https. Default `.none`.
    var pinningMode: SSLPinningMode { get }

    /// Whether to trust `serverTrust` for `domain` (`nil` skips host validation).
    func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool

    /// As ``evaluate(_:forDomain:)``, throwing the reason on rejection.
    /// Default: calls `evaluate` and throws ``ServerTrustFailureReason/untrustedChain(detail:)``.
    func validate(_ serverTrust: ServerTrust, forDomain domain: String?) throws
}

extension ServerTrustEvaluating {
    public var pinningMode: SSLPinningMode { .none }

    public func validate(_ serverTrust: ServerTrust, forDomain domain: String?) throws {
        guard evaluate(serverTrust, forDomain: domain) else {
            throw ServerTrustEvaluationError(reason: .untrustedChain(detail: "rejected by the policy"),
                                             host: domain ?? serverTrust.host)
        }
    }
}
