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
        // The idle timeout well past the wait below: a stream that got its first event early is not timed
        // out while the others open on a loaded machine.
        let manager = makeManager {
            $0.httpMaximumConnectionsPerHost = count
            $0.timeoutIntervalForRequest = 600
        }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let session = manager.session
        let request = URLRequest(url: sharedServer.url("/events-gated/\(gate)"))
        let firstEvents = Protected(0)
        try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<count {
                group.addTask {
                    // Opened at once (one after another took over the server's 30 s hold under the
                    // thread sanitizer): each reads its first event, then the rest once the gate opens.
                    let (body, response) = try await session.bytes(for: request)
                    var received = Data()
                    guard response.statusCode == 200 else { return received }
                    var iterator = body.makeAsyncIterator()
                    while received.count < 13, let chunk = try await iterator.next() { received.append(chunk) }
                    if received == Data("data: first\n\n".utf8) { firstEvents.withLock { $0 += 1 } }
                    while let chunk = try await iterator.next() { received.append(chunk) }
                    return received
                }
            }
            #expect(await eventually(60) { firstEvents.withLock { $0 } == count })
            let engine = try #require(manager.currentEngine)
            // 200 held at once: a full multi handle of 128 and a second one.
            #expect(SessionEngine.transfersPerMulti == 128)
            #expect(engine.multiHandleCount.load(ordering: .relaxed) == 2)
            sharedServer.gates.open(gate)
            var bodies: [Data] = []
            for try await body in group { bodies.append(body) }
            #expect(bodies == Array(repeating: Data("data: first\n\ndata: second\n\n".utf8), count: count))
        }
        #expect(sharedServer.gates.openedInTime(gate) == true)
    }
}
