// Server-sent events from the fault server: a real slow stream read event by event, a line that never
// ends stopped at the parser's bound with a typed error (no unbounded memory), a server that asks for
// reconnections without pause held to the reconnection floor and backoff, and a reader cancelled while
// the server holds the stream.
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

    @Test func aServerAskingForNoDelayIsReconnectedNoSoonerThanTheFloorAndBackedOff() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let key = UUID().uuidString
        let url = hostileURL(servers.faultServer.baseURL, "/hostile/sse-retry-zero", ["key": key])
        // Three connections, each bringing one event and closing at once: the reader stops after the
        // third event, so no fourth connection is made. Every connection counts as short however slow
        // the machine: with the default 5 s, a loaded run (the thread sanitizer's: 9 s from the first
        // reconnection to the server reading it) counted the second connection as stable, which rightly
        // ended the backoff, and the last wait was the floor's.
        var configuration = ServerSentEvents.Configuration()
        configuration.stableConnectionDuration = .seconds(3_600)
        var eventsRead = 0
        for try await _ in manager.session.events(for: URLRequest(url: url), configuration: configuration) {
            eventsRead += 1
            if eventsRead == 3 { break }
        }
        let seen = try await retryZeroConnections(key, servers, manager)
        #expect(eventsRead == 3)
        #expect(seen.connections == 3)
        // By the server's clock, each wait lasted at least its backoff's lower bound: 0.5 s (the floor,
        // though the server asked for 0), then 1 s (doubled after a short connection). A slow machine only
        // makes them longer; before the floor they were about 1 ms (1,226 connections in 2.5 s, 4,284 in
        // 5 s in issue 42).
        #expect(seen.gaps.count == 2)
        #expect(seen.gaps.indices.allSatisfy { seen.gaps[$0] >= 0.5 * Double(1 << $0) }, "gaps \(seen.gaps)")
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

/// The fault server's record of `/hostile/sse-retry-zero` for `key`: how many requests came, and the
/// seconds between each and the next.
private func retryZeroConnections(_ key: String, _ servers: IntegrationServers, _ manager: URLSessionManager)
    async throws -> (connections: Int, gaps: [Double]) {
    struct Record: Decodable {
        let connections: Int
        let gaps: [Double]
    }
    let (data, _) = try await manager.session.data(for: URLRequest(url: hostileURL(
        servers.faultServer.baseURL, "/hostile/sse-retry-zero-count", ["key": key])))
    let record = try JSONDecoder().decode(Record.self, from: data)
    return (record.connections, record.gaps)
}
