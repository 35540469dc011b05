import COpenSSL
import COpenSSLShim
import Foundation

/// One parsed X.509 certificate, owning its OpenSSL `X509` reference.
///
/// Internal: the public API speaks DER `Data`; this is the parsed form the evaluation works on.
final class X509Certificate: @unchecked Sendable {
    // @unchecked: both stored properties are immutable. Evaluations on several threads use one
    // instance concurrently (ParsedCertificateCache) only through OpenSSL's read paths (encoding,
    // name checks, chain verification), which guard the certificate's lazily cached extension
    // data with the X509's own lock, as when an SSL_CTX shares its certificates across threads.
    /// The OpenSSL certificate (an `X509 *`), released in `deinit`.
    let pointer: OpaquePointer
    /// The certificate's DER encoding. An array rather than `Data`: instances live on in the
    /// process-wide ParsedCertificateCache, and LeakSanitizer cannot follow the tagged storage
    /// pointer inside `Data`'s enum representation, so cached `Data` would be reported as leaked.
    let derBytes: [UInt8]

    /// The certificate's DER encoding.
    var der: Data { Data(derBytes) }

    /// Parses exactly one DER certificate; trailing bytes are an error.
    convenience init(der: Data) throws(CertificateLoadingError) {
        try self.init(derBytes: [UInt8](der))
    }

    /// Parses exactly one DER certificate; trailing bytes are an error.
    init(derBytes: [UInt8]) throws(CertificateLoadingError) {
        let parsed: OpaquePointer? = derBytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return nil }
            return afs_x509_from_der(base, buffer.count)
        }
        guard let parsed else { throw .notACertificate }
        pointer = parsed
        self.derBytes = derBytes
    }

    /// Takes a new reference on a certificate owned by OpenSSL (an element of a built chain).
    init?(retaining certificate: OpaquePointer) {
        guard X509_up_ref(certificate) == 1 else { return nil }
        var encoded: UnsafeMutablePointer<UInt8>?
        let length = afs_x509_der(certificate, &encoded)
        defer { afs_free(encoded) }
        guard length > 0, let encoded else {
            X509_free(certificate)
            return nil
        }
        pointer = certificate
        derBytes = Array(UnsafeBufferPointer(start: encoded, count: Int(length)))
    }

    deinit {
        X509_free(pointer)
    }

    /// The DER SubjectPublicKeyInfo (algorithm and key), or nil when OpenSSL cannot encode it.
    var subjectPublicKeyInfo: Data? {
        var encoded: UnsafeMutablePointer<UInt8>?
        let length = afs_x509_spki_der(pointer, &encoded)
        defer { afs_free(encoded) }
        guard length > 0, let encoded else { return nil }
        return Data(bytes: encoded, count: Int(length))
    }

    /// Whether the certificate names `host`: subjectAltName DNS names or IP addresses; the subject
    /// Common Name only when the certificate has no subjectAltName at all.
    func names(_ host: HostIdentity) -> Bool {
        switch host {
        case .ipAddress(let address):
            return afs_x509_matches_ip(pointer, address) == 1
        case .domainName(let name):
            let allowCommonName: Int32 = afs_x509_has_subject_alt_name(pointer) == 1 ? 0 : 1
            let utf8 = Array(name.utf8)
            return utf8.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    afs_x509_matches_host(pointer, chars.baseAddress, chars.count, allowCommonName) == 1
                }
            }
        }
    }
}
