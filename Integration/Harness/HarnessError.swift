// The one error type AFTestHarness throws.

/// Why the integration harness could not do what was asked.
///
/// Every case carries enough text to diagnose the failure from a test log alone: a server that did
/// not start carries the tail of its log, a failed command its output.
public enum HarnessError: Error, Sendable, CustomStringConvertible {
    /// A program the harness needs is not installed (`hint` says how to install it).
    case missingTool(name: String, hint: String)
    /// A setup command exited unsuccessfully or could not be run.
    case commandFailed(command: String, exitCode: Int32, output: String)
    /// A server exited, or did not answer in time, while the harness waited for it.
    case serverFailedToStart(server: HarnessServer, reason: String, logTail: String)
    /// A file-system or socket operation of the harness itself failed.
    case setupFailed(step: String, reason: String)

    /// The failure in one or more lines, starting with `AFTestHarness:`; server failures end with the log tail.
    public var description: String {
        switch self {
        case .missingTool(let name, let hint):
            return "AFTestHarness: '\(name)' is not installed. \(hint)"
        case .commandFailed(let command, let exitCode, let output):
            return "AFTestHarness: `\(command)` failed with exit code \(exitCode):\n\(output)"
        case .serverFailedToStart(let server, let reason, let logTail):
            return "AFTestHarness: \(server.rawValue) failed to start: \(reason)\n--- log tail ---\n\(logTail)"
        case .setupFailed(let step, let reason):
            return "AFTestHarness: \(step) failed: \(reason)"
        }
    }
}

extension HarnessError {
    /// Wraps any error as a `HarnessError`, keeping a `HarnessError` as it is.
    static func wrapping(_ error: any Error, step: String) -> HarnessError {
        (error as? HarnessError) ?? .setupFailed(step: step, reason: String(describing: error))
    }
}
