// The generated client (Tests/OpenAPIClient) on OpenAPITransport against httpbin: query items and a JSON
// body, decoded into the spec's types.
import AFNetworking
import AFOpenAPI
import AFOpenAPITestClient
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIRuntime
import Testing

@Suite("OpenAPI: a generated client against httpbin")
struct OpenAPIHTTPBinTests {
    @Test func aGETWithQueryItemsAndAPOSTWithAJSONBody() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let client = Client(serverURL: servers.httpbin.baseURL, transport: OpenAPITransport(manager: manager))

        let got = try await client.getAnything(query: .init(q: "swift linux", page: 2)).ok.body.json
        #expect(got.method == "GET")
        #expect(got.args?.additionalProperties == ["q": "swift linux", "page": "2"])

        let posted = try await client.postAnything(body: .json(.init(name: "Ana", count: 3))).ok.body.json
        #expect(posted.method == "POST")
        #expect(posted.json == .init(name: "Ana", count: 3))
    }
}

@Suite("OpenAPI: a generated client against the fault server")
struct OpenAPIFaultServerTests {
    private func client(_ servers: IntegrationServers, limit: Int64? = nil) -> (Client, URLSessionManager) {
        let manager = coreManager()
        let transport = OpenAPITransport(manager: manager, configuration: .init(maximumBodySize: limit))
        return (Client(serverURL: servers.faultServer.baseURL, transport: transport), manager)
    }

    @Test func slowEventsAndJSONLinesDecodeAsTheyArrive() async throws {
        let servers = try await IntegrationServers.shared()
        let (client, manager) = client(servers)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let events = try await client.faultStream(query: .init(count: 3, interval: 0.05)).ok.body.text_event_hyphen_stream
        var ids: [String] = []
        for try await event in events.asDecodedServerSentEvents() { ids.append((event.id ?? "") + ":" + (event.data ?? "")) }
        #expect(ids == ["1:event 1", "2:event 2", "3:event 3"])

        let lines = try await client.faultStream(query: .init(count: 3, interval: 0.05, _type: "jsonl")).ok.body
            .application_x_hyphen_ndjson
        var ticks: [Int] = []
        for try await tick in lines.asDecodedJSONLines(of: Components.Schemas.Tick.self) { ticks.append(tick.n) }
        #expect(ticks == [1, 2, 3])
    }

    @Test func anEndlessStreamIsBoundedAndACutBodyFails() async throws {
        let servers = try await IntegrationServers.shared()
        let (client, manager) = client(servers, limit: 1 << 20)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let endless = try await client.faultStream(query: .init(flood: 1)).ok.body.text_event_hyphen_stream
        var bounded: URLError?
        do {
            for try await _ in endless {}
        } catch {
            bounded = error as? URLError
        }
        #expect(bounded?.code == .dataLengthExceedsMaximum)

        let cut = try await client.drop().ok.body.binary
        var received = 0
        var failure: (any Error)?
        do {
            for try await chunk in cut { received += chunk.count }
        } catch {
            failure = error
        }
        #expect(failure is URLError)
        #expect(received == 40_000)
    }
}
