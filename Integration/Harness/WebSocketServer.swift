// The WebSocket server: the `websockets` library's (PyPI), started by the tests that need it.
import Foundation

/// `Integration/servers/websocket_server.py` on 127.0.0.1: `/echo`, `/subprotocol`, `/close`, `/cookie`,
/// `/count` (see the script), and `/health` over plain HTTP.
public struct WebSocketServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int

    /// `ws://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL { loopbackURL(scheme: "ws", port: port, path: path) }

    /// The server of this test process, started on first use (stopped with the harness's other servers
    /// when the process ends).
    public static func shared() async throws -> WebSocketServer {
        try await SharedStart.server.value
    }

    private enum SharedStart {
        static let server = Task { () throws -> WebSocketServer in
            let servers = try await IntegrationServers.shared()
            return try await WebSocketServer.start(locations: HarnessLocations.current(), runDirectory: servers.runDirectory)
        }
    }

    static func start(locations: HarnessLocations, runDirectory: URL) async throws(HarnessError) -> WebSocketServer {
        let python = locations.python.path
        try locations.requireExecutable(python, name: "python (venv)",
                                        hint: "Expected at \(python); run Scripts/bootstrap or set AF_VENV.")
        return try await ServerStartup.withFreshPorts(.webSocketServer, portCount: 1) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let process: GuardedProcess
            do {
                process = try GuardedProcess.launch(
                    server: .webSocketServer, executable: python,
                    arguments: [locations.serverFile("websocket_server.py").path, "--port", String(port),
                                "--pid-file", runDirectory.appendingPathComponent("websocket-server.pid").path],
                    environment: ["PYTHONUNBUFFERED": "1"],
                    logFile: locations.logsDirectory.appendingPathComponent("websocket-server.log"),
                    locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching \(HarnessServer.webSocketServer.rawValue)"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory,
                                                   timeout: .seconds(15)) {
                ServerStartup.answers200(port: port, path: "/health")
            }
            return WebSocketServer(port: port)
        }
    }
}
