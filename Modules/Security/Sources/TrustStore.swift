import COpenSSL
import COpenSSLShim
import Foundation

/// A set of trust anchors a certificate chain may lead to: the distribution's CA bundle
/// (``system``) or certificates you choose (a test CA, a private PKI).
///
/// Every certificate of a store is an anchor, self-signed or not (OpenSSL's
/// `X509_V_FLAG_PARTIAL_CHAIN`, as `SecTrustSetAnchorCertificates` behaves).
///
/// Threading: immutable after creation; one store is shared by every evaluation, concurrently
/// (OpenSSL's `X509_STORE` locks its own lookups).
public final class TrustStore: @unchecked Sendable {
    // @unchecked: the only stored state is the X509_STORE, never mutated after init; OpenSSL
    // guards concurrent lookups in it with the store's internal lock.
    let store: OpaquePointer
    /// The number of anchors in the store.
    public let certificateCount: Int
    /// Where the anchors came from: a file path, or "certificates" for a store built from data.
    public let source: String

    /// Files searched, in order, for the system CA bundle after `SSL_CERT_FILE`.
    public static let systemBundleCandidates = [
        "/etc/ssl/certs/ca-certificates.crt",          // Debian, Ubuntu, Alpine, Arch
        "/etc/pki/tls/certs/ca-bundle.crt",            // Fedora, RHEL
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/ca-bundle.pem",                      // openSUSE
        "/etc/ssl/cert.pem",                           // macOS, BSD
    ]

    /// The distribution's CA bundle (`SSL_CERT_FILE` when set, else the first of
    /// ``systemBundleCandidates`` that loads), read once on first use and shared.
    /// When no bundle can be read the store is empty, so every chain is untrusted (fail closed).
    public static let system: TrustStore = {
        var candidates = systemBundleCandidates
        if let override = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !override.isEmpty {
            candidates.insert(override, at: 0)
        }
        for path in candidates {
            if let store = try? TrustStore(bundleAt: path) {
                return store
            }
        }
        return TrustStore(emptyStoreNamed: "no system CA bundle found")
    }()

    /// A store whose anchors are the given DER certificates.
    ///
    /// - Throws: ``CertificateLoadingError/notACertificate`` when one is not a certificate.
    public init(certificates: [Data]) throws(CertificateLoadingError) {
        let parsed = try certificates.map { (der) throws(CertificateLoadingError) in try X509Certificate(der: der) }
        self.store = try Self.makeStore(parsed)
        self.certificateCount = Set(parsed.map(\.der)).count
        self.source = "certificates"
    }

    /// A store holding every certificate of a PEM bundle file (or one DER certificate file).
    ///
    /// - Throws: ``CertificateLoadingError`` when the file cannot be read or holds no certificate.
    public convenience init(contentsOf file: URL) throws(CertificateLoadingError) {
        try self.init(certificates: SecurityPolicy.certificates(contentsOf: file))
    }

    /// A store read by OpenSSL straight from a PEM bundle (faster for the ~150 roots of a CA bundle).
    private init(bundleAt path: String) throws(CertificateLoadingError) {
        guard let store = afs_store_new_from_file(path) else {
            throw .unreadable(path: path, detail: "not a readable PEM certificate bundle")
        }
        self.store = store
        self.certificateCount = Int(afs_store_certificate_count(store))
        self.source = path
    }

    private init(emptyStoreNamed name: String) {
        // X509_STORE_new only fails when out of memory; the process cannot go on meaningfully then.
        guard let store = afs_store_new(nil, 0) else { fatalError("OpenSSL could not allocate a certificate store") }
        self.store = store
        self.certificateCount = 0
        self.source = name
    }

    private static func makeStore(_ certificates: [X509Certificate]) throws(CertificateLoadingError) -> OpaquePointer {
        let pointers: [OpaquePointer?] = certificates.map(\.pointer)
        let store = pointers.withUnsafeBufferPointer { buffer in
            afs_store_new(buffer.baseAddress, Int32(buffer.count))
        }
        guard let store else { throw .unreadable(path: "certificates", detail: "OpenSSL could not allocate a store") }
        return store
    }

    deinit {
        afs_store_free(store)
    }
}
