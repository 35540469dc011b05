// The MCP server: the official Python SDK's (`mcp` on PyPI), started by the tests that need it.
import Foundation

/// `Integration/servers/mcp_server.py` on 127.0.0.1: the same tools over Streamable HTTP at
/// `/stateful/mcp` (event streams, an event store for resumability), `/json/mcp` (stateless, JSON
/// answers) and `/bearer/mcp` (stateful, `Authorization: Bearer fresh-token` only), and control routes
/// (`/control/release`, `/control/expire`, `/control/log`, `/control/await`, `/control/events`; see the
/// script).
///
/// Started on the first call to ``shared()``, after the other integration servers (it lives in their run
/// folder and is stopped with them when the process exits); tests that do not use it do not start it.
public struct MCPServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL { loopbackURL(scheme: "http", port: port, path: path) }

    /// The server of this test process, started on the first call; later and concurrent calls get the
    /// same one. A failed start is not retried.
    public static func shared() async throws -> MCPServer {
        try await MCPLaunch.instance.server()
    }

    /// Starts the server in the run folder of `IntegrationServers.shared()`.
    static func start() async throws -> MCPServer {
        _ = try await IntegrationServers.shared()
        let locations = HarnessLocations.current()
        let python = locations.python.path
        try locations.requireExecutable(python, name: "python (venv)",
                                        hint: "Expected at \(python); run Scripts/bootstrap or set AF_VENV.")
        return try await ServerStartup.withFreshPorts(.mcpServer, portCount: 1) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let process: GuardedProcess
            do {
                process = try GuardedProcess.launch(
                    server: .mcpServer, executable: python,
                    arguments: [locations.serverFile("mcp_server.py").path, "--port", String(port),
                                "--pid-file", locations.runDirectory.appendingPathComponent("mcp-server.pid").path],
                    environment: ["PYTHONUNBUFFERED": "1"],
                    logFile: locations.logsDirectory.appendingPathComponent("mcp-server.log"),
                    locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching \(HarnessServer.mcpServer.rawValue)"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory,
                                                   timeout: .seconds(30)) {
                ServerStartup.answers200(port: port, path: "/health")
            }
            return MCPServer(port: port)
        }
    }
}

/// Starts the MCP server once per process and hands the same result to every caller.
private actor MCPLaunch {
    static let instance = MCPLaunch()
    private var launch: Task<MCPServer, any Error>?

    func server() async throws -> MCPServer {
        if let launch { return try await launch.value }
        // Detached, so cancelling the first test that asks does not cancel the start others wait for.
        let task = Task.detached { try await MCPServer.start() }
        launch = task
        return try await task.value
    }
}
