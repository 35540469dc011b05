import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

/// Streams held open by the server, more than one multi handle takes (``SessionEngine/transfersPerMulti``):
/// spread over the engine's multi handles, driven by one loop, each delivering its events in order.
@Suite("Engine: held streams over several multi handles")
struct HeldStreamsTests {
    @Test func heldStreamsSpreadOverMultiHandlesAndDeliverInOrder() async throws {
        let count = 200
        let gate = "held-\(UUID())"
        let manager = makeManager { $0.httpMaximumConnectionsPerHost = count }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let request = URLRequest(url: sharedServer.url("/events-gated/\(gate)"))
        var streams: [(body: LeanResponseBody.AsyncIterator, received: Data)] = []
        for _ in 0..<count {
            let (body, response) = try await manager.session.bytes(for: request)
            #expect(response.statusCode == 200)
            var iterator = body.makeAsyncIterator()
            var received = Data()
            while received.count < 13, let chunk = try await iterator.next() { received.append(chunk) }
            streams.append((iterator, received))
        }
        #expect(streams.allSatisfy { $0.received == Data("data: first\n\n".utf8) })
        let engine = try #require(manager.currentEngine)
        // 200 held at once: a full multi handle of 128 and a second one.
        #expect(SessionEngine.transfersPerMulti == 128)
        #expect(engine.multiHandleCount.load(ordering: .relaxed) == 2)

        sharedServer.gates.open(gate)
        for index in streams.indices {
            while let chunk = try await streams[index].body.next() { streams[index].received.append(chunk) }
        }
        #expect(streams.allSatisfy { $0.received == Data("data: first\n\ndata: second\n\n".utf8) })
        #expect(sharedServer.gates.openedInTime(gate) == true)
    }
}
