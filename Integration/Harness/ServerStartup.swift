// Waiting for a freshly launched server to answer, and retrying with new ports when a port was taken.
import Foundation

/// Starting one server: launch, wait until it answers, retry on a port clash.
enum ServerStartup {
    /// The outcome of one start attempt that did not succeed.
    enum AttemptFailure: Error {
        /// The server's log says one of its ports was taken after the harness picked it.
        case portInUse
        /// Any other failure; not retried.
        case failed(HarnessError)
    }

    /// Runs `attempt` with `portCount` freshly reserved ports, up to three times while it fails with
    /// `.portInUse`.
    static func withFreshPorts<Value>(
        _ server: HarnessServer,
        portCount: Int,
        attempt: ([Int]) async throws(AttemptFailure) -> Value
    ) async throws(HarnessError) -> Value {
        let attempts = 3
        for _ in 1...attempts {
            let ports = try FreePorts.reserve(portCount)
            do {
                return try await attempt(ports)
            } catch {
                switch error {
                case .portInUse: continue
                case .failed(let harnessError): throw harnessError
                }
            }
        }
        throw .serverFailedToStart(server: server, reason: "its ports were taken \(attempts) times in a row",
                                   logTail: "")
    }

    /// Polls until `isReady` returns true, the process exits, its log reports a port clash, or
    /// `timeout` passes. On failure the process is stopped and the error carries the log tail.
    static func waitUntilReady(
        _ process: GuardedProcess,
        logsDirectory: URL,
        timeout: Duration,
        isReady: @escaping @Sendable () -> Bool
    ) async throws(AttemptFailure) {
        let server = process.server
        let logFile = logsDirectory.appendingPathComponent(server.logFileNames[0])
        let deadline = ContinuousClock.now + timeout
        func failure(_ reason: String) async -> AttemptFailure {
            await runBlocking { process.stop() }
            return .failed(.serverFailedToStart(
                server: server, reason: reason,
                logTail: LogTail.read(server: server, in: logsDirectory, lines: 40)))
        }
        while true {
            let log = LogTail.read(logFile, lines: 200).lowercased()
            if log.contains("already in use") || log.contains("connection in use") {
                await runBlocking { process.stop() }
                throw .portInUse
            }
            if let status = process.exitStatus {
                throw await failure("it exited with status \(status) before answering")
            }
            if await runBlocking(isReady) { return }
            guard ContinuousClock.now < deadline else {
                throw await failure("it did not answer within \(timeout)")
            }
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                throw await failure("startup was cancelled")
            }
        }
    }

    /// A readiness check: GET `path` on 127.0.0.1:`port` answers with status 200.
    static func answers200(port: Int, path: String) -> Bool {
        let response = try? RawHTTPClient.exchangeBlocking(
            method: "GET", path: path, port: port, headers: [:], timeout: .seconds(2)).get()
        return response?.statusCode == 200
    }
}

/// Builds a loopback URL such as `http://127.0.0.1:8080/get?a=1` from parts known to be valid.
func loopbackURL(scheme: String, host: String = "127.0.0.1", port: Int, path: String) -> URL {
    let suffix = path.isEmpty || path.hasPrefix("/") ? path : "/" + path
    guard let url = URL(string: "\(scheme)://\(host):\(port)\(suffix)") else {
        preconditionFailure("AFTestHarness: not a valid URL path: \(path)")
    }
    return url
}
