import Foundation

/// What a policy derives once from its pinned certificates: their public keys (AF's
/// `pinnedPublicKeys`) and a trust store with them as the only anchors (certificate mode).
/// Pins that do not parse as certificates are skipped, as AF skips keys it cannot extract.
final class PinnedCertificateMaterial: Sendable {
    /// DER SubjectPublicKeyInfo of each parsable pinned certificate.
    let publicKeys: Set<Data>
    /// The parsable pinned certificates as anchors; nil when there is none.
    let anchors: TrustStore?

    init(_ pinnedCertificates: Set<Data>) {
        let parsed = pinnedCertificates.sorted { $0.lexicographicallyPrecedes($1) }
            .compactMap { try? X509Certificate(der: $0) }
        publicKeys = Set(parsed.compactMap(\.subjectPublicKeyInfo))
        anchors = parsed.isEmpty ? nil : try? TrustStore(certificates: parsed.map(\.der))
    }
}
