// Server-sent events from the fault server: a real slow stream read event by event, a line that never
// ends stopped at the parser's bound with a typed error (no unbounded memory), and a reader cancelled
// while the server holds the stream.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Server-sent events against the fault server")
struct ServerSentEventsHostileTests {
    @Test func aSlowStreamIsReadEventByEventAndAnEndlessLineIsBounded() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let slow = hostileURL(servers.faultServer.baseURL, "/hostile/event-stream", ["count": "3", "interval": "0.05"])
        var received: [ServerSentEvent] = []
        for try await event in manager.session.events(for: URLRequest(url: slow)) {
            received.append(event)
            if received.count == 3 { break }  // the server would be asked again after it closes
        }
        #expect(received == (1...3).map { ServerSentEvent(id: "\($0)", type: "tick", data: "event \($0)") })

        var configuration = ServerSentEvents.Configuration()
        configuration.limits.maximumLineLength = 1 << 20
        let flood = hostileURL(servers.faultServer.baseURL, "/hostile/event-stream", ["flood": "1"])
        await #expect(throws: ServerSentEventError.lineTooLong(limit: 1 << 20)) {
            for try await _ in manager.session.events(for: URLRequest(url: flood), configuration: configuration) {}
        }
    }

    @Test func cancellingTheReaderWhileTheServerHoldsTheStreamEndsTheSequenceQuietly() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let key = UUID().uuidString
        let url = hostileURL(servers.faultServer.baseURL, "/hostile/hold", ["key": key])
        let reader = Task { () async throws -> Int in
            var eventsRead = 0
            for try await _ in manager.session.events(for: URLRequest(url: url)) { eventsRead += 1 }
            return eventsRead
        }
        try await waitUntilHeld(key, servers)
        reader.cancel()
        let outcome = await reader.result
        _ = try await manager.session.data(for: URLRequest(url: hostileURL(
            servers.faultServer.baseURL, "/hostile/release", ["key": key])))
        // The loop ended without an error (it used to throw URLError(.cancelled)) and read nothing.
        #expect(try outcome.get() == 0)
    }
}
