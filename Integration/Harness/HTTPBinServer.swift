// httpbin under gunicorn: the HTTP API AFNetworking's own test suite used.
import Foundation

/// httpbin (https://httpbin.org's application) served by gunicorn on 127.0.0.1: 2 workers of 16 threads,
/// so concurrent tests (and `/delay/N` calls) do not queue behind each other.
///
/// Endpoints include `/get`, `/post`, `/put`, `/delete`, `/status/{code}`, `/delay/{seconds}`,
/// `/basic-auth/{user}/{password}`, `/digest-auth/auth/{user}/{password}`, `/redirect/{n}`,
/// `/image/png`, `/bytes/{n}`, `/stream-bytes/{n}`, `/headers`, `/cookies`.
/// Two sync workers serve two requests at a time; a `/delay` request occupies one for its duration.
public struct HTTPBinServer: Sendable {
    /// The TCP port on 127.0.0.1.
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { loopbackURL(scheme: "http", port: port, path: "") }

    /// The URL of `pathAndQuery` (for example `/get?a=1`) on this server.
    public func url(_ pathAndQuery: String) -> URL { loopbackURL(scheme: "http", port: port, path: pathAndQuery) }

    /// Starts gunicorn from the venv under a guard and waits until `/get` answers 200.
    static func start(locations: HarnessLocations) async throws(HarnessError) -> HTTPBinServer {
        let gunicorn = locations.venv.appendingPathComponent("bin/gunicorn").path
        try locations.requireExecutable(
            gunicorn, name: "gunicorn",
            hint: "Expected in the venv \(locations.venv.path) (set AF_VENV to use another); run Scripts/bootstrap.")
        // Settings a gunicorn version does not know are ignored in a config file (unlike on the command
        // line). Without this, gunicorn 25+ opens a control socket in ~/.gunicorn shared by all instances.
        let config = locations.runDirectory.appendingPathComponent("gunicorn.conf.py")
        do {
            // The access log lets tests count the requests that reached the server (the HTTP cache's).
            let accessLog = locations.logsDirectory.appendingPathComponent("httpbin-access.log").path
            try "control_socket_disable = True\naccesslog = \"\(accessLog)\"\n"
                .write(to: config, atomically: true, encoding: .utf8)
        } catch {
            throw .setupFailed(step: "writing \(config.path)", reason: "\(error)")
        }

        return try await ServerStartup.withFreshPorts(.httpbin, portCount: 1) { ports throws(ServerStartup.AttemptFailure) in
            let port = ports[0]
            let process: GuardedProcess
            do {
                process = try GuardedProcess.launch(
                    server: .httpbin, executable: gunicorn,
                    arguments: ["-w", "2", "-k", "gthread", "--threads", "16", "-b", "127.0.0.1:\(port)", "-c", config.path,
                                "--pid", locations.runDirectory.appendingPathComponent("httpbin.pid").path,
                                "httpbin:app"],
                    environment: ["PYTHONUNBUFFERED": "1"],
                    logFile: locations.logsDirectory.appendingPathComponent("httpbin.log"),
                    locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching \(HarnessServer.httpbin.rawValue)"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory,
                                                   timeout: .seconds(30)) {
                ServerStartup.answers200(port: port, path: "/get")
            }
            return HTTPBinServer(port: port)
        }
    }
}
