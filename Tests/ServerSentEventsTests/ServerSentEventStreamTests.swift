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
        var configuration = ServerSentEvents.Configuration()
        configuration.minimumReconnectionDelay = .milliseconds(1)  // retry: 10, backed off: 10-80 ms waits
        var received: [ServerSentEvent] = []
        for try await event in manager.session.events(for: URLRequest(url: sharedServer.url("/events/5")),
                                                      configuration: configuration) {
            received.append(event)
        }
        // The server's `retry: 10` comes in a block of its own: it sets the delay, no event carries it.
        #expect(received == (1...5).map { ServerSentEvent(id: "\($0)", type: "tick", data: "event \($0)\nline 2") })
        // Three connections of events (two, two, one), then the one answered 204.
        #expect(sharedServer.acceptedConnectionCount - before >= 4)
    }

    @Test func reconnectionsWaitForTheFloorAndBackOffWhileConnectionsEndQuickly() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        var configuration = ServerSentEvents.Configuration()
        configuration.minimumReconnectionDelay = .milliseconds(50)
        let started = ContinuousClock.now
        var received = 0
        for try await _ in manager.session.events(for: URLRequest(url: sharedServer.url("/events/5")),
                                                  configuration: configuration) {
            received += 1
        }
        let elapsed = ContinuousClock.now - started
        #expect(received == 5)
        // The server asks for retry: 10 and closes each connection at once: three reconnections, the
        // floor raising 10 ms to 50 ms and each short connection doubling the range, so at least
        // 50 + 100 + 200 ms (at most 100 + 200 + 400 ms of waiting); 30 ms without the floor.
        #expect(elapsed >= .milliseconds(350))
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
        configuration.minimumReconnectionDelay = .milliseconds(5)
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

    /// Where the stream is when the task reading it is cancelled.
    enum CancelledWhile: String, CaseIterable, Sendable {
        /// The server accepted the request and never answers it (`/stall`).
        case connecting
        /// The server sent one event and holds the rest back (`/events-gated/<name>`).
        case reading
        /// The server closed without an event; the reconnection waits 60 s (`/events-empty/<name>`).
        case waitingToReconnect
    }

    @Test(arguments: CancelledWhile.allCases)
    func cancellingTheReadingTaskEndsTheLoopWithoutAnError(while phase: CancelledWhile) async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let name = UUID().uuidString
        let path = switch phase {
        case .connecting: "/stall"
        case .reading: "/events-gated/\(name)"
        case .waitingToReconnect: "/events-empty/\(name)"
        }
        var configuration = ServerSentEvents.Configuration()
        configuration.reconnectionDelay = .seconds(60)
        let (firstEvent, firstEventArrived) = AsyncStream<Void>.makeStream()
        let reader = Task { () async throws -> [String] in
            defer { firstEventArrived.finish() }  // a reader that fails first does not leave the test waiting
            var received: [String] = []
            for try await event in manager.session.events(for: URLRequest(url: sharedServer.url(path)),
                                                          configuration: configuration) {
                received.append(event.data)
                firstEventArrived.yield()
            }
            return received
        }
        switch phase {
        case .connecting:
            // Connecting whenever the cancellation comes: the server never answers.
            try await Task.sleep(for: .milliseconds(100))
        case .reading:
            for await _ in firstEvent { break }
        case .waitingToReconnect:
            let deadline = ContinuousClock.now + .seconds(10)
            while sharedServer.gates.requestCount(name) == 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            // The close follows the comment at once; the wait for the reconnection is 60 s.
            try await Task.sleep(for: .milliseconds(100))
        }
        reader.cancel()
        let outcome = await reader.result
        sharedServer.gates.open(name)  // lets the gated route's thread go
        // No URLError(.cancelled), no CancellationError: the loop ended, with what it had read.
        #expect(try outcome.get() == (phase == .reading ? ["first"] : []))
        #expect(sharedServer.gates.requestCount(name) == (phase == .waitingToReconnect ? 1 : 0))
    }
}
