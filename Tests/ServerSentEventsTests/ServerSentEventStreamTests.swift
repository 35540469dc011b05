import AFCore
import AFServerSentEvents
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackSupport
import Testing

@Suite("Server-sent events: events(for:) against a local server")
struct ServerSentEventStreamTests {
    private func manager() -> URLSessionManager {
        URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer())
    }

    @Test func reconnectsWithTheLastEventIDUntilA204() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let before = sharedServer.acceptedConnectionCount
        var received: [ServerSentEvent] = []
        for try await event in manager.session.events(for: URLRequest(url: sharedServer.url("/events/5"))) {
            received.append(event)
        }
        // The server's `retry: 10` comes in a block of its own: it sets the delay, no event carries it.
        #expect(received == (1...5).map { ServerSentEvent(id: "\($0)", type: "tick", data: "event \($0)\nline 2") })
        // Three connections of events (two, two, one), then the one answered 204.
        #expect(sharedServer.acceptedConnectionCount - before >= 4)
    }

    @Test func eventsArriveWhileTheServerHoldsTheRestBack() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let gate = UUID().uuidString
        var received: [String] = []
        for try await event in manager.session.events(for: URLRequest(url: sharedServer.url("/events-gated/\(gate)"))) {
            received.append(event.data)
            if received.count == 1 { sharedServer.gates.open(gate) }
            if received.count == 2 { break }
        }
        #expect(received == ["first", "second"])
        #expect(sharedServer.gates.openedInTime(gate) == true)
    }

    @Test func aWrongContentTypeOrStatusIsATypedError() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        await #expect(throws: ServerSentEventError.unexpectedContentType("text/plain")) {
            for try await _ in manager.session.events(for: URLRequest(url: sharedServer.url("/events-wrong-type"))) {}
        }
        await #expect(throws: ServerSentEventError.unexpectedStatus(500)) {
            for try await _ in manager.session.events(for: URLRequest(url: sharedServer.url("/status/500"))) {}
        }
    }

    @Test func aServerThatKeepsClosingWithoutAnEventIsGivenUp() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        var configuration = ServerSentEvents.Configuration()
        configuration.reconnectionDelay = .milliseconds(5)
        configuration.maximumReconnections = 3
        let name = UUID().uuidString
        await #expect(throws: ServerSentEventError.reconnectionsExhausted(3)) {
            for try await _ in manager.session.events(for: URLRequest(url: sharedServer.url("/events-empty/\(name)")),
                                                      configuration: configuration) {}
        }
        // The first request and three reconnections; no more.
        #expect(sharedServer.gates.requestCount(name) == 4)
    }

    @Test func aServerThatIsGoneEndsTheStreamWithItsError() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let url = URL(string: "http://127.0.0.1:\(closedPort())/events")!
        await #expect(throws: URLError.self) {
            for try await _ in manager.session.events(for: URLRequest(url: url)) {}
        }
    }
}
