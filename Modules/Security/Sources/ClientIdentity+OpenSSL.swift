import AFProtocols
import COpenSSLShim
import Foundation

/// Reading a `ClientIdentity` (AFProtocols) with OpenSSL: from PEM, DER or PKCS#12 bytes, the key
/// checked to be the certificate's, kept as PEM for libcurl (Linux has no `SecIdentity`).
extension ClientIdentity {
    /// Reads a PEM certificate (the leaf first, then any chain certificates to send with it) and a PEM
    /// private key (PKCS#8 or traditional; encrypted ones with `passphrase`). `privateKey` nil: the key
    /// is in `certificateChain` too.
    /// - Throws: ``ClientIdentityError`` when a part cannot be read or the key is not the certificate's.
    public init(pemCertificateChain certificateChain: Data, pemPrivateKey privateKey: Data? = nil,
                passphrase: String? = nil) throws(ClientIdentityError) {
        self = try Self.read(certificateChain, format: AFS_IDENTITY_PEM, key: privateKey, keyFormat: AFS_IDENTITY_PEM,
                                 passphrase: passphrase)
    }

    /// Reads a DER certificate (no chain) and a DER private key (PKCS#8, encrypted with `passphrase`, or
    /// traditional).
    /// - Throws: ``ClientIdentityError`` when a part cannot be read or the key is not the certificate's.
    public init(derCertificate certificate: Data, derPrivateKey privateKey: Data,
                passphrase: String? = nil) throws(ClientIdentityError) {
        self = try Self.read(certificate, format: AFS_IDENTITY_DER, key: privateKey, keyFormat: AFS_IDENTITY_DER,
                                 passphrase: passphrase)
    }

    /// Reads a PKCS#12 bundle (`.p12`, `.pfx`: the certificate, its key and its chain) with `passphrase`.
    /// - Throws: ``ClientIdentityError/Reason/unreadablePKCS12`` for bytes that are not PKCS#12 or a wrong
    ///   passphrase, ``ClientIdentityError/Reason/keyDoesNotMatchCertificate`` for a bundle whose key is
    ///   not its certificate's.
    public init(pkcs12 bundle: Data, passphrase: String) throws(ClientIdentityError) {
        self = try Self.read(bundle, format: AFS_IDENTITY_PKCS12, key: nil, keyFormat: AFS_IDENTITY_PEM,
                                 passphrase: passphrase)
    }

    private static func read(_ certificate: Data, format: afs_identity_format, key: Data?, keyFormat: afs_identity_format,
                             passphrase: String?) throws(ClientIdentityError) -> ClientIdentity {
        var pem = afs_identity_pem()
        let result: Int32 = certificate.withUnsafeBytes { certificateBytes in
            func convert(_ keyBytes: UnsafeRawBufferPointer?) -> Int32 {
                let keyPointer = keyBytes?.baseAddress?.assumingMemoryBound(to: UInt8.self)
                let keyLength = keyBytes?.count ?? 0
                let certificatePointer = certificateBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    ?? UnsafePointer(bitPattern: 1)
                if let passphrase {
                    return passphrase.withCString { pass in
                        afs_identity_to_pem(certificatePointer, certificateBytes.count, Int32(format.rawValue),
                                            keyPointer, keyLength, Int32(keyFormat.rawValue), pass, &pem)
                    }
                }
                return afs_identity_to_pem(certificatePointer, certificateBytes.count, Int32(format.rawValue),
                                           keyPointer, keyLength, Int32(keyFormat.rawValue), nil, &pem)
            }
            guard let key else { return convert(nil) }
            return key.withUnsafeBytes { convert($0) }
        }
        defer { afs_identity_pem_free(&pem) }
        switch Int(result) {
        case Int(AFS_IDENTITY_OK.rawValue):
            return ClientIdentity(certificateChainPEM: Data(bytes: pem.certificates, count: pem.certificates_length),
                                  privateKeyPEM: Data(bytes: pem.key, count: pem.key_length))
        case Int(AFS_IDENTITY_BAD_CERTIFICATE.rawValue): throw ClientIdentityError(.unreadableCertificate)
        case Int(AFS_IDENTITY_BAD_KEY.rawValue): throw ClientIdentityError(.unreadablePrivateKey)
        case Int(AFS_IDENTITY_KEY_MISMATCH.rawValue): throw ClientIdentityError(.keyDoesNotMatchCertificate)
        case Int(AFS_IDENTITY_BAD_PKCS12.rawValue): throw ClientIdentityError(.unreadablePKCS12)
        default: throw ClientIdentityError(.outOfMemory)
        }
    }
}

/// Why a `ClientIdentity` could not be read.
public struct ClientIdentityError: Error, Hashable, LocalizedError {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// No certificate could be read (not PEM or DER, or damaged).
        case unreadableCertificate
        /// No private key could be read: missing, damaged, or encrypted with another passphrase.
        case unreadablePrivateKey
        /// The private key is not the certificate's.
        case keyDoesNotMatchCertificate
        /// Not a PKCS#12 bundle, or the passphrase is wrong.
        case unreadablePKCS12
        /// OpenSSL could not allocate memory.
        case outOfMemory
    }

    /// What was wrong.
    public let reason: Reason

    public init(_ reason: Reason) { self.reason = reason }

    public var errorDescription: String? {
        switch reason {
        case .unreadableCertificate: "The client certificate could not be read."
        case .unreadablePrivateKey: "The client certificate's private key could not be read (or its passphrase is wrong)."
        case .keyDoesNotMatchCertificate: "The private key does not belong to the client certificate."
        case .unreadablePKCS12: "The PKCS#12 bundle could not be read (or its passphrase is wrong)."
        case .outOfMemory: "There was not enough memory to read the client identity."
        }
    }
}
