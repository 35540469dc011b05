// AFMCP's Streamable HTTP transport against the official MCP Python SDK's server: initialization, tools,
// progress streamed before a result, a server request answered, the GET stream resumed, sessions ending,
// bearer tokens refreshed, bounds and cancellation.
#if MCP
import AFMCP
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("MCP clients on MCPHTTPTransport against the Python SDK's server", .timeLimit(.minutes(1)))
struct MCPTransportTests {
    static let toolNames = ["add", "announce", "ask_name", "blob", "cut_and_announce", "echo", "interrupted", "progress"]

    private func manager() -> URLSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 20
        return URLSessionManager(sessionConfiguration: configuration)
    }

    private func connect(_ path: String, _ server: MCPTestServer, manager: URLSessionManager? = nil,
                         configuration: MCPHTTPTransport.Configuration = .init(), client: Client = Client(name: "af-tests", version: "1.0"))
        async throws -> (Client, MCPHTTPTransport, Initialize.Result) {
        let transport = MCPHTTPTransport(endpoint: server.url(path), manager: manager ?? self.manager(), configuration: configuration)
        let result = try await client.connect(transport: transport)
        return (client, transport, result)
    }

    /// The transport's open request streams once they drain (at most 10 s). A call's answer reaches the
    /// client while its stream is still being read: the stream ends, and leaves the transport's table,
    /// only when the server closes it after the answer, so a count read right after the call can still be 1.
    private func drainedRequestStreams(_ transport: MCPHTTPTransport) async -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        var open = await transport.activeRequestStreams
        while open > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
            open = await transport.activeRequestStreams
        }
        return open
    }

    @Test func initializesListsAndCallsToolsOverEventStreamsAndEndsTheSessionWithADelete() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, result) = try await connect("/stateful/mcp", server)
        #expect(result.protocolVersion == "2025-11-25")
        #expect(result.serverInfo.name == "af-test-mcp")
        let session = try #require(await transport.sessionID)
        #expect(session.count == 32)
        #expect(await transport.protocolVersion == "2025-11-25")

        let (tools, cursor) = try await client.listTools()
        #expect(tools.map(\.name).sorted() == Self.toolNames)
        #expect(cursor == nil)
        let (content, isError) = try await client.callTool(name: "add", arguments: ["a": 2, "b": 3])
        #expect(content.map(\.text) == ["5"])
        #expect(isError != true)

        // The GET stream for what the server sends unasked, opened after initialization.
        let gets = try await server.awaitRequests(path: "/stateful/mcp", method: "GET", count: 1).filter { $0.session == session }
        #expect(gets.map(\.status) == [200])
        #expect(gets.first?.protocolVersion == "2025-11-25")
        #expect(await transport.serverStreamState == .open)

        await client.disconnect()
        #expect(await transport.sessionID == nil)
        let log = try await server.log(session: session)
        let posts = log.filter { $0.method == "POST" }
        #expect(posts.map(\.rpc) == ["notifications/initialized", "tools/list", "tools/call"])
        #expect(posts.map(\.status) == [202, 200, 200])
        #expect(posts.allSatisfy { $0.protocolVersion == "2025-11-25" })
        #expect(log.filter { $0.method == "DELETE" }.map(\.status) == [200])
        await #expect(throws: MCPTransportError.notConnected) { try await transport.send(Data("{}".utf8)) }
    }

    @Test func progressNotificationsReachTheClientBeforeTheServerSendsTheResult() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, _) = try await connect("/stateful/mcp", server)
        let progress = Collected<ProgressNotification.Parameters>()
        await client.onNotification(ProgressNotification.self) { progress.append($0.params) }
        let gate = "progress-\(UUID().uuidString)"
        let call: RequestContext<CallTool.Result> = try await client.callTool(
            name: "progress", arguments: ["steps": 3, "gate_name": .string(gate)], meta: Metadata(progressToken: .string("p-1")))

        // The tool now waits for the gate: the result cannot have been sent yet.
        #expect(await progress.waitFor(1))
        #expect(progress.values.first?.progress == 1)
        #expect(progress.values.first?.progressToken == .string("p-1"))
        #expect(await transport.activeRequestStreams == 1)
        try await server.control("/control/release?gate=\(gate)", post: true)

        let result = try await call.value
        #expect(result.content.map(\.text) == ["done after 3 steps"])
        #expect(progress.values.map(\.progress) == [1, 2, 3])
        #expect(progress.values.map(\.total) == [3, 3, 3])
        #expect(progress.values.map(\.message) == ["step 1", "step 2", "step 3"])
        #expect(await drainedRequestStreams(transport) == 0)
        await client.disconnect()
    }

    @Test func aServerRequestOnTheCallsStreamIsAnsweredByTheClient() async throws {
        let server = try await MCPTestServer.shared()
        let client = Client(name: "af-tests", version: "1.0", capabilities: .init(elicitation: .init(form: .init())))
        let asked = Collected<String>()
        await client.withElicitationHandler { parameters in
            if case .form(let form) = parameters { asked.append(form.message) }
            return CreateElicitation.Result(action: .accept, content: ["name": "Ada"])
        }
        let (_, transport, _) = try await connect("/stateful/mcp", server, client: client)
        let session = try #require(await transport.sessionID)
        let (content, _) = try await client.callTool(name: "ask_name")
        #expect(content.map(\.text) == ["hello Ada"])
        #expect(asked.values == ["What is your name?"])
        // The answer went back as a POST of its own, accepted with 202.
        let answers = try await server.log(session: session).filter { $0.rpc == "response" }
        #expect(answers.map(\.status) == [202])
        await client.disconnect()
    }

    @Test func aCutGetStreamIsResumedWithLastEventIDAndLosesNothing() async throws {
        let server = try await MCPTestServer.shared()
        var configuration = MCPHTTPTransport.Configuration()
        configuration.serverStream.minimumReconnectionDelay = .milliseconds(50)
        let (client, transport, _) = try await connect("/stateful/mcp", server, configuration: configuration)
        let session = try #require(await transport.sessionID)
        let logged = Collected<String>()
        await client.onNotification(LogMessageNotification.self) { message in
            if case .string(let text) = message.params.data { logged.append(text) }
        }
        // Other tests' sessions open GET streams too: wait for this session's.
        let deadline = ContinuousClock.now + .seconds(20)
        while try await server.log(session: session).filter({ $0.method == "GET" }).isEmpty, ContinuousClock.now < deadline {
            _ = try await server.awaitRequests(path: "/stateful/mcp", method: "GET", count: 1)
            try await Task.sleep(for: .milliseconds(5))
        }

        // The first message reaches the client on the GET stream; then the server closes that stream
        // and sends the second while the client is away.
        #expect(try await client.callTool(name: "announce", arguments: ["text": "one"]).content.map(\.text) == ["announced"])
        #expect(await logged.waitFor(1))
        #expect(try await client.callTool(name: "cut_and_announce", arguments: ["text": "two"]).content.map(\.text) == ["cut"])
        #expect(await logged.waitFor(2))
        #expect(logged.values == ["one", "two"])

        let gets = try await server.log(session: session).filter { $0.method == "GET" }
        #expect(gets.map(\.status) == [200, 200])
        #expect(gets.first?.lastEventID == nil)
        let one = try await server.events().first { $0.stream == "_GET_stream" && $0.message?.params?.data == "one" }
        #expect(gets.last?.lastEventID == one?.id)
        #expect(one?.id.count == 32)
        #expect(await transport.serverStreamState == .open)
        await client.disconnect()
    }

    /// The server closes a call's event stream before its answer (as a server that polls does): the
    /// transport resumes it with a GET carrying the stream's last event id, and the answer arrives.
    @Test func aCallsStreamClosedBeforeItsAnswerIsResumedWithLastEventID() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, _) = try await connect("/stateful/mcp", server)
        let session = try #require(await transport.sessionID)
        let (content, _) = try await client.callTool(name: "interrupted", arguments: ["text": "back"])
        #expect(content.map(\.text) == ["back"])
        let resumed = try await server.log(session: session).filter { $0.method == "GET" && $0.lastEventID != nil }
        #expect(resumed.map(\.status) == [200])
        let stored = try await server.events().map(\.id)
        #expect(stored.contains(try #require(resumed.first?.lastEventID)))
        #expect(await drainedRequestStreams(transport) == 0)
        await client.disconnect()
    }

    @Test func anAnswerThatIsNotStreamableHTTPIsATypedError() async throws {
        let server = try await MCPTestServer.shared()
        await #expect(throws: MCPTransportError.unexpectedStatus(404, body: "not found")) {
            _ = try await connect("/not-mcp", server)
        }
        await #expect(throws: MCPTransportError.unexpectedContentType("text/plain")) {
            _ = try await connect("/health", server)
        }
    }

    /// A message that is not JSON-RPC is handed on (the SDK's client logs and skips it); the answer after
    /// it still arrives.
    @Test func anEventThatIsNotJSONDoesNotStopTheAnswerAfterIt() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, result) = try await connect("/hostile/garbage-first", server)
        #expect(result.serverInfo.name == "hostile")
        #expect(await transport.sessionID == nil)
        await client.disconnect()
    }

    /// A stream that ends without the answer, and without an event id to resume from, fails the call.
    @Test func aStreamThatEndsWithoutItsAnswerIsATypedError() async throws {
        let server = try await MCPTestServer.shared()
        await #expect(throws: MCPTransportError.streamEndedWithoutResponse) {
            _ = try await connect("/hostile/no-answer", server)
        }
    }

    @Test func anExpiredSessionFailsTheCallWithATypedError() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, _) = try await connect("/stateful/mcp", server)
        let session = try #require(await transport.sessionID)
        #expect(try await server.control("/control/expire?session=\(session)", post: true) == "1")
        await #expect(throws: MCPTransportError.sessionExpired(sessionID: session)) {
            _ = try await client.callTool(name: "add", arguments: ["a": 1, "b": 1])
        }
        #expect(await transport.sessionID == nil)
        await client.disconnect()
    }

    /// A bearer token the server refuses (401) is refreshed by the session's `AuthenticationInterceptor`
    /// and the call sent again with the new one.
    @Test func aMCPBearerTokenIsRefreshedOn401ThroughTheSessionsInterceptor() async throws {
        let server = try await MCPTestServer.shared()
        let refreshes = Collected<String>()
        let manager = manager()
        manager.interceptor = AuthenticationInterceptor(authenticator: MCPBearerAuthenticator(refreshes: refreshes),
                                                        credential: MCPBearerToken(value: "stale-token"))
        let (client, transport, result) = try await connect("/bearer/mcp", server, manager: manager)
        #expect(result.serverInfo.name == "af-test-mcp")
        let (content, _) = try await client.callTool(name: "add", arguments: ["a": 3, "b": 4])
        #expect(content.map(\.text) == ["7"])
        #expect(refreshes.values == ["stale-token"])
        let session = try #require(await transport.sessionID)
        let log = try await server.log().filter { $0.path == "/bearer/mcp" && ($0.session == session || $0.rpc == "initialize") }
        #expect(log.filter { $0.authorization == "Bearer stale-token" }.map(\.status) == [401])
        #expect(log.filter { $0.status == 401 }.count == 1)
        #expect(log.filter { $0.method == "POST" && $0.status != 401 }.allSatisfy { $0.authorization == "Bearer fresh-token" })
        await client.disconnect()
    }

    @Test(arguments: ["/stateful/mcp", "/json/mcp"])
    func aMessagePastTheLimitIsATypedErrorAndTheClientGoesOn(path: String) async throws {
        let server = try await MCPTestServer.shared()
        var configuration = MCPHTTPTransport.Configuration()
        configuration.maximumMessageSize = 1024
        let (client, _, _) = try await connect(path, server, configuration: configuration)
        await #expect(throws: MCPTransportError.messageTooLarge(limit: 1024)) {
            _ = try await client.callTool(name: "blob", arguments: ["size": 4096])
        }
        let (content, _) = try await client.callTool(name: "blob", arguments: ["size": 100])
        #expect(content.map(\.text) == [String(repeating: "x", count: 100)])
        await client.disconnect()
    }

    @Test func cancellingARequestCancelsItsStream() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, _) = try await connect("/stateful/mcp", server)
        let session = try #require(await transport.sessionID)
        let progress = Collected<ProgressNotification.Parameters>()
        await client.onNotification(ProgressNotification.self) { progress.append($0.params) }
        let gate = "cancel-\(UUID().uuidString)"
        let call: RequestContext<CallTool.Result> = try await client.callTool(
            name: "progress", arguments: ["steps": 1, "gate_name": .string(gate)], meta: Metadata(progressToken: .string("c-1")))
        #expect(await progress.waitFor(1))
        #expect(await transport.activeRequestStreams == 1)
        try await client.cancelRequest(call.requestID, reason: "test")
        #expect(await transport.activeRequestStreams == 0)
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        let cancels = try await server.log(session: session).filter { $0.rpc == "notifications/cancelled" }
        #expect(cancels.map(\.status) == [202])
        // The client goes on.
        let (content, _) = try await client.callTool(name: "echo", arguments: ["text": "after"])
        #expect(content.map(\.text) == ["after"])
        try await server.control("/control/release?gate=\(gate)", post: true)
        await client.disconnect()
    }

    @Test func statelessJSONModeAnswersWithoutSessionOrServerStream() async throws {
        let server = try await MCPTestServer.shared()
        let (client, transport, result) = try await connect("/json/mcp", server)
        #expect(result.protocolVersion == "2025-11-25")
        #expect(await transport.sessionID == nil)
        let progress = Collected<ProgressNotification.Parameters>()
        await client.onNotification(ProgressNotification.self) { progress.append($0.params) }
        let (tools, _) = try await client.listTools()
        #expect(tools.map(\.name).sorted() == Self.toolNames)
        let (content, _) = try await client.callTool(name: "progress", arguments: ["steps": 3], meta: Metadata(progressToken: .string("j-1")))
        #expect(content.map(\.text) == ["done after 3 steps"])
        // A JSON answer carries only the result: the server drops the progress notifications.
        #expect(progress.values.isEmpty)
        // The server has no GET stream (405); the transport does not ask again.
        let refused = try await server.awaitRequests(path: "/json/mcp", method: "GET", count: 1)
        #expect(refused.first?.status == 405)
        let deadline = ContinuousClock.now + .seconds(10)
        while await transport.serverStreamState == .open, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(await transport.serverStreamState == .notOffered)
        await client.disconnect()
    }
}

/// The bearer token of the interceptor test.
struct MCPBearerToken: AuthenticationCredential {
    var value: String
    var requiresRefresh: Bool { false }
}

/// Refreshes any token to the one the server accepts, recording what it refreshed.
struct MCPBearerAuthenticator: Authenticator {
    let refreshes: Collected<String>

    func apply(_ token: MCPBearerToken, to request: inout URLRequest) {
        request.setValue("Bearer \(token.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ token: MCPBearerToken) async throws -> MCPBearerToken {
        refreshes.append(token.value)
        return MCPBearerToken(value: "fresh-token")
    }

    func isRequest(_ request: URLRequest, authenticatedWith token: MCPBearerToken) -> Bool {
        request.value(forHTTPHeaderField: "Authorization") == "Bearer \(token.value)"
    }
}
#endif
