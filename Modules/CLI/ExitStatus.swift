import AFNetworking
import ArgumentParser

/// The documented exit codes of `af` (see `af --help`).
enum ExitStatus {
    /// The server answered with a 4xx or 5xx status (`af ws`: also to the handshake).
    static let httpError = ExitCode(3)
    /// `af ws`: the server closed the connection with a code other than 1000 (normal) and 1001 (going
    /// away), the WebSocket's counterpart of ``httpError``.
    static let serverClosed = ExitCode(3)
    /// The transfer failed: cannot connect, timed out, connection lost, cannot find host...
    static let transportError = ExitCode(4)
    /// The server's certificate was refused (untrusted, wrong host, expired, no pin matched).
    static let tlsError = ExitCode(5)
    /// `af ws`: a line of standard input was not sent because it was not valid input for the mode (not hex
    /// with --binary, not JSON with --json); sysexits' EX_DATAERR, next to ArgumentParser's 64 (EX_USAGE).
    static let inputError = ExitCode(65)

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
