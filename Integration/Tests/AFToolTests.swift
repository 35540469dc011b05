// The `af` tool as a user runs it: the real binary against the harness's servers, checking output
// and the documented exit codes (0 ok, 3 HTTP error, 4 transport, 5 TLS/pinning, 64 usage).
import AFNetworking
import AFTestHarness
import Foundation
import Testing

@Suite(.serialized) struct AFToolTests {
    /// The `af` binary, built next to the test bundle by `swift build --build-tests`.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("af").path

    func af(_ arguments: [String], input: Data? = nil) async throws -> CommandResult {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable), "build af first: swift build --build-tests")
        return try await ExternalCommand.run(Self.executable, arguments, input: input, timeout: .seconds(60))
    }

    func json(_ result: CommandResult) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    @Test func streamPrintsEventsAndJSONLinesAsTheyArrive() async throws {
        let servers = try await IntegrationServers.shared()
        let events = hostileURL(servers.faultServer.baseURL, "/hostile/event-stream", ["count": "3", "interval": "0.05"])
        let streamed = try await af(["get", events.absoluteString, "--stream"])
        #expect(streamed.exitCode == 0)
        #expect(text(streamed.stdout) == (1...3).map { "id: \($0)\nevent: tick\ndata: event \($0)\n\n" }.joined())
        let lines = hostileURL(servers.faultServer.baseURL, "/hostile/event-stream",
                               ["count": "3", "interval": "0.05", "type": "jsonl"])
        let json = try await af(["get", lines.absoluteString, "--stream"])
        #expect(json.exitCode == 0)
        #expect(text(json.stdout) == "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n")
        // A data line that never ends stops at the parser's line limit (256 KiB), with exit 1.
        let flood = hostileURL(servers.faultServer.baseURL, "/hostile/event-stream", ["flood": "1"])
        let flooded = try await af(["get", flood.absoluteString, "--stream"])
        #expect(flooded.exitCode == 1)
        #expect(text(flooded.stderr) == "af: the event stream broke a limit: lineTooLong(limit: 262144)\n")
        #expect(flooded.stdout.isEmpty)
    }

    @Test func getSendsQueryItemsAndPrettyPrintsJSON() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await af(["get", servers.httpbin.url("/get").absoluteString, "page==2", "q==swift linux", "X-Demo:yes"])
        #expect(result.exitCode == 0)
        let body = try json(result)
        #expect(body["args"] as? [String: String] == ["page": "2", "q": "swift linux"])
        #expect((body["headers"] as? [String: String])?["X-Demo"] == "yes")
        #expect(text(result.stdout).contains("\n  \"args\" : {\n"))
    }

    @Test func cacheAnswersTheSecondRunWithoutARequest() async throws {
        let servers = try await IntegrationServers.shared()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = "m=" + UUID().uuidString
        let url = servers.httpbin.url("/cache/60?" + marker).absoluteString
        let first = try await af(["get", url, "--cache", directory.path, "--verbose"])
        let second = try await af(["get", url, "--cache", directory.path, "--verbose"])
        #expect(first.exitCode == 0 && second.exitCode == 0)
        #expect(second.stdout == first.stdout)
        #expect(!text(first.stderr).contains("< from the cache"))
        #expect(text(second.stderr).contains("< from the cache: no request was sent\n"))
        // Without --cache, af caches nothing (as curl).
        #expect(try await af(["get", url]).exitCode == 0)
        #expect(await servers.loggedRequestCount(on: .httpbin, containing: marker, expecting: 2) == 2)
    }

    @Test func cacheDirectoriesAreCreated0700() async throws {
        umask(0o022)   // the usual umask (af inherits it), under which Foundation would make them 0755
        let servers = try await IntegrationServers.shared()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("af-cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("nested/cache")
        let url = servers.httpbin.url("/cache/60?m=\(UUID().uuidString)").absoluteString
        #expect(try await af(["get", url, "--cache", directory.path]).exitCode == 0)
        func mode(_ url: URL) -> mode_t? {
            var info = stat()
            return lstat(url.path, &info) == 0 ? info.st_mode & 0o7777 : nil
        }
        // Every directory af made; the entry Foundation wrote (0644 under the umask) is in the last.
        #expect([root, root.appendingPathComponent("nested"), directory].map(mode) == [0o700, 0o700, 0o700])
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(entries.count == 1 && entries.allSatisfy { $0.hasSuffix(".storedcachedurlresponse") })

        // An existing cache directory of the user's is made private too.
        #expect(chmod(directory.path, 0o755) == 0)
        #expect(try await af(["get", url, "--cache", directory.path]).exitCode == 0)
        #expect(mode(directory) == 0o700)
    }

    @Test func retryRetriesWithBackoffAndShowsTheServersReasonPhrase() async throws {
        let servers = try await IntegrationServers.shared()
        let key = UUID().uuidString
        let flaky = hostileURL(servers.faultServer.baseURL, "/hostile/flaky",
                               ["key": key, "failures": "2", "reason": "Come Back Later"]).absoluteString
        let retried = try await af(["get", flaky, "--retry", "3"])
        #expect(retried.exitCode == 0)
        #expect(text(retried.stdout) == "attempt 3\n")
        let notices = text(retried.stderr).split(separator: "\n").map(String.init)
        #expect(notices.count == 2)
        #expect(notices.first?.hasPrefix("af: attempt 1 failed (HTTP 503); retrying in 0.") == true)
        #expect(notices.last?.hasPrefix("af: attempt 2 failed (HTTP 503); retrying in ") == true)

        // Without --retry: the first answer, with the server's own reason phrase.
        let once = try await af(["get", hostileURL(servers.faultServer.baseURL, "/hostile/flaky",
                                                    ["key": key + "-once", "failures": "1", "reason": "Come Back Later"]).absoluteString, "-i"])
        #expect(once.exitCode == 3)
        #expect(text(once.stdout).hasPrefix("HTTP/1.1 503 Come Back Later\n"))
    }

    @Test func printChoosesTheRequestAndResponseParts() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.httpbin.url("/post")
        let all = try await af(["post", url.absoluteString, "name=Ana", "--print", "HBhb"])
        #expect(all.exitCode == 0)
        let output = text(all.stdout)
        #expect(output.hasPrefix("POST /post HTTP/1.1\n"))
        #expect(output.contains("\nContent-Type: application/json\n"))
        #expect(output.contains("\nHost: 127.0.0.1:\(servers.httpbin.port)\n"))
        #expect(output.contains("\n\n{\"name\":\"Ana\"}\n\nHTTP/1.1 200 OK\n"))
        #expect(output.contains("\"json\" : {\n    \"name\" : \"Ana\"\n  }"))
        #expect(!output.contains("\u{1B}["))

        let headOnly = try await af(["get", servers.httpbin.url("/get").absoluteString, "-p", "h"])
        #expect(text(headOnly.stdout).hasPrefix("HTTP/1.1 200 OK\n"))
        #expect(!text(headOnly.stdout).contains("\"url\""))
        #expect(try await af(["get", url.absoluteString, "--print", "x"]).exitCode == 64)
    }

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() async throws {
        let servers = try await IntegrationServers.shared()
        let json = servers.httpbin.url("/json").absoluteString
        // `swift test` runs tests with NO_COLOR=1: af is run without it, except where the test sets it.
        func onTerminal(_ command: String) async throws -> String {
            text(try await ExternalCommand.run("/usr/bin/script", ["-qec", "env -u NO_COLOR " + command, "/dev/null"]).stdout)
        }
        let screen = try await onTerminal("\(Self.executable) get \(json) -i")
        #expect(screen.contains("\u{1B}[2mHTTP/1.1\u{1B}[0m \u{1B}[1m\u{1B}[32m200 OK\u{1B}[0m"))
        #expect(screen.contains("\u{1B}[36mContent-Type\u{1B}[0m: application/json"))
        #expect(screen.contains("\u{1B}[1m\u{1B}[34m\"slideshow\"\u{1B}[0m : {"))
        #expect(screen.contains("\u{1B}[32m\"Sample Slide Show\"\u{1B}[0m"))
        let xml = try await onTerminal("\(Self.executable) get \(servers.httpbin.url("/xml").absoluteString)")
        #expect(xml.contains("\u{1B}[34m<slideshow\u{1B}[0m \u{1B}[36mtitle\u{1B}[0m=\u{1B}[32m\"Sample Slide Show\"\u{1B}[0m"))
        #expect(xml.contains("\u{1B}[34m</slideshow\u{1B}[0m\u{1B}[34m>\u{1B}[0m"))
        let noColor = try await onTerminal("NO_COLOR=1 \(Self.executable) get \(json) -i")
        #expect(noColor.contains("HTTP/1.1 200 OK"))
        #expect(!noColor.contains("\u{1B}["))
        #expect(!text(try await af(["get", json, "-i"]).stdout).contains("\u{1B}["))
    }

    /// man/af.1 (Scripts/man, from ArgumentParser) names every long option af has: it is not stale.
    @Test func theManPageNamesEveryOption() async throws {
        let dump = try await af(["--experimental-dump-help"])
        let tree = try #require(JSONSerialization.jsonObject(with: dump.stdout) as? [String: Any])
        var options: Set<String> = []
        func walk(_ command: [String: Any]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                for name in argument["names"] as? [[String: Any]] ?? [] where name["kind"] as? String == "long" {
                    if let long = name["name"] as? String { options.insert(long) }
                }
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub) }
        }
        walk(try #require(tree["command"] as? [String: Any]))
        #expect(options.count > 30)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("man/af.1"), encoding: .utf8)
        #expect(page.hasPrefix(".\\\" \"Generated by swift-argument-parser\""))
        // ".It Fl -name", ".It Fl c , -name" (with a short name too), either followed by " Ar value".
        let missing = options.filter { name in
            page.split(separator: "\n").allSatisfy { line in
                !line.hasPrefix(".It Fl") || !(line.hasSuffix("-\(name)") || line.contains("-\(name) Ar "))
            }
        }.sorted()
        #expect(missing.isEmpty, "run Scripts/man: man/af.1 lacks \(missing)")
    }

    @Test func formAndJSONBodies() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.httpbin.url("/post").absoluteString
        let form = try await af(["post", "--form", url, "name=Ana", "city=Lyon"])
        #expect(form.exitCode == 0)
        #expect(try json(form)["form"] as? [String: String] == ["name": "Ana", "city": "Lyon"])

        let body = try json(try await af(["post", url, "name=Ana", "tags:=[\"a\",1]", "admin:=true"]))
        let sent = try #require(body["json"] as? [String: Any])
        #expect(sent["name"] as? String == "Ana")
        #expect((sent["tags"] as? [Any])?.count == 2)
        #expect((body["headers"] as? [String: String])?["Content-Type"] == "application/json")
    }

    @Test func multipartFileUpload() async throws {
        let servers = try await IntegrationServers.shared()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("af-upload-\(getpid()).txt")
        try Data("hello from af\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await af(["post", servers.httpbin.url("/post").absoluteString, "note=hi", "doc@\(file.path)"])
        #expect(result.exitCode == 0)
        let body = try json(result)
        #expect(body["files"] as? [String: String] == ["doc": "hello from af\n"])
        #expect(body["form"] as? [String: String] == ["note": "hi"])
    }

    @Test func exitCodesForHTTPTransportAndUsageErrors() async throws {
        let servers = try await IntegrationServers.shared()
        #expect(try await af(["get", servers.httpbin.url("/status/404").absoluteString]).exitCode == 3)
        #expect(try await af(["get", servers.httpbin.url("/status/503").absoluteString]).exitCode == 3)
        let closed = try await af(["get", "http://127.0.0.1:1/"])
        #expect(closed.exitCode == 4)
        #expect(text(closed.stderr) == "af: Could not connect to the server. (NSURLErrorDomain -1004)\n")
        #expect(try await af(["get"]).exitCode == 64)
        #expect(try await af(["get", "http://127.0.0.1/", "no-separator"]).exitCode == 64)
    }

    @Test func headersOverHTTP2WithAPinnedCertificate() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString
        let result = try await af(["get", "-i", url, "--cacert", servers.certificates.rootCA.pem.path,
                                   "--pin-cert", servers.certificates.leaf(.valid).pem.path])
        #expect(result.exitCode == 0)
        let lines = text(result.stdout).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "HTTP/2 200 no error")
        #expect(lines.contains("Content-Length: 1024"))
    }

    @Test func refusedPinPrintsAFMessageAndExits5() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString
        let result = try await af(["get", url, "--cacert", servers.certificates.rootCA.pem.path,
                                   "--pin-cert", servers.certificates.leaf(.selfSigned).pem.path])
        #expect(result.exitCode == 5)
        #expect(text(result.stderr) == "af: The certificate for this server is invalid. You might be connecting to a server that is pretending to be “localhost” which could put your confidential information at risk. (NSURLErrorDomain -1202)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func publicKeyHashPin() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString
        let root = servers.certificates.rootCA.pem.path
        let wrong = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        #expect(try await af(["get", url, "--cacert", root, "--pin-sha256", wrong]).exitCode == 5)
        #expect(try await af(["get", url, "--cacert", root]).exitCode == 0)
    }

    @Test func xpathOnXML() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await af(["get", servers.httpbin.url("/xml").absoluteString, "--xpath", "string(/slideshow/@title)"])
        #expect(result.exitCode == 0)
        #expect(text(result.stdout) == "Sample Slide Show\n")
    }

    @Test func certAndKeyPresentAClientIdentity() async throws {
        let servers = try await IntegrationServers.shared()
        let files = servers.certificates
        let url = servers.nginx.mutualTLSURL("/whoami").absoluteString
        let root = files.rootCA.pem.path
        let pem = try await af(["get", url, "--cacert", root, "--cert", files.client.servedChain!.path,
                                "--key", files.client.privateKey.path])
        #expect(pem.exitCode == 0)
        #expect(text(pem.stdout) == "CN=AFNetworking Test Client\n")
        let bundle = try await af(["get", url, "--cacert", root, "--cert", files.clientPKCS12.path,
                                   "--pass", files.clientPKCS12Passphrase])
        #expect(text(bundle.stdout) == "CN=AFNetworking Test Client\n")
        let wrong = try await af(["get", url, "--cacert", root, "--cert", files.clientPKCS12.path, "--pass", "wrong"])
        #expect(wrong.exitCode == 1)
        #expect(text(wrong.stderr) == "Error: The PKCS#12 bundle could not be read (or its passphrase is wrong).\n")
        let none = try await af(["get", url, "--cacert", root])
        #expect(none.exitCode == 3)
        #expect(text(none.stdout).contains("400 No required SSL certificate was sent"))
    }

    @Test func downloadAndContinueProduceTheSameBytes() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpURL("/files/100m.bin").absoluteString
        let original = try Data(contentsOf: servers.files.hundredMegabytes.localURL)
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("af-dl-\(getpid()).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        try original.prefix(30_000_000).write(to: target)

        let resumed = try await af(["get", url, "--download", target.path, "--continue"])
        #expect(resumed.exitCode == 0)
        #expect(text(resumed.stderr) == "af: resumed at byte 30000000: \(target.path) is now 104857600 bytes\n")
        #expect(try Data(contentsOf: target) == original)

        let again = try await af(["get", url, "--download", target.path, "--continue"])
        #expect(text(again.stderr) == "af: \(target.path) is already complete (104857600 bytes)\n")
    }

    @Test func continueRefusesA206ForAnotherRange() async throws {
        let servers = try await IntegrationServers.shared()
        let url = hostileURL(servers.faultServer.baseURL, "/hostile/range-liar", ["size": "100"]).absoluteString
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("af-liar-\(getpid()).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let partial = Data(repeating: 0x41, count: 10)
        try partial.write(to: target)
        let result = try await af(["get", url, "--download", target.path, "--continue"])
        #expect(result.exitCode == 4)
        #expect(text(result.stderr) == "af: The server sent bytes 0-99 for a download resumed at byte 10. "
            + "\(target.path) is left as it was\n")
        #expect(try Data(contentsOf: target) == partial)
    }

    @Test func continueTakesA416AsCompleteOnlyForTheFilesLength() async throws {
        let servers = try await IntegrationServers.shared()
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("af-416-\(getpid()).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let partial = Data(repeating: 0x52, count: 1000)
        try partial.write(to: target)
        let truthful = hostileURL(servers.faultServer.baseURL, "/hostile/range-416", ["size": "1000"]).absoluteString
        let complete = try await af(["get", truthful, "--download", target.path, "--continue"])
        #expect(complete.exitCode == 0)
        #expect(text(complete.stderr) == "af: \(target.path) is already complete (1000 bytes)\n")

        let liar = hostileURL(servers.faultServer.baseURL, "/hostile/range-416", ["size": "1000", "claim": "5000"]).absoluteString
        let refused = try await af(["get", liar, "--download", target.path, "--continue"])
        #expect(refused.exitCode == 3)
        #expect(text(refused.stderr) == "af: server answered 416 requested range not satisfiable; nothing saved\n")
        #expect(try Data(contentsOf: target) == partial)
    }

    @Test func progressBarOnlyOnATerminal() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpURL("/files/100m.bin").absoluteString
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("af-tty-\(getpid()).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        // `script` runs af on a pseudo-terminal, as a person at a terminal would.
        let onTTY = try await ExternalCommand.run("/usr/bin/script", ["-qec", "\(Self.executable) get \(url) --download \(target.path)", "/dev/null"])
        #expect(onTTY.exitCode == 0)
        let screen = text(onTTY.stdout)
        #expect(screen.contains("\r["))
        #expect(screen.contains("100%  104.9/104.9 MB"))
        #expect(screen.contains("MB/s"))

        let piped = try await af(["get", url, "--download", target.path])
        #expect(piped.exitCode == 0)
        #expect(text(piped.stderr) == "af: saved \(target.path) (104857600 bytes)\n")
    }

    @Test func reachabilityOfLoopback() async throws {
        let result = try await af(["reachability", "127.0.0.1"])
        #expect(result.exitCode == 0)
        #expect(text(result.stdout) == "127.0.0.1: Reachable via WiFi [interface lo, loopback]\n")
    }

    @Test func imageFetchedTwiceIsAnsweredByTheCacheAndWrittenAsPNG() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpURL(servers.files.logoPNG.urlPath).absoluteString
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("af-image-\(getpid()).png")
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try await af(["image", url, url, "--out", out.path])
        #expect(result.exitCode == 0)
        let lines = text(result.stdout).split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("\(url): 850x300 pixels, "))
        #expect(lines[0].hasSuffix(" ms, downloaded and decoded (image/png, HTTP 200)"))
        #expect(lines[1].hasPrefix("\(url): 850x300 pixels, "))
        #expect(lines[1].hasSuffix(" ms, from the memory cache"))
        #expect(lines[2] == "wrote \(out.path)")
        // The written PNG decodes to exactly the pixels of the original.
        let written = try ImageDecoder.decode(try Data(contentsOf: out))
        let original = try ImageDecoder.decode(try Data(contentsOf: servers.files.logoPNG.localURL))
        #expect(written == original)
    }

    /// Every type AFNetworking's image serializer accepts decodes: TIFF, BMP and ICO besides PNG, JPEG and
    /// GIF; and WebP, which af image accepts too.
    @Test func tiffWebPBMPAndICODecodeThroughTheDownloader() async throws {
        let servers = try await IntegrationServers.shared()
        for (file, type, size) in [(servers.files.sampleTIFF, "image/tiff", "2x2"), (servers.files.sampleBMP, "image/bmp", "3x2"),
                                   (servers.files.sampleICO, "image/x-icon", "2x2"), (servers.files.sampleWebP, "image/webp", "16x16")] {
            let url = servers.nginx.httpURL(file.urlPath).absoluteString
            let result = try await af(["image", url])
            #expect(result.exitCode == 0, "\(text(result.stderr))")
            let line = text(result.stdout)
            #expect(line.hasPrefix("\(url): \(size) pixels, "), "\(line)")
            #expect(line.hasSuffix(" ms, downloaded and decoded (\(type), HTTP 200)\n"), "\(line)")
        }
    }

    @Test func corruptImageFailsWithoutCrashing() async throws {
        let servers = try await IntegrationServers.shared()
        // 1k.bin is random bytes served as application/octet-stream: refused, exit 1, no crash.
        let result = try await af(["image", servers.nginx.httpURL("/files/1k.bin").absoluteString])
        #expect(result.exitCode == 1)
        #expect(text(result.stderr).contains("com.alamofire.error.serialization.response -1016"))
    }

    @Test func spinnerOnATerminalForASlowRequest() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.httpbin.url("/delay/2").absoluteString
        let onTTY = try await ExternalCommand.run("/usr/bin/script", ["-qec", "\(Self.executable) get \(url)", "/dev/null"])
        #expect(onTTY.exitCode == 0)
        let screen = text(onTTY.stdout)
        // Frames after the 1 s activation delay, then the line cleared before the body.
        #expect(screen.contains("\r|"))
        #expect(screen.contains("\r\u{1B}[2K{"))
        let piped = try await af(["get", url])
        #expect(!text(piped.stderr).contains("\r"))
    }

    @Test func repeatedRunsExitCleanly() async throws {
        // Process exit tears down Foundation while session threads may still run: af quiesces its
        // session first. Thirty runs, two at a time, must all exit 0 (a crash at exit shows as 139).
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString
        let root = servers.certificates.rootCA.pem.path
        let runs = try await withThrowingTaskGroup(of: [(code: Int32, stderr: String)].self) { group in
            for _ in 0..<2 {
                group.addTask {
                    var runs: [(code: Int32, stderr: String)] = []
                    for _ in 0..<15 {
                        let run = try await af(["get", url, "--cacert", root, "--raw"])
                        runs.append((run.exitCode, text(run.stderr)))
                    }
                    return runs
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        // A failed run's stderr carries the runtime's backtrace: keep it in the failure.
        let failures = runs.filter { $0.code != 0 }.map { "exit \($0.code):\n\($0.stderr)" }
        #expect(runs.map(\.code) == Array(repeating: 0, count: 30), "\(failures.joined(separator: "\n"))")
    }

    @Test func httpVersionFlags() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpsURL("/files/1k.bin", scenario: .valid).absoluteString
        let root = servers.certificates.rootCA.pem.path
        let http11 = try await af(["head", url, "--cacert", root, "--http1.1"])
        #expect(text(http11.stdout).hasPrefix("HTTP/1.1 200 OK\n"))  // the server's own reason phrase
        let automatic = try await af(["head", url, "--cacert", root])
        #expect(text(automatic.stdout).hasPrefix("HTTP/2 200 no error\n"))
        #expect(try await af(["head", url, "--http2", "--http1.1"]).exitCode == 64)
    }

    @Test func xmlBodiesArePrettyPrinted() async throws {
        let servers = try await IntegrationServers.shared()
        let result = try await af(["get", servers.httpbin.url("/xml").absoluteString])
        #expect(result.exitCode == 0)
        let lines = text(result.stdout).split(separator: "\n").map(String.init)
        #expect(lines.first == "<slideshow title=\"Sample Slide Show\" date=\"Date of publication\" author=\"Yours Truly\">")
        #expect(lines[1] == "  <!-- TITLE SLIDE -->")
        #expect(lines[2] == "  <slide type=\"all\">")
        #expect(lines.last == "</slideshow>")
    }

    @Test func reachabilityWatchPrintsTheCurrentStatusAndKeepsRunning() async throws {
        // --watch prints the current status at once, then waits for changes until interrupted.
        let result = try await ExternalCommand.run(Self.executable, ["reachability", "127.0.0.1", "--watch"], timeout: .seconds(2))
        #expect(result.timedOut)
        #expect(text(result.stdout) == "127.0.0.1: Reachable via WiFi [interface lo, loopback]\n")
    }

    // MARK: af ws, against the websockets library's server

    /// Runs af with a standard input that stays open, without a line, until af exits (then it is closed):
    /// for sessions the server ends, which the close af sends at the end of its input would race with.
    func afWithOpenInput(_ arguments: [String]) async throws -> (exitCode: Int32, stdout: String, stderr: String) {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable), "build af first: swift build --build-tests")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A hung session must not hang the suite: terminated after 30 s (the status then says so).
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(30)) { if process.isRunning { process.terminate() } }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, Data, Data), Never>) in
            Thread.detachNewThread {
                let stderr = errors.fileHandleForReading.readDataToEndOfFile()
                let stdout = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, stdout, stderr))
            }
        }
        try input.fileHandleForWriting.close()
        return (result.0, text(result.1), text(result.2))
    }

    @Test func wsEchoesEachLineOfStandardInputAndClosesAtItsEnd() async throws {
        let server = try await WebSocketServer.shared()
        let echo = server.url("/echo").absoluteString
        let echoed = try await af(["ws", echo], input: Data("hello\nworld\n".utf8))
        #expect(echoed.exitCode == 0)
        #expect(text(echoed.stdout) == "hello\nworld\n")
        #expect(echoed.stderr.isEmpty)

        // --json: lines must be JSON (the others are not sent, and af exits 65); text received is
        // printed as compact JSON with sorted keys.
        let json = try await af(["ws", echo, "--json"], input: Data("{\"b\": 1, \"a\": [true, null]}\nnot json\n\"x\"\n".utf8))
        #expect(json.exitCode == 65)
        #expect(text(json.stdout) == "{\"a\":[true,null],\"b\":1}\n\"x\"\n")
        #expect(text(json.stderr) == "af: line 2 is not valid JSON; not sent\n")

        // A subprotocol offered with --protocol, headers and query items with the handshake.
        let chat = try await af(["ws", server.url("/subprotocol").absoluteString, "--protocol", "chat.v1", "X-Demo:1", "q==2"],
                                input: Data("hi\n".utf8))
        #expect(chat.exitCode == 0)
        #expect(text(chat.stdout) == "hi\n")
    }

    @Test func wsBinaryRoundTripsHex() async throws {
        let server = try await WebSocketServer.shared()
        let echo = server.url("/echo").absoluteString
        // Upper case and blanks accepted; an empty line is an empty message; hex printed lower case.
        let echoed = try await af(["ws", echo, "--binary"], input: Data("00ff10\nDE AD be ef\n\n0102\n".utf8))
        #expect(echoed.exitCode == 0)
        #expect(text(echoed.stdout) == "00ff10\ndeadbeef\n\n0102\n")
        #expect(echoed.stderr.isEmpty)

        let refused = try await af(["ws", echo, "--binary"], input: Data("abc\nzz\n0a\n".utf8))
        #expect(refused.exitCode == 65)
        #expect(text(refused.stdout) == "0a\n")
        #expect(text(refused.stderr) == "af: line 1 is not hex (pairs of 0-9, a-f digits); not sent\n"
            + "af: line 2 is not hex (pairs of 0-9, a-f digits); not sent\n")

        // Binary messages the server sends (then closing with 1000): hex with --binary, summarized without.
        let count = server.url("/count").absoluteString + "?n=2&size=3"
        let hex = try await afWithOpenInput(["ws", count, "--binary"])
        #expect(hex.exitCode == 0)
        #expect(hex.stdout == "000102\n000102\n")
        #expect(hex.stderr.isEmpty)
        let summarized = try await afWithOpenInput(["ws", count])
        #expect(summarized.exitCode == 0)
        #expect(summarized.stdout == "<binary 3 bytes>\n<binary 3 bytes>\n")
    }

    @Test func wsServerCloseOtherThan1000Or1001ExitsNonZero() async throws {
        let server = try await WebSocketServer.shared()
        let closed = try await afWithOpenInput(["ws", server.url("/close").absoluteString + "?code=4000&reason=bye"])
        #expect(closed.exitCode == 3)
        #expect(closed.stdout.isEmpty)
        #expect(closed.stderr == "af: the server closed the connection with 4000 (bye)\n")

        let serverError = try await afWithOpenInput(["ws", server.url("/close").absoluteString + "?code=1011&reason=error"])
        #expect(serverError.exitCode == 3)
        #expect(serverError.stderr == "af: the server closed the connection with 1011 (error)\n")

        // 1000 and 1001 are a normal end: nothing printed, exit 0.
        for code in ["1000", "1001"] {
            let normal = try await afWithOpenInput(["ws", server.url("/close").absoluteString + "?code=\(code)&reason=done"])
            #expect(normal.exitCode == 0, "\(code)")
            #expect(normal.stdout.isEmpty && normal.stderr.isEmpty, "\(code)")
        }
    }

    @Test func wsGoesThroughTheEnvironmentsProxy() async throws {
        let servers = try await IntegrationServers.shared()
        let echo = try await WebSocketServer.shared().url("/echo").absoluteString
        func throughSOCKS(password: String) async throws -> CommandResult {
            let proxy = "socks5h://\(ProxyServers.username):\(password)@127.0.0.1:\(servers.proxies.socksPort)"
            return try await ExternalCommand.run(Self.executable, ["ws", echo], input: Data("via socks\n".utf8),
                                                 environment: ["all_proxy": proxy, "no_proxy": "", "NO_PROXY": ""],
                                                 timeout: .seconds(60))
        }
        let carried = try await throughSOCKS(password: ProxyServers.password)
        #expect(carried.exitCode == 0)
        #expect(text(carried.stdout) == "via socks\n")
        // The proxy is really in the way: with a wrong password it refuses, a transport failure.
        let refused = try await throughSOCKS(password: "wrong")
        #expect(refused.exitCode == 4)
        #expect(refused.stdout.isEmpty)
        #expect(text(refused.stderr).hasPrefix("af: "))
    }

    @Test func wsRefusedHandshakeAndUnreachableServer() async throws {
        let server = try await WebSocketServer.shared()
        let refused = try await af(["ws", server.url("/not-websocket").absoluteString], input: Data("hello\n".utf8))
        #expect(refused.exitCode == 3)
        #expect(refused.stdout.isEmpty)
        #expect(text(refused.stderr) == "af: the WebSocket handshake failed: The server answered with status 403, not 101.\n")

        let unreachable = try await af(["ws", "ws://127.0.0.1:9/"], input: Data("hello\n".utf8))
        #expect(unreachable.exitCode == 4)
        #expect(unreachable.stdout.isEmpty)
        #expect(text(unreachable.stderr) == "af: Could not connect to the server. (NSURLErrorDomain -1004)\n")

        // Usage errors: 64.
        #expect(try await af(["ws", "ftp://127.0.0.1/"]).exitCode == 64)
        #expect(try await af(["ws", server.url("/echo").absoluteString, "name=value"]).exitCode == 64)
        #expect(try await af(["ws", server.url("/echo").absoluteString, "--json", "--binary"]).exitCode == 64)
    }
}
