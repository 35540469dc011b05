import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server asked for a client certificate during the TLS handshake (mutual TLS): what Apple's session
/// delegates receive as a challenge whose method is `NSURLAuthenticationMethodClientCertificate`, which
/// ``SessionManagerHooks/clientCertificateChallengeHandler`` answers with a `ClientIdentity`.
///
/// A challenge comes once per connection: requests that reuse the connection (or that wait for it, over
/// HTTP/2) are not asked again, as on Apple's platforms.
public struct ClientCertificateChallenge: Sendable {
    /// The authentication method of ``protectionSpace``: Apple's `NSURLAuthenticationMethodClientCertificate`
    /// string (swift-corelibs-foundation declares the constant but marks it unavailable).
    public static let authenticationMethod = "NSURLAuthenticationMethodClientCertificate"

    /// The host and port being connected to, protocol `https`, no realm, and
    /// ``ClientCertificateChallenge/authenticationMethod``.
    public let protectionSpace: URLProtectionSpace
    /// The certificate authorities the server accepts client certificates from, as the DER encoding of
    /// each one's distinguished name, in the server's order (Apple's `URLProtectionSpace.distinguishedNames`,
    /// which swift-corelibs-foundation leaves empty). Empty: the server named none.
    public let acceptableIssuers: [Data]

    /// A challenge for `host`:`port` naming `acceptableIssuers`.
    public init(host: String, port: Int, acceptableIssuers: [Data]) {
        protectionSpace = URLProtectionSpace(host: host, port: port, protocol: "https", realm: nil,
                                             authenticationMethod: Self.authenticationMethod)
        self.acceptableIssuers = acceptableIssuers
    }
}

/// How the engine answers a client-certificate challenge.
enum ClientCertificateAnswer: Sendable {
    /// Send this identity.
    case present(ClientIdentity)
    /// Send no certificate; the server decides (nginx answers 400, others end the handshake).
    case proceedWithout
    /// Fail the task with -999.
    case cancel
}
