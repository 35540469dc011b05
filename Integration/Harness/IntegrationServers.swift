// AFTestHarness: the real servers the integration tests talk to, started once per test process.
import Foundation

/// The servers of one test process: httpbin, nginx (plain HTTP and one HTTPS port per TLS scenario)
/// and the fault server, all on free ports of 127.0.0.1, plus the certificates and files they serve.
///
/// ```swift
/// let servers = try await IntegrationServers.shared()
/// let url = servers.httpbin.url("/get?a=1")
/// let secure = servers.nginx.httpsURL("/files/1k.bin", scenario: .valid)   // trust certificates.rootCA
/// ```
///
/// Everything is started on the first call to `shared()` and stopped when the process exits: by an
/// `atexit` handler, and, should the process die abruptly, by the guard each server runs under, within
/// about a second. Configuration, certificates, served files and logs live in the run folder
/// `<repo>/.build/harness-runs/<pid>/`; run folders of processes that no longer exist are removed.
public struct IntegrationServers: Sendable {
    /// httpbin under gunicorn.
    public let httpbin: HTTPBinServer
    /// nginx: static files, Range, upload sink, faults; HTTP and HTTPS/HTTP/2 per TLS scenario.
    public let nginx: NginxServer
    /// The fault server, reachable directly as well as through nginx.
    public let faultServer: FaultServer
    /// The Python `websockets` library's server (ws, wss and a hostile raw server), also under nginx's /ws/.
    public let webSockets: WebSocketServer
    /// tinyproxy (HTTP and CONNECT) and microsocks (SOCKS5), both requiring credentials.
    public let proxies: ProxyServers
    /// The CA, intermediate and leaf certificates with their keys.
    public let certificates: TestCertificates
    /// The files nginx serves, with their local copies.
    public let files: ServedFiles
    /// This process's run folder.
    public let runDirectory: URL
    /// How long starting everything took.
    public let startupDuration: Duration

    private let logsDirectory: URL

    /// The servers of this test process, started on the first call; later and concurrent calls get the
    /// same instance. A failed start is not retried: every call rethrows its error.
    public static func shared() async throws(HarnessError) -> IntegrationServers {
        do {
            return try await SharedLaunch.instance.servers()
        } catch {
            throw HarnessError.wrapping(error, step: "starting the integration servers")
        }
    }

    /// The last `lines` lines of `server`'s logs (for nginx, its error output and its access log),
    /// for a failing test to print.
    public func logTail(of server: HarnessServer, lines: Int = 40) -> String {
        LogTail.read(server: server, in: logsDirectory, lines: lines)
    }

    /// How many requests `server`'s access log (httpbin's or nginx's) records on lines that contain
    /// `marker`: a test gives its URLs a unique query to count the requests that reached the server.
    public func requestCount(on server: HarnessServer, containing marker: String) -> Int {
        guard server.logFileNames.count > 1,
              let data = FileManager.default.contents(atPath: logsDirectory.appendingPathComponent(server.logFileNames[1]).path)
        else { return 0 }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.contains(marker) }.count
    }

    /// The requests on lines containing `marker` once `expected` of them are logged, or after `limit`
    /// with fewer; then `settle` more, so that one too many shows too. Servers write the access-log
    /// line just after the response, so a client that has its answer may look before the line exists.
    public func loggedRequestCount(on server: HarnessServer, containing marker: String, expecting expected: Int,
                                   within limit: Duration = .seconds(5), settle: Duration = .milliseconds(150)) async -> Int {
        let deadline = ContinuousClock.now + limit
        while requestCount(on: server, containing: marker) < expected, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        try? await Task.sleep(for: settle)
        return requestCount(on: server, containing: marker)
    }

    /// The log tails of every server, one after the other.
    public func allLogTails(lines: Int = 20) -> String {
        HarnessServer.allCases.map { logTail(of: $0, lines: lines) }.joined(separator: "\n")
    }

    /// Starts everything: certificates, served files, httpbin and the fault server concurrently, then
    /// nginx, which needs all of them. On failure, stops whatever was started.
    static func start() async throws(HarnessError) -> IntegrationServers {
        let began = ContinuousClock.now
        let locations = HarnessLocations.current()
        try locations.prepareRunDirectory()
        do {
            async let certificates = TestCertificates.generate(locations: locations)
            async let files = ServedFiles.prepare(locations: locations)
            async let httpbin = HTTPBinServer.start(locations: locations)
            async let proxies = ProxyServers.start(locations: locations)
            let faultServer = try await FaultServer.start(locations: locations)
            let webSockets = try await WebSocketServer.start(locations: locations, certificates: try await certificates)
            let nginx = try await NginxServer.start(
                locations: locations, faultPort: faultServer.port, webSocketPort: webSockets.port,
                certificates: try await certificates, files: try await files)
            let servers = IntegrationServers(
                httpbin: try await httpbin, nginx: nginx, faultServer: faultServer, webSockets: webSockets,
                proxies: try await proxies,
                certificates: try await certificates, files: try await files,
                runDirectory: locations.runDirectory, startupDuration: ContinuousClock.now - began,
                logsDirectory: locations.logsDirectory)
            servers.writeSummary()
            return servers
        } catch {
            await runBlocking { ProcessRegistry.shared.stopAll() }
            throw HarnessError.wrapping(error, step: "starting the integration servers")
        }
    }

    /// Writes `servers.txt` (ports and paths) into the run folder and prints one line to stderr.
    private func writeSummary() {
        var lines = [
            "startup: \(startupDuration)",
            "httpbin: \(httpbin.baseURL.absoluteString)",
            "nginx http: \(nginx.httpBaseURL.absoluteString)",
        ]
        lines += TLSScenario.allCases.map { "nginx https \($0.rawValue): \(nginx.httpsURL("/", scenario: $0).absoluteString)" }
        lines += ["fault server: \(faultServer.baseURL.absoluteString)", "certificates: \(certificates.directory.path)",
                  "files: \(files.root.path)"]
        try? (lines.joined(separator: "\n") + "\n").write(
            to: runDirectory.appendingPathComponent("servers.txt"), atomically: true, encoding: .utf8)
        let seconds = Double(startupDuration.components.seconds)
            + Double(startupDuration.components.attoseconds) / 1e18
        FileHandle.standardError.write(Data(
            "AFTestHarness: servers ready in \(String(format: "%.2f", seconds)) s (\(runDirectory.path))\n".utf8))
    }
}

/// Starts the servers once per process and hands the same result to every caller.
private actor SharedLaunch {
    static let instance = SharedLaunch()
    private var launch: Task<IntegrationServers, any Error>?

    func servers() async throws -> IntegrationServers {
        if let launch { return try await launch.value }
        // Detached, so cancelling the first test that asks does not cancel the start others wait for.
        let task = Task.detached { try await IntegrationServers.start() }
        launch = task
        return try await task.value
    }
}
