// The README's code, run against the test harness's local servers: every snippet the README shows is
// here nearly verbatim (with the servers' URLs and paths), each marked `// README: "<its first words>"`,
// so the README never claims what was not run. The snippets of Docs/Capabilities.md (retries and
// authentication; logs, metrics and traces) and Docs/URLSession.md (client certificates) run here too.
#if MCP
import AFMCP
import MCP
#endif
import AFNetworking
import AFOpenAPI
import AFOpenAPITestClient
import AFTestHarness
import Foundation
import HTTPTypes
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Synchronization
import Tracing
import Testing

@Suite struct ReadmeExamplesTests {
    struct Slideshow: Decodable, Sendable {
        struct Show: Decodable, Sendable { let title: String; let author: String }
        let slideshow: Show
    }

    @Test func quickStart() async throws {
        let servers = try await IntegrationServers.shared()
        let baseURL = servers.httpbin.baseURL

        // README: "A GET, callback style"
        let manager = HTTPSessionManager(baseURL: baseURL)
        manager.completionQueue = DispatchQueue(label: "readme")   // README uses the default (main queue)
        let echoed: ParameterValue? = await withCheckedContinuation { continuation in
            manager.get("get", parameters: ["page": 2], headers: nil, progress: nil,
                        success: { _, object in continuation.resume(returning: object as? ParameterValue) },
                        failure: { _, _ in continuation.resume(returning: nil) })
        }
        #expect(echoed?["args"]?["page"] == "2")

        // README: "The same, async"
        let (response, object) = try await manager.get("get", parameters: ["page": 2])
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((object as? ParameterValue)?["args"] == ["page": "2"])

        // README: "Decodable"
        let show = try await manager.get("json", as: Slideshow.self)
        #expect(show.slideshow.title == "Sample Slide Show")

        // README: "URLSession's async API on the same engine"
        let (data, httpResponse) = try await manager.session.data(for: URLRequest(url: baseURL.appendingPathComponent("bytes/64")))
        #expect(data.count == 64 && httpResponse.statusCode == 200)
        let (body, head) = try await manager.session.bytes(for: URLRequest(url: baseURL.appendingPathComponent("stream/5")))
        var streamedLines = 0
        for try await chunk in body { streamedLines += chunk.filter { $0 == 0x0A }.count }
        #expect(head.statusCode == 200)
        #expect(streamedLines == 5)

        // README: "The same calls in swift-http-types' currency"
        let cookiesURL = baseURL.appendingPathComponent("response-headers")
            .appending(queryItems: [URLQueryItem(name: "Set-Cookie", value: "a=1"), URLQueryItem(name: "Set-Cookie", value: "b=2")])
        let (json, typed) = try await manager.session.data(for: HTTPRequest(method: .get, url: cookiesURL))
        #expect(typed.status == .ok && typed.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect((try JSONSerialization.jsonObject(with: json) as? [String: Any])?["Set-Cookie"] as? [String] == ["a=1", "b=2"])

        // README: "Multipart upload, streamed from disk"
        let fileURL = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(getpid()).txt")
        try Data("avatar bytes".utf8).write(to: fileURL)
        defer { try? FileManager.default.removeItem(at: fileURL) }
        let (_, uploaded) = try await manager.post("post", parameters: ["id": 1], constructingBodyWith: { form in
            try form.appendPart(withFileURL: fileURL, name: "avatar")
        })
        #expect((uploaded as? ParameterValue)?["files"]?["avatar"] == "avatar bytes")
        #expect((uploaded as? ParameterValue)?["form"]?["id"] == "1")
    }

    @Test func pinningRefusesAnHTTPBaseURLAndPinsOverHTTPS() async throws {
        let servers = try await IntegrationServers.shared()
        // README: "Certificate pinning"
        let pins = try SecurityPolicy.certificates(in: servers.certificates.directory)
        #expect(pins.contains(try Data(contentsOf: servers.certificates.leaf(.valid).der)))
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: pins)
        policy.trustStore = try TrustStore(contentsOf: servers.certificates.rootCA.pem)  // README: the system store by default

        let plain = HTTPSessionManager(baseURL: servers.httpbin.baseURL)
        #expect(throws: (any Error).self) { try plain.setSecurityPolicy(policy) }

        let secure = HTTPSessionManager(baseURL: servers.nginx.httpsURL("/", scenario: .valid))
        try secure.setSecurityPolicy(policy)
        secure.responseSerializer = HTTPResponseSerializer()
        let (_, body) = try await secure.get("files/1k.bin")
        #expect((body as? Data)?.count == 1024)
    }

    @Test func reachabilityOfLoopback() async throws {
        // README: "Reachability"
        let reachability = NetworkReachabilityManager(domain: "127.0.0.1")
        reachability.deliveryQueue = DispatchQueue(label: "readme.reachability")
        let first = AsyncStream<NetworkReachabilityStatus> { continuation in
            reachability.setReachabilityStatusChangeBlock { status in continuation.yield(status) }
        }
        reachability.startMonitoring()
        defer { reachability.stopMonitoring() }
        var iterator = first.makeAsyncIterator()
        #expect(await iterator.next() == .reachableViaWiFi)
    }

    @Test func imageLoading() async throws {
        let servers = try await IntegrationServers.shared()
        let avatarURL = servers.nginx.httpURL(servers.files.logoPNG.urlPath)
        // README: "Image loading" (a downloader of its own so other tests' cache entries do not interfere)
        let downloader = ImageDownloader(sessionManager: URLSessionManager(
            sessionConfiguration: ImageDownloader.defaultURLSessionConfiguration(), responseSerializer: ImageResponseSerializer()))
        let (image, response) = try await downloader.image(for: URLRequest(url: avatarURL))
        #expect(image.width == 850 && image.height == 300)
        #expect(response?.statusCode == 200)
        let (cached, cachedResponse) = try await downloader.image(for: URLRequest(url: avatarURL))
        #expect(cached == image)
        #expect(cachedResponse == nil)
    }

    @Test func webSocket() async throws {
        let server = try await WebSocketServer.shared()
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }

        // README: "WebSocket" (the harness's echo server, which picks chat.v2 when it is offered)
        let task = manager.webSocketTask(with: server.url("/subprotocol"), protocols: ["chat.v2"])
        task.resume()
        try await task.send(.string("hello"))
        var received: [WebSocketTask.Message] = []
        for try await message in task.messages {
            received.append(message)               // README prints it
            task.cancel(with: 1000, reason: nil)   // the echo server never closes: the client does
        }
        #expect(received == [.string("hello")])
        #expect(task.negotiatedProtocol == "chat.v2")
        #expect(task.closeCode == 1000)
    }

    @Test func serverSentEvents() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let feedURL = hostileURL(servers.faultServer.baseURL, "/hostile/event-stream", ["count": "3", "interval": "0.05"])

        // README: "Server-sent events"
        var printed: [String] = []
        for try await event in manager.session.events(for: URLRequest(url: feedURL)) {
            printed.append("\(event.id) \(event.type) \(event.data)")   // README prints them
            if printed.count == 3 { break }  // the server closes after three, and the stream would reconnect
        }
        #expect(printed == ["1 tick event 1", "2 tick event 2", "3 tick event 3"])
    }
}

/// README's OpenAPI snippet: the client swift-openapi-generator made from Tests/OpenAPIClient/openapi.yaml,
/// on OpenAPITransport, against httpbin.
@Suite struct ReadmeOpenAPIExamplesTests {
    /// The generated client (this file also imports the MCP Swift SDK's `Client` when the MCP trait is on).
    typealias Client = AFOpenAPITestClient.Client

    @Test func openAPIClient() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }

        // README: "import AFOpenAPI" (httpbin in place of api.example.com)
        let client = Client(serverURL: servers.httpbin.baseURL, transport: OpenAPITransport(manager: manager))
        let echo = try await client.getAnything(query: .init(q: "swift linux", page: 2)).ok.body.json
        #expect(echo.method == "GET")
        #expect(echo.args?.additionalProperties == ["q": "swift linux", "page": "2"])
    }
}

/// README's "Installation": the products and traits its manifest lines and trait table name are the
/// package's own, and the module table lists every library product.
@Suite struct ReadmeInstallationExamplesTests {
    @Test func installationNamesTheProductsAndTraitsThePackageDeclares() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let section = try #require(readme.range(of: "## Installation\n"))
        let end = try #require(readme.range(of: "\n## Quick start", range: section.upperBound..<readme.endIndex))
        let installation = String(readme[section.upperBound..<end.lowerBound])

        // README: ".product(name: "AFNetworking", package: "AFNetworking")" and the AFSecurity line
        let products = installation.matches(of: #/\.product\(name: "(\w+)", package: "AFNetworking"\)/#).map { String($0.output.1) }
        #expect(products == ["AFNetworking", "AFSecurity"])
        for product in products { #expect(manifest.contains(".library(name: \"\(product)\""), "\(product)") }

        // README: the trait table, and `traits: [.defaults, "MCP"]`
        #expect(installation.contains("| `Observability` | on |") && installation.contains("| `MCP` | off |"))
        #expect(installation.contains("`traits: [.defaults, \"MCP\"]`"))
        for trait in ["Observability", "MCP"] { #expect(manifest.contains(".trait(name: \"\(trait)\""), "\(trait)") }
        #expect(manifest.contains(".default(enabledTraits: [\"Observability\"])"))

        // README's module table: every library product has its row.
        let libraries = manifest.matches(of: #/\.library\(name: "(\w+)"/#).map { String($0.output.1) }
        #expect(libraries.contains("AFMCP") && libraries.contains("AFOpenAPI"))
        for library in libraries { #expect(readme.contains("\n| `\(library)`"), "\(library)") }
    }
}

/// Docs/Capabilities.md's "Retries and authentication", against the fault server's flaky endpoint and
/// httpbin's `/status` and `/bearer`.
@Suite struct ReadmeRetryExamplesTests {
    /// Records the waits instead of waiting.
    final class RecordingClock: RetryClock {
        private let recorded = Mutex<[Duration]>([])
        var delays: [Duration] { recorded.withLock { $0 } }
        func sleep(for delay: Duration) async throws { recorded.withLock { $0.append(delay) } }
    }

    struct Token: AuthenticationCredential {
        var value: String
        var expiry: Date
        var requiresRefresh: Bool { expiry < Date().addingTimeInterval(60) }
    }

    struct TokenAuthenticator: Authenticator {
        let signIn: @Sendable () async throws -> Token
        func apply(_ token: Token, to request: inout URLRequest) {
            request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
        }
        func refresh(_ token: Token) async throws -> Token { try await signIn() }
        func isRequest(_ request: URLRequest, authenticatedWith token: Token) -> Bool {
            request.value(forHTTPHeaderField: "Authorization") == "Bearer \(token.value)"
        }
    }

    @Test func retriesAndAuthentication() async throws {
        let servers = try await IntegrationServers.shared()
        let clock = RecordingClock()
        let manager = HTTPSessionManager(baseURL: servers.httpbin.baseURL)
        manager.completionQueue = DispatchQueue(label: "readme.retry")
        manager.updateSettings { $0.retryClock = clock }  // Docs/Capabilities.md waits in real time

        // Docs/Capabilities.md: "manager.interceptor = RetryPolicy()": a 503 is sent three times, then is the answer.
        manager.interceptor = RetryPolicy(randomUnit: { 0.5 })
        let marker = "m=" + UUID().uuidString
        await #expect(throws: (any Error).self) { _ = try await manager.get("status/503?" + marker) }
        #expect(await servers.loggedRequestCount(on: .httpbin, containing: marker, expecting: 3) == 3)
        #expect(clock.delays == [.milliseconds(500), .seconds(1)])

        // Docs/Capabilities.md: "data(for:interceptor: RetryPolicy(retryLimit: 3))": the fault server fails twice.
        let key = UUID().uuidString
        let flaky = hostileURL(servers.faultServer.baseURL, "/hostile/flaky", ["key": key, "failures": "2", "retry-after": "2"])
        let (data, response) = try await manager.session.data(for: URLRequest(url: flaky),
                                                              interceptor: RetryPolicy(retryLimit: 3, randomUnit: { 0.5 }))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "attempt 3")
        #expect(clock.delays.suffix(2) == [.seconds(2), .seconds(2)])  // Retry-After beats 0.5 s and 1 s

        // Docs/Capabilities.md: "A bearer token on every request": an expiring token is refreshed before sending.
        let signIns = Mutex(0)
        let authenticator = TokenAuthenticator(signIn: {
            signIns.withLock { $0 += 1 }
            return Token(value: "fresh", expiry: Date().addingTimeInterval(3600))
        })
        manager.interceptor = AuthenticationInterceptor(authenticator: authenticator,
                                                        credential: Token(value: "old", expiry: Date()))
        let (_, bearer) = try await manager.get("bearer")
        #expect((bearer as? ParameterValue)?["token"] == "fresh")
        #expect(signIns.withLock { $0 } == 1)
    }
}

/// Docs/Capabilities.md's "Logs, metrics and traces", against httpbin, with the packages' in-memory
/// backends.
@Suite struct ReadmeObservabilityExamplesTests {
    @Test func logsMetricsAndTraces() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = HTTPSessionManager(baseURL: servers.httpbin.baseURL)
        manager.completionQueue = DispatchQueue(label: "readme.observability")

        // Docs/Capabilities.md: "var logger = Logger(label: "api") ... manager.logger = logger"
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "api", factory: { _ in handler })  // Docs/Capabilities.md: the process's handler
        logger.logLevel = .debug
        manager.logger = logger

        // Docs/Capabilities.md: "manager.updateSettings { ... }"
        let metricsFactory = TestMetrics()
        let tracer = InMemoryTracer()
        manager.updateSettings { settings in
            settings.observability.metricsFactory = metricsFactory
            settings.observability.tracer = tracer
        }

        let (_, object) = try await manager.get("headers", parameters: ["token": "secret"])
        let sent = (object as? ParameterValue)?["headers"]
        let lines = handler.entries
        #expect(lines.map(\.message.description) == ["request", "response"])
        #expect(lines[0].metadata["url"] == "\(servers.httpbin.url("/headers").absoluteString)?token=…")
        #expect(lines[1].metadata["http.status"] == "200")
        #expect(metricsFactory.counterTotal(label: "af_http_client_requests_total",
                                            dimensions: [("method", "GET"), ("status_class", "2xx")]) == 1)
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "GET" })
        #expect(span.kind == .client)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(sent?["In-Memory-Span-Id"] == ParameterValue.string(span.spanID))
    }
}

// Docs/URLSession.md's "Client certificates (mutual TLS)": the per-challenge hook, against nginx's mutual-TLS port.
@Suite struct ReadmeClientCertificateExamplesTests {
    @Test func clientCertificateChosenPerChallenge() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = HTTPSessionManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        let files = servers.certificates

        // Docs/URLSession.md: "Client certificates (mutual TLS)"
        let identity = try ClientIdentity(pkcs12: Data(contentsOf: files.clientPKCS12), passphrase: files.clientPKCS12Passphrase)
        manager.hooks.clientCertificateChallengeHandler = { task, challenge in
            challenge.protectionSpace.host == "localhost" ? (.useCredential, identity) : (.performDefaultHandling, nil)
        }

        let (response, object) = try await manager.get(servers.nginx.mutualTLSURL("/whoami").absoluteString)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((object as? Data).map { String(decoding: $0, as: UTF8.self) } == "CN=AFNetworking Test Client\n")
        // Through 127.0.0.1 the hook answers with the session's identity, which is none: nginx refuses.
        do {
            _ = try await manager.get(servers.nginx.mutualTLSURL("/whoami", host: "127.0.0.1").absoluteString)
            Issue.record("nginx accepted a request without a client certificate")
        } catch {
            let response = (error as NSError).userInfo[NetworkingOperationFailingURLResponseErrorKey] as? HTTPURLResponse
            #expect(response?.statusCode == 400)
        }
    }
}

/// README's `af` block, each line run as written: the variables become the local servers' URLs (as
/// `af-test-servers` exports them) and the file names the harness's files.
@Suite struct ReadmeAFExamplesTests {
    /// A line's words, as a POSIX shell splits them for these lines (single quotes; a word starting
    /// with `#` begins the comment).
    static func words(_ line: Substring) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        for character in line {
            if quoted {
                if character == "'" { quoted = false } else { current.append(character) }
            } else if character == "'" {
                quoted = true
                inWord = true
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                if !inWord && character == "#" { break }
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test func afLines() async throws {
        let servers = try await IntegrationServers.shared()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## The `af` tool"))
        let open = try #require(readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
        let lines = readme[open.upperBound..<close.lowerBound].split(separator: "\n")
        #expect(lines.count == 13)

        let work = FileManager.default.temporaryDirectory.appendingPathComponent("af-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try Data("notes\n".utf8).write(to: work.appendingPathComponent("notes.txt"))
        let variables = [
            "$HTTPBIN_URL": servers.httpbin.baseURL.absoluteString,
            "$NGINX_HTTP_URL": servers.nginx.httpBaseURL.absoluteString,
            "$HTTPS_URL": "https://localhost:\(servers.nginx.httpsPort(.valid))",
            "$MUTUAL_TLS_URL": "https://localhost:\(servers.nginx.mutualTLSPort)",
        ]
        let files = [
            "ca.pem": servers.certificates.rootCA.pem.path,
            "leaf.pem": servers.certificates.leaf(.valid).pem.path,
            "client.p12": servers.certificates.clientPKCS12.path,
            "secret": servers.certificates.clientPKCS12Passphrase,
            "big.bin": work.appendingPathComponent("big.bin").path,
            "cache-dir": work.appendingPathComponent("cache-dir").path,
            "doc@notes.txt": "doc@" + work.appendingPathComponent("notes.txt").path,
        ]
        for line in lines {
            var arguments = Self.words(line)
            try #require(arguments.first == "af", "\(line)")
            arguments.removeFirst()
            arguments = arguments.map { word in
                if let file = files[word] { return file }
                var word = word
                for (name, value) in variables { word = word.replacingOccurrences(of: name, with: value) }
                return word
            }
            let result = try await ExternalCommand.run(AFToolTests.executable, arguments, timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(line)\n\(String(decoding: result.stderr, as: UTF8.self))")
            #expect(!result.stdout.isEmpty || arguments.contains("--download"), "\(line)")
        }
    }
}

#if MCP
/// README's MCP snippet ("import AFMCP"), against the official MCP Python SDK's server (its event-stream
/// endpoint).
extension ReadmeExamplesTests {
    /// The MCP Swift SDK's client (this file also imports the generated OpenAPI client's `Client`).
    typealias Client = MCP.Client

    @Test func mcpClients() async throws {
        let server = try await MCPServer.shared()
        let manager = URLSessionManager(sessionConfiguration: .ephemeral)
        let reported = Collected<Double>()

        let client = Client(name: "agent", version: "1.0")
        await client.onNotification(ProgressNotification.self) { message in
            reported.append(message.params.progress)   // README prints it
        }
        let transport = MCPHTTPTransport(endpoint: server.url("/stateful/mcp"), manager: manager)
        try await client.connect(transport: transport)
        let (tools, _) = try await client.listTools()
        let (content, _) = try await client.callTool(name: "progress", arguments: ["steps": 3],
                                                     meta: Metadata(progressToken: .string("call-1")))
        #expect(tools.count == MCPTransportTests.toolNames.count)
        #expect(content.map(\.text) == ["done after 3 steps"])
        #expect(reported.values == [1, 2, 3])
        #expect(await transport.sessionID != nil)
        await client.disconnect()   // a DELETE ends the session on the server
        #expect(await transport.sessionID == nil)
    }
}
#endif
