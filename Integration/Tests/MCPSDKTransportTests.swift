// The MCP Swift SDK's own HTTPClientTransport on Linux, against the same server in the same run: what it
// does not receive that MCPHTTPTransport does.
#if MCP
import AFMCP
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("The SDK's HTTPClientTransport on Linux, beside MCPHTTPTransport", .timeLimit(.minutes(1)))
struct MCPSDKTransportTests {
    /// The server's default mode answers a POST with an event stream: on Linux the SDK's transport hands
    /// the whole stream to the client as one message, which is not JSON-RPC, so `initialize` never gets
    /// its answer (the SDK's client waits for it without a bound). Ours reads the same answer as events.
    @Test func theSDKTransportHandsAnEventStreamAnswerOverAsOneUndecodableMessage() async throws {
        let server = try await MCPTestServer.shared()
        let initialize = try JSONEncoder().encode(Initialize.request(.init(
            protocolVersion: Version.latest, capabilities: .init(), clientInfo: .init(name: "sdk", version: "1.0"))))

        let sdk = HTTPClientTransport(endpoint: server.url("/stateful/mcp"), streaming: true)
        try await sdk.connect()
        try await sdk.send(initialize)
        var sdkMessages = await sdk.receive().makeAsyncIterator()
        let sdkFirst = try #require(try await sdkMessages.next())
        let sdkText = String(decoding: sdkFirst, as: UTF8.self)
        #expect(sdkText.hasPrefix("id: "))
        #expect(sdkText.contains("event: message\r\ndata: {") || sdkText.contains("event: message\ndata: {"))
        #expect((try? JSONSerialization.jsonObject(with: sdkFirst)) == nil)
        await sdk.disconnect()

        let ours = MCPHTTPTransport(endpoint: server.url("/stateful/mcp"))
        try await ours.connect()
        try await ours.send(initialize)
        var ourMessages = ours.receive().makeAsyncIterator()
        let ourFirst = try #require(try await ourMessages.next())
        let decoded = try JSONDecoder().decode(Response<Initialize>.self, from: ourFirst)
        #expect(try decoded.result.get().protocolVersion == "2025-11-25")
        await ours.disconnect()
    }

    /// In JSON mode the SDK's transport works, but the server can send nothing before the result: 0 of 3
    /// progress notifications arrive, where MCPHTTPTransport on the event-stream endpoint gets all 3.
    @Test func inJSONModeTheSDKTransportGetsNoProgressWhereOursGetsAll() async throws {
        let server = try await MCPTestServer.shared()
        let sdkClient = Client(name: "sdk", version: "1.0")
        let sdkProgress = Collected<Double>()
        await sdkClient.onNotification(ProgressNotification.self) { sdkProgress.append($0.params.progress) }
        let sdkResult = try await sdkClient.connect(transport: HTTPClientTransport(endpoint: server.url("/json/mcp"), streaming: false))
        #expect(sdkResult.protocolVersion == "2025-11-25")
        #expect(try await sdkClient.listTools().tools.count == MCPTransportTests.toolNames.count)
        let (sdkContent, _) = try await sdkClient.callTool(name: "progress", arguments: ["steps": 3],
                                                           meta: Metadata(progressToken: .string("sdk")))
        #expect(sdkContent.map(\.text) == ["done after 3 steps"])
        #expect(sdkProgress.values.isEmpty)
        await sdkClient.disconnect()

        let ourClient = Client(name: "ours", version: "1.0")
        let ourProgress = Collected<Double>()
        await ourClient.onNotification(ProgressNotification.self) { ourProgress.append($0.params.progress) }
        try await ourClient.connect(transport: MCPHTTPTransport(endpoint: server.url("/stateful/mcp")))
        let (ourContent, _) = try await ourClient.callTool(name: "progress", arguments: ["steps": 3],
                                                           meta: Metadata(progressToken: .string("ours")))
        #expect(ourContent.map(\.text) == ["done after 3 steps"])
        #expect(ourProgress.values == [1, 2, 3])
        await ourClient.disconnect()
    }
}
#endif
