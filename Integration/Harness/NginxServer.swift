// nginx: static files, Range requests, the upload sink and the faults over plain HTTP, and the same
// site over HTTPS (HTTP/2) once per TLS scenario.
import Foundation

/// nginx (`/usr/sbin/nginx`) on 127.0.0.1, configured from `Integration/servers/nginx*.conf.template`.
///
/// Every port serves the same site: `ServedFiles` under `/files/` and `/images/`, `FaultEndpoints`
/// (`/upload`, `/stall`, `/stall-before-headers`, `/drop`) and `/health`. The HTTPS ports speak HTTP/2
/// and HTTP/1.1 (ALPN), TLS 1.2 and 1.3, and present the certificate of their `TLSScenario`.
public struct NginxServer: Sendable {
    /// The plain HTTP/1.1 port.
    public let httpPort: Int
    /// The HTTPS port of each TLS scenario.
    public let httpsPorts: [TLSScenario: Int]
    /// HTTPS ports presenting the valid certificate that speak only one TLS version; the TLS 1.2 one
    /// speaks only HTTP/1.1 too (no HTTP/2 in its ALPN).
    public let singleVersionPorts: [TLSSingleVersion: Int]
    /// The HTTPS port (valid certificate) that requires a client certificate issued under the test root
    /// (`ssl_verify_client on`); `/whoami` answers the client's subject, nginx answers 400 without one.
    public let mutualTLSPort: Int
    /// The Unix domain socket nginx also serves the site on (plain HTTP); `/via-socket` answers
    /// `unix` there and nowhere else.
    public let unixSocketPath: String

    /// `http://127.0.0.1:<httpPort>`.
    public var httpBaseURL: URL { loopbackURL(scheme: "http", port: httpPort, path: "") }

    /// The URL of `path` on the plain HTTP port.
    public func httpURL(_ path: String) -> URL { loopbackURL(scheme: "http", port: httpPort, path: path) }

    /// The HTTPS port presenting `scenario`'s certificate.
    public func httpsPort(_ scenario: TLSScenario) -> Int {
        guard let port = httpsPorts[scenario] else { preconditionFailure("no port for \(scenario)") }
        return port
    }

    /// The URL of `path` on `scenario`'s HTTPS port. `host` defaults to `localhost` (which resolves to
    /// 127.0.0.1 here); `127.0.0.1` also matches the valid, expired and self-signed leaves.
    public func httpsURL(_ path: String, scenario: TLSScenario, host: String = "localhost") -> URL {
        loopbackURL(scheme: "https", host: host, port: httpsPort(scenario), path: path)
    }

    /// The URL of `path` on the port that speaks only `version` (the valid certificate).
    public func httpsURL(_ path: String, only version: TLSSingleVersion, host: String = "localhost") -> URL {
        guard let port = singleVersionPorts[version] else { preconditionFailure("no port for \(version)") }
        return loopbackURL(scheme: "https", host: host, port: port, path: path)
    }

    /// The URL of `path` on the mutual-TLS port.
    public func mutualTLSURL(_ path: String, host: String = "localhost") -> URL {
        loopbackURL(scheme: "https", host: host, port: mutualTLSPort, path: path)
    }

    /// Renders the configuration into the run folder, starts nginx under a guard and waits until the
    /// plain port answers `/health` with 200 and every HTTPS port accepts connections.
    static func start(
        locations: HarnessLocations, faultPort: Int, webSocketPort: Int, certificates: TestCertificates, files: ServedFiles
    ) async throws(HarnessError) -> NginxServer {
        let nginx = "/usr/sbin/nginx"
        try locations.requireExecutable(nginx, name: "nginx", hint: "Install nginx-light (Scripts/bootstrap).")
        let run = locations.runDirectory
        do {
            for temp in ["client-body", "proxy", "fastcgi", "uwsgi", "scgi"] {
                try FileManager.default.createDirectory(
                    at: run.appendingPathComponent("nginx-temp/\(temp)"), withIntermediateDirectories: true)
            }
        } catch {
            throw .setupFailed(step: "creating nginx's temp folders", reason: "\(error)")
        }

        let scenarios = TLSScenario.allCases
        let versions = TLSSingleVersion.allCases
        return try await ServerStartup.withFreshPorts(.nginx, portCount: 2 + scenarios.count + versions.count) {
            ports throws(ServerStartup.AttemptFailure) in
            let httpPort = ports[0]
            let httpsPorts = Dictionary(uniqueKeysWithValues: zip(scenarios, ports.dropFirst()))
            let singleVersionPorts = Dictionary(uniqueKeysWithValues: zip(versions, ports.dropFirst(1 + scenarios.count)))
            let mutualTLSPort = ports[1 + scenarios.count + versions.count]
            let unixSocketPath = run.appendingPathComponent("nginx.sock").path
            let process: GuardedProcess
            do {
                try renderConfiguration(locations: locations, httpPort: httpPort, httpsPorts: httpsPorts,
                                        singleVersionPorts: singleVersionPorts, mutualTLSPort: mutualTLSPort,
                                        faultPort: faultPort, webSocketPort: webSocketPort,
                                        certificates: certificates, files: files)
                process = try GuardedProcess.launch(
                    server: .nginx, executable: nginx,
                    arguments: ["-p", run.path, "-c", run.appendingPathComponent("nginx.conf").path,
                                "-g", "daemon off; pid \(run.appendingPathComponent("nginx.pid").path);"],
                    logFile: locations.logsDirectory.appendingPathComponent("nginx.log"),
                    locations: locations)
            } catch {
                throw .failed(HarnessError.wrapping(error, step: "launching \(HarnessServer.nginx.rawValue)"))
            }
            try await ServerStartup.waitUntilReady(process, logsDirectory: locations.logsDirectory,
                                                   timeout: .seconds(15)) {
                ServerStartup.answers200(port: httpPort, path: "/health")
                    && (Array(httpsPorts.values) + singleVersionPorts.values + [mutualTLSPort]).allSatisfy {
                        RawHTTPClient.acceptsConnections(port: $0)
                    }
                    && FileManager.default.fileExists(atPath: unixSocketPath)
            }
            return NginxServer(httpPort: httpPort, httpsPorts: httpsPorts, singleVersionPorts: singleVersionPorts,
                               mutualTLSPort: mutualTLSPort, unixSocketPath: unixSocketPath)
        }
    }

    /// Writes `nginx.conf` and `nginx-site.conf` into the run folder from the templates.
    private static func renderConfiguration(
        locations: HarnessLocations, httpPort: Int, httpsPorts: [TLSScenario: Int],
        singleVersionPorts: [TLSSingleVersion: Int], mutualTLSPort: Int, faultPort: Int, webSocketPort: Int,
        certificates: TestCertificates, files: ServedFiles
    ) throws(HarnessError) {
        // As root, nginx would run its workers as `nobody`, who cannot read the run folder; keep this user.
        let userDirective = geteuid() == 0
            ? "user \(getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "root");" : ""
        var values = [
            "RUN_DIR": locations.runDirectory.path,
            "CERT_DIR": certificates.directory.path,
            "WWW_ROOT": files.root.path,
            "HTTP_PORT": String(httpPort),
            "MUTUAL_TLS_PORT": String(mutualTLSPort),
            "FAULT_PORT": String(faultPort),
            "WEBSOCKET_PORT": String(webSocketPort),
            "USER_DIRECTIVE": userDirective,
        ]
        for (scenario, port) in httpsPorts {
            values["\(scenario.templateName)_PORT"] = String(port)
        }
        for (version, port) in singleVersionPorts {
            values["\(version.templateName)_PORT"] = String(port)
        }
        for name in ["nginx.conf", "nginx-site.conf"] {
            let template = locations.serverFile("\(name).template")
            do {
                var text = try String(contentsOf: template, encoding: .utf8)
                for (key, value) in values {
                    text = text.replacingOccurrences(of: "{{\(key)}}", with: value)
                }
                if let unreplaced = text.range(of: "{{") {
                    let line = text[unreplaced.lowerBound...].prefix { $0 != "\n" }
                    throw HarnessError.setupFailed(step: "rendering \(template.path)",
                                                   reason: "unknown placeholder in: \(line)")
                }
                try text.write(to: locations.runDirectory.appendingPathComponent(name), atomically: true,
                               encoding: .utf8)
            } catch {
                throw HarnessError.wrapping(error, step: "rendering \(template.path)")
            }
        }
    }
}

extension TLSScenario {
    /// The scenario's placeholder prefix in the nginx template, for example `WRONG_HOST`.
    var templateName: String { fileStem.uppercased().replacingOccurrences(of: "-", with: "_") }
}

/// A TLS version one of nginx's extra HTTPS ports is limited to (`ssl_protocols` with that version only).
public enum TLSSingleVersion: String, Sendable, CaseIterable {
    /// `ssl_protocols TLSv1.2`.
    case tls12
    /// `ssl_protocols TLSv1.3`.
    case tls13

    /// The placeholder prefix in the nginx template, for example `TLS12_ONLY`.
    var templateName: String { rawValue.uppercased() + "_ONLY" }
}
