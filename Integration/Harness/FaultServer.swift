// The fault server: endpoints that stall, drop the connection mid-body, or sink uploads.
import Foundation

/// Paths of the misbehaving endpoints. nginx serves each at the same path on every port (plain and
/// TLS), streaming the fault server's bytes unbuffered; the fault server also serves them directly.
public enum FaultEndpoints {
    /// Answers status 200 and headers (`Content-Length: 100`), then never sends the body.
    public static let stall = "/stall"
    /// Never sends anything, not even a status line.
    public static let stallBeforeHeaders = "/stall-before-headers"
    /// Promises `Content-Length: 100000` (`dropPromisedLength`), sends `dropSentLength` bytes (byte i
    /// is `i % 251`), then closes the connection.
    public static let drop = "/drop"
    /// Upload sink (POST or PUT, any size, Content-Length or chunked): reads the whole body and answers
    /// 200 with JSON `{"method", "bytes", "sha256", "contentType"}`. Other methods get 405.
    /// On nginx the body is read fully by nginx first; `client_max_body_size` is unlimited.
    public static let upload = "/upload"
    /// The Content-Length `/drop` announces.
    public static let dropPromisedLength = 100_000
    /// The number of body bytes `/drop` sends before closing.
    public static let dropSentLength = 40_000
    /// The body byte `/drop` sends at `index`.
    public static func dropByte(at index: Int) -> UInt8 { UInt8(index % 251) }
}

/// `Integration/servers/fault_server.py`, a Python standard-library asyncio server on 127.0.0.1 that
/// serves `FaultEndpoints` directly (one request per connection) and `/health`.
public struct FaultServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { loopbackURL(scheme: "http", port: port, path: "") }

    /// The URL of `path` (for example `FaultEndpoints.drop`) on this server.
    public func url(_ path: String) -> URL { loopbackURL(scheme: "http", port: port, path: path) }

    /// Starts the fault server under a guard and waits until `/health` answers 200.
    static func start(locations: HarnessLocations) async throws(HarnessError) -> FaultServer {
        let python = locations.python.path
        try locations.requireExecutable(python, name: "python (venv)",
                                        hint: "Expected at \(python); run Scripts/bootstrap or set AF_VENV.")
        return try await ServerStartup.withFreshPorts(.faultServer, portCount: 1) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let process: GuardedProcess
            do {
                process = try GuardedProcess.launch(
                    server: .faultServer, executable: python,
                    arguments: [locations.serverFile("fault_server.py").path, "--port", String(port),
                                "--pid-file", locations.runDirectory.appendingPathComponent("fault-server.pid").path],
                    environment: ["PYTHONUNBUFFERED": "1"],
                    logFile: locations.logsDirectory.appendingPathComponent("fault-server.log"),
                    locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching \(HarnessServer.faultServer.rawValue)"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory,
                                                   timeout: .seconds(15)) {
                ServerStartup.answers200(port: port, path: "/health")
            }
            return FaultServer(port: port)
        }
    }
}
