// Two forward proxies for the proxy tests, each requiring credentials: tinyproxy (HTTP, and CONNECT
// for https) and microsocks (SOCKS5).
import Foundation

/// tinyproxy and microsocks on 127.0.0.1, both requiring ``username`` and ``password``.
///
/// tinyproxy adds `X-Test-Proxy: af-test-proxy` to every request it forwards, so an echoing server
/// (httpbin's `/headers`, which hides `Via`) shows that a request went through it; it logs each
/// `CONNECT`.
public struct ProxyServers: Sendable {
    /// tinyproxy's port (HTTP proxy; `CONNECT` to any port).
    public let httpPort: Int
    /// microsocks's port (SOCKS5).
    public let socksPort: Int
    /// The user name both proxies require.
    public static let username = "proxy-user"
    /// The password both proxies require.
    public static let password = "proxy-pass"
    /// The value of the `X-Test-Proxy` header tinyproxy adds.
    public static let marker = "af-test-proxy"

    static func start(locations: HarnessLocations) async throws(HarnessError) -> ProxyServers {
        let tinyproxy = "/usr/bin/tinyproxy", microsocks = "/usr/bin/microsocks"
        try locations.requireExecutable(tinyproxy, name: "tinyproxy", hint: "Install tinyproxy (Scripts/bootstrap).")
        try locations.requireExecutable(microsocks, name: "microsocks", hint: "Install microsocks (Scripts/bootstrap).")
        let httpPort = try await ServerStartup.withFreshPorts(.tinyproxy, portCount: 1) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let configuration = locations.runDirectory.appendingPathComponent("tinyproxy.conf")
            let process: GuardedProcess
            do {
                // No ConnectPort line: CONNECT is allowed to any port (the test servers' ports are random).
                try """
                Port \(port)
                Listen 127.0.0.1
                Timeout 60
                MaxClients 200
                LogLevel Connect
                Allow 127.0.0.1
                BasicAuth \(username) \(password)
                AddHeader "X-Test-Proxy" "\(marker)"
                """.write(to: configuration, atomically: true, encoding: .utf8)
                process = try GuardedProcess.launch(
                    server: .tinyproxy, executable: tinyproxy, arguments: ["-d", "-c", configuration.path],
                    logFile: locations.logsDirectory.appendingPathComponent("tinyproxy.log"), locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching tinyproxy"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory, timeout: .seconds(15)) {
                RawHTTPClient.acceptsConnections(port: port)
            }
            return port
        }
        let socksPort = try await ServerStartup.withFreshPorts(.microsocks, portCount: 1) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let process: GuardedProcess
            do {
                process = try GuardedProcess.launch(
                    server: .microsocks, executable: microsocks,
                    arguments: ["-i", "127.0.0.1", "-p", String(port), "-u", username, "-P", password],
                    logFile: locations.logsDirectory.appendingPathComponent("microsocks.log"), locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching microsocks"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory, timeout: .seconds(15)) {
                RawHTTPClient.acceptsConnections(port: port)
            }
            return port
        }
        return ProxyServers(httpPort: httpPort, socksPort: socksPort)
    }
}
