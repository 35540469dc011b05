// The WebSocket server: the `websockets` library's (PyPI), started by the tests that need it.
import Foundation

/// `Integration/servers/websocket_server.py` on 127.0.0.1: `/echo`, `/subprotocol`, `/close`, `/cookie`,
/// `/count` (see the script), and `/health` over plain HTTP; the same over TLS with the harness's valid
/// leaf (localhost and 127.0.0.1, sent with the intermediate); and a hostile raw server whose frames
/// break RFC 6455 on purpose (`/masked`, `/bad-utf8`, `/reserved-bit`, `/fragmented-ping`,
/// `/endless-fragments`, `/huge-length`, `/ping-flood`, `/never-close`).
public struct WebSocketServer: Sendable {
    /// The TCP port on 127.0.0.1 (ws).
    public let port: Int
    /// The TLS port (wss).
    public let tlsPort: Int
    /// The hostile server's port (ws).
    public let hostilePort: Int

    /// `ws://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL { loopbackURL(scheme: "ws", port: port, path: path) }
    /// `wss://localhost:<tlsPort><path>`.
    public func tlsURL(_ path: String) -> URL { loopbackURL(scheme: "wss", host: "localhost", port: tlsPort, path: path) }
    /// `ws://127.0.0.1:<hostilePort><path>`.
    public func hostileURL(_ path: String) -> URL { loopbackURL(scheme: "ws", port: hostilePort, path: path) }

    /// The server the harness started with the others (``IntegrationServers/webSockets``).
    public static func shared() async throws -> WebSocketServer {
        try await IntegrationServers.shared().webSockets
    }

    static func start(locations: HarnessLocations, certificates: TestCertificates) async throws(HarnessError) -> WebSocketServer {
        let leaf = certificates.leaf(.valid)
        let python = locations.python.path
        try locations.requireExecutable(python, name: "python (venv)",
                                        hint: "Expected at \(python); run Scripts/bootstrap or set AF_VENV.")
        return try await ServerStartup.withFreshPorts(.webSocketServer, portCount: 3) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let process: GuardedProcess
            do {
                process = try GuardedProcess.launch(
                    server: .webSocketServer, executable: python,
                    arguments: [locations.serverFile("websocket_server.py").path, "--port", String(port),
                                "--tls-port", String(ports[1]), "--cert", (leaf.servedChain ?? leaf.pem).path,
                                "--key", leaf.privateKey.path, "--hostile-port", String(ports[2]),
                                "--pid-file", locations.runDirectory.appendingPathComponent("websocket-server.pid").path],
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
            return WebSocketServer(port: port, tlsPort: ports[1], hostilePort: ports[2])
        }
    }
}
