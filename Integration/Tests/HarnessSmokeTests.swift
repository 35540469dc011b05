// Smoke tests that prove each harness server and TLS scenario answers as documented.
import AFTestHarness
import Foundation
import Testing

/// Runs curl with `arguments` (silent, no config file).
private func curl(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> CommandResult {
    try await ExternalCommand.run("curl", ["-q", "-s"] + arguments, timeout: timeout)
}

/// The SHA-256 of the file at `url`, in lowercase hex, from `sha256sum`.
private func sha256(of url: URL) async throws -> String {
    let result = try await ExternalCommand.run("sha256sum", [url.path])
    return String(result.stdoutText.prefix { $0 != " " })
}

@Suite("Harness: httpbin")
struct HTTPBinSmokeTests {
    @Test func getEchoesQueryArguments() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await curl(["-f", servers.httpbin.url("/get?a=1").absoluteString])
        #expect(result.exitCode == 0, "\(result.stderrText)\n\(servers.logTail(of: .httpbin))")
        let json = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        let arguments = try #require(json["args"] as? [String: Any])
        #expect(arguments["a"] as? String == "1")
        #expect(arguments.count == 1)
    }

    @Test func statusEndpointAnswersTheRequestedCode() async throws {
        let servers = try await IntegrationServers.shared()
        let response = try await RawHTTPClient.request(path: "/status/418", port: servers.httpbin.port)
        #expect(response.statusCode == 418, "\(servers.logTail(of: .httpbin))")
    }
}

@Suite("Harness: nginx over plain HTTP")
struct NginxSmokeTests {
    @Test func servesTheOneKilobyteFileExactly() async throws {
        let servers = try await IntegrationServers.shared()
        let file = servers.files.oneKilobyte
        let response = try await RawHTTPClient.request(path: file.urlPath, port: servers.nginx.httpPort)
        #expect(response.statusCode == 200, "\(servers.logTail(of: .nginx))")
        #expect(response.body.count == 1024)
        #expect(response.body == (try Data(contentsOf: file.localURL)))
        #expect(response.headers["etag"] != nil)
        #expect(response.headers["last-modified"] != nil)
        #expect(response.headers["accept-ranges"] == "bytes")
    }

    @Test func answersARangeRequestWithExactlyThoseBytes() async throws {
        let servers = try await IntegrationServers.shared()
        let file = servers.files.oneKilobyte
        let response = try await RawHTTPClient.request(
            path: file.urlPath, port: servers.nginx.httpPort, headers: ["Range": "bytes=100-199"])
        #expect(response.statusCode == 206)
        #expect(response.headers["content-range"] == "bytes 100-199/1024")
        #expect(response.body == (try Data(contentsOf: file.localURL))[100..<200])
    }

    @Test func servesTheHundredMegabyteFileWithRanges() async throws {
        let servers = try await IntegrationServers.shared()
        let file = servers.files.hundredMegabytes
        let size = ServedFiles.hundredMegabytesByteCount
        let attributes = try FileManager.default.attributesOfItem(atPath: file.localURL.path)
        #expect(attributes[.size] as? Int == size)
        let response = try await RawHTTPClient.request(
            path: file.urlPath, port: servers.nginx.httpPort, headers: ["Range": "bytes=\(size - 100)-"])
        #expect(response.statusCode == 206)
        #expect(response.headers["content-range"] == "bytes \(size - 100)-\(size - 1)/\(size)")
        let handle = try FileHandle(forReadingFrom: file.localURL)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(size - 100))
        #expect(response.body == (try handle.readToEnd()))
    }

    @Test func servesTheImages() async throws {
        let servers = try await IntegrationServers.shared()
        let images: [(ServedFile, String, [UInt8])] = [
            (servers.files.logoPNG, "image/png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            (servers.files.gradientPNG, "image/png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            (servers.files.photoJPEG, "image/jpeg", [0xFF, 0xD8, 0xFF]),
        ]
        for (file, contentType, signature) in images {
            let response = try await RawHTTPClient.request(path: file.urlPath, port: servers.nginx.httpPort)
            #expect(response.statusCode == 200, "\(file.urlPath)")
            #expect(response.headers["content-type"] == contentType)
            #expect(response.body.starts(with: signature), "\(file.urlPath)")
            #expect(response.body == (try Data(contentsOf: file.localURL)), "\(file.urlPath)")
        }
        let logoFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/ImageLoadingTests/Fixtures/logo.png")
        #expect(try Data(contentsOf: servers.files.logoPNG.localURL) == Data(contentsOf: logoFixture))
    }

    @Test("the upload sink reads whole bodies", arguments: [
        ("POST", false), ("POST", true), ("PUT", false), ("PUT", true),
    ])
    func uploadSinkReadsTheWholeBody(method: String, chunked: Bool) async throws {
        let servers = try await IntegrationServers.shared()
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("af-upload-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: body) }
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        try #require(try random.read(upToCount: 5 * 1024 * 1024)).write(to: body)
        var arguments = ["-X", method, "--data-binary", "@\(body.path)", "-H", "Content-Type: application/octet-stream",
                         "-w", "\n%{http_code}"]
        if chunked { arguments += ["-H", "Transfer-Encoding: chunked"] }
        let result = try await curl(arguments + [servers.nginx.httpURL(FaultEndpoints.upload).absoluteString])
        #expect(result.exitCode == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.last == "200", "\(result.stdoutText)\n\(servers.logTail(of: .nginx))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(lines.first.map(String.init)?.utf8 ?? "".utf8))
                                as? [String: Any])
        #expect(json["method"] as? String == method)
        #expect(json["bytes"] as? Int == 5 * 1024 * 1024)
        #expect(json["sha256"] as? String == (try await sha256(of: body)))
        #expect(json["contentType"] as? String == "application/octet-stream")
    }

    @Test func uploadSinkRejectsGet() async throws {
        let servers = try await IntegrationServers.shared()
        let response = try await RawHTTPClient.request(path: FaultEndpoints.upload, port: servers.nginx.httpPort)
        #expect(response.statusCode == 405)
    }

    @Test func dropEndsTheBodyShortOfItsContentLength() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await curl(["-o", "/dev/null", "-w", "%{size_download}",
                                     servers.nginx.httpURL(FaultEndpoints.drop).absoluteString])
        #expect(result.exitCode == 18, "curl: \(result.stderrText)")  // CURLE_PARTIAL_FILE
        #expect(result.stdoutText == String(FaultEndpoints.dropSentLength))

        for port in [servers.nginx.httpPort, servers.faultServer.port] {
            let response = try await RawHTTPClient.request(path: FaultEndpoints.drop, port: port)
            #expect(response.statusCode == 200)
            #expect(response.contentLength == FaultEndpoints.dropPromisedLength)
            #expect(response.ending == .closedByServer)
            #expect(response.body.count == FaultEndpoints.dropSentLength)
            #expect(response.body.prefix(300) == Data((0..<300).map(FaultEndpoints.dropByte(at:))))
        }
    }

    @Test func stallDoesNotCompleteWithinOneSecond() async throws {
        let servers = try await IntegrationServers.shared()
        async let curlResult = curl(["--max-time", "1", "-o", "/dev/null",
                                     servers.nginx.httpURL(FaultEndpoints.stall).absoluteString])
        // Six seconds for the head to come through nginx (it never ends, so any wait times out): one
        // second was not always enough at the suite's start on a loaded machine, three not at load 15.
        async let headersOnly = RawHTTPClient.request(
            path: FaultEndpoints.stall, port: servers.nginx.httpPort, timeout: .seconds(6))
        async let nothing = RawHTTPClient.request(
            path: FaultEndpoints.stallBeforeHeaders, port: servers.nginx.httpPort, timeout: .seconds(1))

        let result = try await curlResult
        #expect(result.exitCode == 28, "curl: \(result.stderrText)")  // CURLE_OPERATION_TIMEDOUT

        let stalled = try await headersOnly
        #expect(stalled.ending == .timedOut)
        #expect(stalled.statusCode == 200)
        #expect(stalled.contentLength == 100)
        #expect(stalled.body.isEmpty)

        let silent = try await nothing
        #expect(silent.ending == .timedOut)
        #expect(silent.received.isEmpty)
    }
}

@Suite("Harness: TLS scenarios")
struct TLSSmokeTests {
    /// `openssl s_client` against `scenario`'s port, verifying against the root CA and host `localhost`.
    private func handshake(_ scenario: TLSScenario, servers: IntegrationServers) async throws -> CommandResult {
        try await ExternalCommand.run("openssl", [
            "s_client", "-connect", "127.0.0.1:\(servers.nginx.httpsPort(scenario))", "-servername", "localhost",
            "-verify_hostname", "localhost", "-CAfile", servers.certificates.rootCA.pem.path,
            "-verify_return_error", "-alpn", "h2,http/1.1",
        ], timeout: .seconds(20))
    }

    @Test func validScenarioVerifiesAndNegotiatesHTTP2() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await handshake(.valid, servers: servers)
        #expect(result.exitCode == 0, "\(result.combinedText)")
        #expect(result.combinedText.contains("Verify return code: 0 (ok)"), "\(result.combinedText)")
        #expect(result.combinedText.contains("ALPN protocol: h2"))
        // The chain is leaf + intermediate. OpenSSL 3.0 (Debian 12) prints names as "CN = x", 3.5
        // (Debian 13) as "CN=x".
        let names = result.combinedText.replacingOccurrences(of: " = ", with: "=")
        #expect(names.contains("1 s:CN=AFNetworking Test Intermediate CA"), "\(result.combinedText)")
    }

    @Test("invalid scenarios fail verification with the expected X509 error", arguments: [
        (TLSScenario.wrongHost, "62 (hostname mismatch)"),
        (TLSScenario.expired, "10 (certificate has expired)"),
        (TLSScenario.selfSigned, "18 (self-signed certificate)"),
    ])
    func invalidScenarioFails(scenario: TLSScenario, expected: String) async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await handshake(scenario, servers: servers)
        #expect(result.exitCode != 0)
        #expect(result.combinedText.contains("Verify return code: \(expected)"), "\(result.combinedText)")
    }

    @Test("every TLS port serves the site over HTTP/2", arguments: TLSScenario.allCases)
    func servesTheSiteOverHTTP2(scenario: TLSScenario) async throws {
        let servers = try await IntegrationServers.shared()
        // Certificate checks off (-k): this test is about content, the handshake tests about trust.
        let result = try await curl(["-k", "--http2", "-w", "\n%{http_version}",
                                     servers.nginx.httpsURL(servers.files.oneKilobyte.urlPath, scenario: scenario).absoluteString])
        #expect(result.exitCode == 0, "\(result.stderrText)")
        let expected = try Data(contentsOf: servers.files.oneKilobyte.localURL) + Data("\n2".utf8)
        #expect(result.stdout == expected)
    }

    @Test func uploadSinkWorksOverHTTP2() async throws {
        let servers = try await IntegrationServers.shared()
        let body = Data(repeating: 0x61, count: 3 * 1024 * 1024 + 17)
        let result = try await ExternalCommand.run("curl", [
            "-q", "-s", "--http2", "--cacert", servers.certificates.rootCA.pem.path, "--data-binary", "@-",
            "-w", "\n%{http_code} %{http_version}",
            servers.nginx.httpsURL(FaultEndpoints.upload, scenario: .valid).absoluteString,
        ], input: body)
        let lines = result.stdoutText.split(separator: "\n")
        #expect(lines.last == "200 2", "\(result.combinedText)\n\(servers.logTail(of: .nginx))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data((lines.first ?? "").utf8)) as? [String: Any])
        #expect(json["bytes"] as? Int == body.count)
    }

    @Test func curlTrustsTheValidScenarioThroughTheRootCA() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await curl(["--cacert", servers.certificates.rootCA.pem.path, "-o", "/dev/null",
                                     "-w", "%{http_code} %{http_version}",
                                     servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString])
        #expect(result.exitCode == 0, "\(result.stderrText)")
        #expect(result.stdoutText == "200 2")
        let untrusted = try await curl(["-o", "/dev/null",
                                        servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString])
        #expect(untrusted.exitCode == 60)  // CURLE_PEER_FAILED_VERIFICATION: the test root is not system-trusted
    }
}

@Suite("Harness: certificates and logs")
struct CertificateAndLogSmokeTests {
    /// The public key of a PEM certificate, as PEM text.
    private func publicKey(ofCertificate pem: URL) async throws -> String {
        try await ExternalCommand.run("openssl", ["x509", "-in", pem.path, "-noout", "-pubkey"]).stdoutText
    }

    @Test func exposesEveryCertificateFile() async throws {
        let servers = try await IntegrationServers.shared()
        let certificates = servers.certificates
        let all = [certificates.rootCA, certificates.intermediateCA] + TLSScenario.allCases.map(certificates.leaf)
        for files in all {
            for url in [files.pem, files.der, files.privateKey] + (files.servedChain.map { [$0] } ?? []) {
                #expect(FileManager.default.fileExists(atPath: url.path), "\(url.path)")
            }
            let der = try await ExternalCommand.run("openssl", ["x509", "-inform", "DER", "-in", files.der.path, "-noout"])
            #expect(der.exitCode == 0, "\(files.der.path): \(der.stderrText)")
        }
        #expect(certificates.leaf(.selfSigned).servedChain == nil)
        let verify = try await ExternalCommand.run("openssl", [
            "verify", "-CAfile", certificates.rootCA.pem.path, "-untrusted", certificates.intermediateCA.pem.path,
            certificates.leaf(.valid).pem.path,
        ])
        #expect(verify.stdoutText.hasSuffix(": OK\n"), "\(verify.combinedText)")
    }

    @Test func reissuesALeafForTheSameKey() async throws {
        let servers = try await IntegrationServers.shared()
        let original = servers.certificates.leaf(.valid)
        let reissued = try await servers.certificates.issueLeaf(
            named: "valid-reissued-\(UInt32.random(in: 0...UInt32.max))", privateKey: original.privateKey,
            validityDays: 30)
        #expect(try await publicKey(ofCertificate: reissued.pem) == (try await publicKey(ofCertificate: original.pem)))
        #expect(try Data(contentsOf: reissued.der) != Data(contentsOf: original.der))
        #expect(reissued.privateKey == original.privateKey)
    }

    @Test func portsAreDistinctAndLogsAreReadable() async throws {
        let servers = try await IntegrationServers.shared()
        let ports = [servers.httpbin.port, servers.nginx.httpPort, servers.faultServer.port]
            + TLSScenario.allCases.map(servers.nginx.httpsPort)
        #expect(Set(ports).count == ports.count)
        #expect(servers.logTail(of: .httpbin).contains("Listening at: http://127.0.0.1:\(servers.httpbin.port)"))
        #expect(servers.logTail(of: .faultServer).contains("listening on 127.0.0.1:\(servers.faultServer.port)"))
        #expect(servers.logTail(of: .nginx).contains("nginx-access.log"))
        #expect(servers.runDirectory.path.hasSuffix("/.build/harness-runs/\(getpid())"))
    }
}
