import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols
import LoopbackSupport

/// A responder that may answer but never does: the network answers its session's requests.
private struct DecliningResponder: LocalResponder {
    func mayAnswer(protocolClasses: [AnyClass]) -> Bool { true }
    func load(for request: URLRequest, protocolClasses: [AnyClass]) -> (any LocalLoad)? { nil }
}

/// An observer that keeps each attempt to read its request later (the test reads it on another thread).
private final class KeepingObserver: RequestObserver {
    let attempts = Protected<[ObservedAttempt]>([])

    func attemptWillStart(_ attempt: ObservedAttempt) -> (any AttemptObservation)? {
        attempts.withLock { $0.append(attempt) }
        return nil
    }
}

/// A lean call's task without a lock of its own (`SessionTask.isConfined`): which calls get one, and
/// that the one call from elsewhere, cancellation, is never lost whenever it comes. Run under the thread
/// sanitizer too (Scripts/test), which checks the task's handovers between the caller and the engine.
@Suite("Lean path: confined tasks")
struct ConfinedLeanTaskTests {
    private func perform(_ session: LeanSession, _ path: String, source: (any BodySource)? = nil,
                         download: Bool = false) async throws -> LeanSession.Outcome {
        var request = URLRequest(url: sharedServer.url(path))
        if source != nil { request.httpMethod = "POST" }
        return try await session.perform(request, source: source, download: download)
    }

    @Test func leanCallsRunConfinedUnlessALocalLoadMayAnswerThem() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let get = try await perform(manager.session, "/bytes/5")
        #expect(get.task.isConfined)
        #expect(get.data == LoopbackServer.pattern(5))
        #expect(get.task.state == .completed)
        let upload = try await perform(manager.session, "/echo", source: DataBodySource(Data("abc".utf8)))
        #expect(upload.task.isConfined)
        #expect(upload.data == Data("abc".utf8))
        let download = try await perform(manager.session, "/bytes/7", download: true)
        #expect(download.task.isConfined)
        let file = try #require(download.temporaryFile)
        #expect(try Data(contentsOf: file) == LoopbackServer.pattern(7))
        try FileManager.default.removeItem(at: file)

        // A responder that may answer shares the task with its load's threads: a lock, and the same answer.
        let shared = makeManager(plugins: SessionPlugins(localResponder: DecliningResponder()))
        defer { shared.invalidateSession(cancelingTasks: true) }
        let answered = try await perform(shared.session, "/bytes/5")
        #expect(!answered.task.isConfined)
        #expect(answered.data == LoopbackServer.pattern(5))
    }

    @Test func anObserverReadsAConfinedAttemptsRequestWithoutTheTask() async throws {
        let observer = KeepingObserver()
        let manager = makeManager(plugins: SessionPlugins(observer: observer))
        defer { manager.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: sharedServer.url("/bytes/3"))
        request.setValue("kept", forHTTPHeaderField: "X-Kept")
        let outcome = try await manager.session.perform(request, source: nil, download: false)
        #expect(outcome.task.isConfined)
        #expect(outcome.data == LoopbackServer.pattern(3))
        let attempts = observer.attempts.withLock { $0 }
        #expect(attempts.count == 1)
        // Read on another thread, after the call: the request as the attempt started.
        let read = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: attempts.first?.request) }
        }
        #expect(read?.method == "GET")
        #expect(read?.url == sharedServer.url("/bytes/3"))
        #expect(read?.headerFields.first { $0.name == "X-Kept" }?.value == "kept")
    }

    @Test func aConfinedTaskCancelledWhileItWaitsForItsHostEnds() async throws {
        // A server of its own: its connection count says when the first call holds the host's one connection.
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = makeManager { $0.httpMaximumConnectionsPerHost = 1 }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let holding = Task { try await manager.session.data(for: URLRequest(url: server.url("/stall"))) }
        #expect(await eventually { server.acceptedConnectionCount == 1 })
        let waiting = Task { try await manager.session.data(for: URLRequest(url: server.url("/bytes/1"))) }
        // Cancelled while it waits for the connection, or before it reached the engine: either way it ends.
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        // Ends while the host's one connection is still held: a lost cancel would wait for it and succeed.
        #expect(await cancelled(waiting))
        #expect(server.acceptedConnectionCount == 1)  // it never had a connection
        holding.cancel()
        #expect(await cancelled(holding))
    }

    @Test func aCancelRacingTheStartIsNeverLost() async throws {
        let manager = makeManager()
        let request = URLRequest(url: sharedServer.url("/stall"))
        // A lost cancel leaves its call waiting on a server that never answers: the watchdog ends it
        // (invalidating the session) and says so.
        let timedOut = Protected(false)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            timedOut.withLock { $0 = true }
            manager.invalidateSession(cancelingTasks: true)
        }
        var codes: [URLError.Code?] = []
        for round in 0..<1_000 {
            let call = Task { try await manager.session.data(for: request) }
            // Cancelled before the call starts, while it hands its task over, and once it runs.
            if round % 2 == 0 {
                for _ in 0..<(round % 16) { await Task.yield() }
            } else {
                try await Task.sleep(for: .microseconds(40 * (round % 16)))
            }
            call.cancel()
            codes.append(await code(call))
        }
        watchdog.cancel()
        manager.invalidateSession(cancelingTasks: true)
        #expect(!timedOut.withLock { $0 })
        #expect(codes == Array(repeating: URLError.Code.cancelled, count: 1_000))
    }

    private func code(_ task: Task<(Data, HTTPURLResponse), any Error>) async -> URLError.Code? {
        do {
            _ = try await task.value
            return nil
        } catch {
            return (error as? URLError)?.code
        }
    }

    private func cancelled(_ task: Task<(Data, HTTPURLResponse), any Error>) async -> Bool {
        await code(task) == .cancelled
    }
}
