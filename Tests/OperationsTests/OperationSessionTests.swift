import AFCore
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackSupport
import Testing
@testable import AFOperations

/// A trust policy told apart by its name (plain HTTP never consults it; only the session choice does).
private struct NamedPolicy: ServerTrustEvaluating, Hashable {
    let name: String
    func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool { true }
}

@Suite("Operations share their manager's session")
struct OperationSessionTests {
    private func manager(_ server: LoopbackServer) -> HTTPRequestOperationManager {
        let manager = HTTPRequestOperationManager(baseURL: server.url("/"), requestSerializer: FormURLEncodingRequestSerializer(),
                                                  responseSerializer: HTTPResponseSerializer())
        manager.completionQueue = DispatchQueue(label: "operation.session.tests")
        manager.operationQueue.maxConcurrentOperationCount = 1
        return manager
    }

    /// Runs `operation` to its end and returns its body.
    private func run(_ operation: HTTPRequestOperation) async -> Data? {
        operation.completionQueue = DispatchQueue(label: "operation.session.tests.one")
        let result = await outcome(of: operation) { operation.start() }
        return result.object as? Data
    }

    @Test func operationsFromOneManagerReuseOneConnection() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let source = manager(server)
        for count in [10, 20, 30, 40, 50] {
            let operation = source.httpRequestOperation(with: URLRequest(url: server.url("/bytes/\(count)")),
                                                        success: nil, failure: nil)
            #expect(await run(operation) == LoopbackServer.pattern(count))
        }
        #expect(server.acceptedConnectionCount == 1)

        // Operations made on their own each run a session of their own, as before.
        for _ in 0..<3 {
            let alone = HTTPRequestOperation(request: URLRequest(url: server.url("/bytes/5")), sessionConfiguration: .ephemeral)
            #expect(await run(alone) == LoopbackServer.pattern(5))
        }
        #expect(server.acceptedConnectionCount == 4)
    }

    @Test func theManagersQueueRunsItsVerbsOnTheSharedSession() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let source = manager(server)
        let bodies = Protected<[Int: Data]>([:])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let group = DispatchGroup()
            for count in 1...6 {
                group.enter()
                source.get("bytes/\(count)", success: { _, object in
                    bodies.withLock { $0[count] = object as? Data }
                    group.leave()
                }, failure: { _, _ in group.leave() })
            }
            group.notify(queue: .global()) { done.resume() }
        }
        #expect(bodies.withLock { $0 } == Dictionary(uniqueKeysWithValues: (1...6).map { ($0, LoopbackServer.pattern($0)) }))
        #expect(server.acceptedConnectionCount == 1)
    }

    @Test func anOperationWhoseTermsDifferRunsOnItsOwnSession() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let source = manager(server)
        source.securityPolicy = NamedPolicy(name: "manager")
        func made() -> HTTPRequestOperation {
            source.httpRequestOperation(with: URLRequest(url: server.url("/bytes/8")), success: nil, failure: nil)
        }
        #expect(await run(made()) == LoopbackServer.pattern(8))
        #expect(server.acceptedConnectionCount == 1)

        // Another trust policy must never ride on connections the manager's policy admitted.
        let otherPolicy = made()
        otherPolicy.securityPolicy = NamedPolicy(name: "other")
        #expect(await run(otherPolicy) == LoopbackServer.pattern(8))
        #expect(server.acceptedConnectionCount == 2)

        let noStorage = made()
        noStorage.shouldUseCredentialStorage = false
        #expect(await run(noStorage) == LoopbackServer.pattern(8))
        #expect(server.acceptedConnectionCount == 3)

        // An equal policy (compared by value) shares again.
        let equalPolicy = made()
        equalPolicy.securityPolicy = NamedPolicy(name: "manager")
        #expect(await run(equalPolicy) == LoopbackServer.pattern(8))
        #expect(server.acceptedConnectionCount == 3)

        // New manager settings: later operations get a new shared session.
        source.shouldUseCredentialStorage = false
        #expect(await run(made()) == LoopbackServer.pattern(8))
        #expect(await run(made()) == LoopbackServer.pattern(8))
        #expect(server.acceptedConnectionCount == 4)
    }
}

/// Counts the moves an operation announces.
private final class AnnouncingOperation: HTTPRequestOperation, @unchecked Sendable {
    // @unchecked Sendable: restated from HTTPRequestOperation; the counts are behind their own lock.
    let announced = Protected<[String: Int]>([:])

    override func announceMove(from previous: RequestOperationState, to next: RequestOperationState) {
        announced.withLock { $0["\(previous)->\(next)", default: 0] += 1 }
        super.announceMove(from: previous, to: next)
    }
}

@Suite("Operation state changes are announced only when they happen")
struct OperationAnnouncementTests {
    @Test func racingResumesAnnounceOneMove() {
        for _ in 0..<200 {
            let operation = AnnouncingOperation(request: URLRequest(url: sharedServer.url("/bytes/1")))
            operation.pause()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in operation.resume() }
            #expect(operation.state == .ready)
            // ready -> paused, then one paused -> ready, however many resumes raced.
            #expect(operation.announced.withLock { $0 } == ["ready->paused": 1, "paused->ready": 1])
        }
    }

    @Test func refusedMovesAnnounceNothing() async {
        let operation = AnnouncingOperation(request: URLRequest(url: sharedServer.url("/bytes/3")))
        operation.completionQueue = DispatchQueue(label: "operation.announcements")
        operation.resume()  // not paused: refused
        _ = await outcome(of: operation) { operation.start() }
        #expect(await eventually { operation.isFinished })
        operation.pause()   // finished: refused
        operation.resume()
        operation.start()
        #expect(operation.announced.withLock { $0 } == ["ready->executing": 1, "executing->finished": 1])
    }
}
