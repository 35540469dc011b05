import AFProtocols
import Foundation

/// Parsed certificates by DER encoding, shared by every evaluation in the process.
///
/// Why: a server presents the same chain on every handshake, and OpenSSL 3.0 decodes a
/// certificate's public key through its provider decoders, which makes `d2i_X509` cost far more
/// than the signature checks (about 0.2 ms per certificate). Bounded: when full, the cache is
/// emptied, so hostile input cannot grow it; input that does not parse is never stored.
final class ParsedCertificateCache: Sendable {
    /// The process-wide cache.
    static let shared = ParsedCertificateCache(capacity: 256)

    private let capacity: Int
    private let entries = Protected<[DERKey: X509Certificate]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The number of certificates held.
    var count: Int { entries.withLock { $0.count } }

    /// The parsed certificate for `der`, parsing it on a miss.
    ///
    /// - Throws: ``CertificateLoadingError/notACertificate``.
    func certificate(der: Data) throws(CertificateLoadingError) -> X509Certificate {
        let key = DERKey(bytes: [UInt8](der))
        if let hit = entries.withLock({ $0[key] }) {
            return hit
        }
        let parsed = try X509Certificate(derBytes: key.bytes)
        entries.withLock { entries in
            if entries.count >= capacity {
                entries.removeAll(keepingCapacity: true)
            }
            entries[key] = parsed
        }
        return parsed
    }
}

/// A cache key: DER bytes in an array (not `Data`, see X509Certificate.derBytes), hashed in one
/// pass (an array's own hashing feeds the hasher byte by byte, several times slower).
private struct DERKey: Hashable, Sendable {
    let bytes: [UInt8]

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
