import Foundation

/// Why certificate data or a certificate file could not be loaded.
public indirect enum CertificateLoadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not exactly one DER-encoded X.509 certificate (truncated, garbage, or followed
    /// by extra bytes).
    case notACertificate
    /// PEM block `block` (0-based, counting `CERTIFICATE` blocks) is unterminated, is not valid
    /// base64, or does not hold a DER certificate.
    case malformedPEM(block: Int)
    /// The data holds no `-----BEGIN CERTIFICATE-----` block and is not DER.
    case noCertificateFound
    /// The input exceeds ``SecurityPolicy/maximumCertificateFileSize``.
    case tooLarge(byteCount: Int)
    /// A file or directory could not be read.
    case unreadable(path: String, detail: String)
    /// Loading the file at `path` failed with `error`.
    case inFile(path: String, error: CertificateLoadingError)

    public var description: String {
        switch self {
        case .notACertificate: return "the data is not a DER-encoded X.509 certificate"
        case .malformedPEM(let block): return "PEM certificate block \(block) is malformed"
        case .noCertificateFound: return "no certificate found in the data"
        case .tooLarge(let count): return "certificate data of \(count) bytes exceeds the size limit"
        case .unreadable(let path, let detail): return "cannot read \(path): \(detail)"
        case .inFile(let path, let error): return "\(path): \(error)"
        }
    }
}
