import AFNetworking
import ArgumentParser

/// The documented exit codes of `af` (see `af --help`).
enum ExitStatus {
    /// The server answered with a 4xx or 5xx status.
    static let httpError = ExitCode(3)
    /// The transfer failed: cannot connect, timed out, connection lost, cannot find host...
    static let transportError = ExitCode(4)
    /// The server's certificate was refused (untrusted, wrong host, expired, no pin matched).
    static let tlsError = ExitCode(5)

    /// The exit code for a failed request.
    static func forFailure(_ error: any Error) -> ExitCode {
        guard let urlError = error as? URLError else { return .failure }
        switch urlError.code {
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot, .secureConnectionFailed, .clientCertificateRejected:
            return tlsError
        default:
            return transportError
        }
    }
}
