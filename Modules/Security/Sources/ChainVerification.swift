import AFProtocols
import COpenSSL
import COpenSSLShim
import Foundation

/// One X.509 path validation (OpenSSL's `X509_verify_cert`) of a presented chain against a trust
/// store, plus the host check of SecPolicyCreateSSL: the step AF performs with `SecTrustEvaluate`.
struct ChainVerification {
    /// The chain as presented, leaf first (at least one certificate).
    var chain: [X509Certificate]
    /// The anchors.
    var anchors: TrustStore
    /// The instant certificate validity periods are checked at.
    var date: Date
    /// The host the leaf must name (a DNS name or an IP literal); nil skips the check (AF's basic
    /// X.509 policy, or no domain).
    var host: String?
    /// Require the TLS-server purpose (extended key usage) along the chain, like SecPolicyCreateSSL.
    var requiresServerPurpose: Bool

    /// The deepest chain OpenSSL will build, anchors included.
    static let maximumDepth: Int32 = 16

    /// Verifies, returning the chain OpenSSL built (leaf first, ending at the anchor).
    func run() -> Result<[X509Certificate], TrustRejection> {
        guard let leaf = chain.first else { return .failure(TrustRejection(.emptyChain)) }
        guard let untrusted = afs_x509_stack_new() else {
            return .failure(TrustRejection(.untrustedChain(detail: "out of memory")))
        }
        defer { afs_x509_stack_free(untrusted) }
        for certificate in chain.dropFirst() where afs_x509_stack_push(untrusted, certificate.pointer) != 1 {
            return .failure(TrustRejection(.untrustedChain(detail: "out of memory")))
        }
        let outcome = afs_verify_chain(anchors.store, leaf.pointer, untrusted, Self.unixTime(date),
                                       Self.maximumDepth, requiresServerPurpose ? 1 : 0)
        defer { afs_x509_stack_free(outcome.built_chain) }
        guard outcome.verified == 1 else {
            return .failure(TrustRejection(Self.reason(error: outcome.error, depth: outcome.error_depth)))
        }
        var built: [X509Certificate] = []
        for index in 0..<afs_x509_stack_count(outcome.built_chain) {
            guard let element = afs_x509_stack_value(outcome.built_chain, index) else { continue }
            // The built chain holds the presented certificates themselves plus anchors from the store.
            if let presented = chain.first(where: { $0.pointer == element }) {
                built.append(presented)
            } else if let anchor = X509Certificate(retaining: element) {
                built.append(anchor)
            }
        }
        if let host, !leaf.names(HostIdentity(host)) {
            return .failure(TrustRejection(.hostMismatch(host: host)))
        }
        return .success(built)
    }

    private static func reason(error: Int32, depth: Int32) -> ServerTrustFailureReason {
        switch error {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return .expired(index: Int(max(depth, 0)))
        default:
            let text = afs_verify_error_string(error).map { String(cString: $0) } ?? "error \(error)"
            return .untrustedChain(detail: depth >= 0 ? "\(text) (certificate \(depth))" : text)
        }
    }

    /// Seconds since 1970, clamped to the years 1 ... 9999 (ASN.1 time's range).
    private static func unixTime(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard !seconds.isNaN else { return 0 }
        return Int64(max(min(seconds, 253_402_300_799), -62_135_596_800))
    }
}
