import COpenSSL
import Foundation

/// A pin on a public key: the SHA-256 digest of a certificate's DER SubjectPublicKeyInfo, written
/// `sha256/<base64>` (the HPKP / OkHttp form; `openssl x509 -pubkey | openssl pkey -pubin -outform
/// der | openssl dgst -sha256 -binary | base64` prints it).
///
/// Beyond AFNetworking, which pins whole certificates or their keys but not digests.
public struct PublicKeyPin: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 32-byte SHA-256 digest of the DER SubjectPublicKeyInfo.
    public let sha256Digest: Data

    /// Why a pin string or digest was refused.
    public enum ParseError: Error, Sendable, Hashable {
        /// The text does not start with `sha256/` (the only algorithm supported).
        case unsupportedAlgorithm(String)
        /// The part after `sha256/` is not base64 of exactly 32 bytes.
        case malformedDigest(String)
    }

    /// Parses `sha256/<base64>`.
    ///
    /// - Throws: ``ParseError``.
    public init(_ text: String) throws(ParseError) {
        guard text.hasPrefix("sha256/") else {
            throw .unsupportedAlgorithm(String(text.prefix(while: { $0 != "/" }).prefix(32)))
        }
        let encoded = String(text.dropFirst("sha256/".count))
        guard let digest = Data(base64Encoded: encoded), digest.count == 32 else {
            throw .malformedDigest(String(encoded.prefix(64)))
        }
        sha256Digest = digest
    }

    /// A pin from a raw 32-byte SHA-256 digest.
    ///
    /// - Throws: ``ParseError/malformedDigest(_:)`` when `digest` is not 32 bytes.
    public init(sha256Digest digest: Data) throws(ParseError) {
        guard digest.count == 32 else { throw .malformedDigest("\(digest.count) bytes") }
        sha256Digest = digest
    }

    /// The pin of a DER certificate's public key.
    ///
    /// - Throws: ``CertificateLoadingError/notACertificate``.
    public init(certificate der: Data) throws(CertificateLoadingError) {
        let certificate = try X509Certificate(der: der)
        guard let key = certificate.subjectPublicKeyInfo else { throw .notACertificate }
        sha256Digest = Self.digest(of: key)
    }

    /// The pin of a DER SubjectPublicKeyInfo.
    public init(subjectPublicKeyInfo: Data) {
        sha256Digest = Self.digest(of: subjectPublicKeyInfo)
    }

    /// `sha256/<base64>`.
    public var description: String { "sha256/" + sha256Digest.base64EncodedString() }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    static func digest(of bytes: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &output, &length, EVP_sha256(), nil)
        }
        // EVP_Digest with SHA-256 only fails when out of memory.
        precondition(status == 1 && length == 32, "OpenSSL SHA-256 failed")
        return Data(output)
    }
}
