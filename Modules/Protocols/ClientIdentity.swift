import Foundation

/// A TLS client identity (mutual TLS): a certificate, its chain and its private key, as PEM, which a
/// session presents when a server asks for a client certificate (AFCore's
/// `URLSessionManager.Settings.clientIdentity`).
///
/// This is the value sessions take. AFSecurity reads one from PEM, DER or PKCS#12 bytes with OpenSSL,
/// checking that the key is the certificate's (`ClientIdentity(pemCertificateChain:pemPrivateKey:passphrase:)`
/// and its siblings); ``init(certificateChainPEM:privateKeyPEM:)`` takes PEM you already checked. The
/// private key stays in this process's memory, unencrypted, for as long as the identity lives (libcurl
/// needs it for every handshake). Identities compare equal only to themselves (a copy of the same
/// value), never by content, so comparing two never compares key bytes.
///
/// Threading: an immutable value; safe from any thread.
public struct ClientIdentity: Sendable, Hashable {
    /// The PEM, in a class: an identity is compared (and a reused connection handle matched) by which
    /// one it is.
    private final class Material: Sendable {
        let certificateChainPEM: Data
        let privateKeyPEM: Data

        init(certificateChainPEM: Data, privateKeyPEM: Data) {
            self.certificateChainPEM = certificateChainPEM
            self.privateKeyPEM = privateKeyPEM
        }
    }

    private let material: Material

    /// An identity of `certificateChainPEM` (the leaf certificate first, then any chain certificates to
    /// send with it) and `privateKeyPEM` (unencrypted), taken as given: nothing is parsed or checked
    /// here, and a key that is not the certificate's fails the handshake. Use AFSecurity's initializers
    /// to read and check other forms.
    public init(certificateChainPEM: Data, privateKeyPEM: Data) {
        material = Material(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM)
    }

    /// The certificate chain as PEM, the leaf first.
    public var certificateChainPEM: Data { material.certificateChainPEM }
    /// The private key as unencrypted PEM.
    public var privateKeyPEM: Data { material.privateKeyPEM }

    public static func == (lhs: ClientIdentity, rhs: ClientIdentity) -> Bool { lhs.material === rhs.material }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(material)) }
}
