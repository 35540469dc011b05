import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import AFCore
import AFProtocols

/// Counts task notifications about lean tasks (there must be none).
private final class LeanNotificationCounter: @unchecked Sendable {
    // @unchecked Sendable: the count is Mutex-guarded; the tokens are written in init and read in stop().
    private final class Count: Sendable { let value = Mutex(0) }
    private let counted = Count()
    private var tokens: [NSObjectProtocol] = []

    init() {
        let counted = self.counted
        for name in [Notification.Name.networkingTaskDidResume, .networkingTaskDidSuspend, .networkingTaskDidComplete] {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                if (note.object as? SessionTask)?.leanDelivery != nil { counted.value.withLock { $0 += 1 } }
            })
        }
    }

    var count: Int { counted.value.withLock { $0 } }

    func stop() { for token in tokens { NotificationCenter.default.removeObserver(token) } }
}

@Suite("Lean path: URLSession's async API on the engine")
struct LeanSessionTests {
    @Test func dataReturnsTheBodyAndTheResponse() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let notifications = LeanNotificationCounter()
        defer { notifications.stop() }
        let (data, response) = try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/300")))
        #expect(data == LoopbackServer.pattern(300))
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
        // A 404 is a response, as on URLSession.
        let (_, missing) = try await manager.session.data(for: URLRequest(url: sharedServer.url("/status/404")))
        #expect(missing.statusCode == 404)
        #expect(manager.tasks.isEmpty)
        #expect(notifications.count == 0)
    }

    @Test func uploadsSendTheBody() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let body = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let (echoed, response) = try await manager.session.upload(for: URLRequest(url: sharedServer.url("/echo")), from: body)
        #expect(echoed == body)
        #expect(response.value(forHTTPHeaderField: "X-Method") == "POST")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lean-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var put = URLRequest(url: sharedServer.url("/echo"))
        put.httpMethod = "PUT"
        let (fromFile, putResponse) = try await manager.session.upload(for: put, fromFile: file)
        #expect(fromFile == body)
        #expect(putResponse.value(forHTTPHeaderField: "X-Method") == "PUT")
    }

    @Test func downloadLeavesTheFileToTheCaller() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (file, response) = try await manager.session.download(for: URLRequest(url: sharedServer.url("/bytes/5000")))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(response.statusCode == 200)
        #expect(file.deletingLastPathComponent().path == URLSessionManager.downloadDirectory.path)
        #expect(try Data(contentsOf: file) == LoopbackServer.pattern(5000))
    }

    @Test func cancellingTheSwiftTaskCancelsTheTransfer() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let work = Task { try await manager.session.data(for: URLRequest(url: sharedServer.url("/stall"))) }
        try await Task.sleep(for: .milliseconds(100))
        work.cancel()
        #expect(await failure(of: { try await work.value }) == .cancelled)
        // Cancelled before it started: the same error, no transfer.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/1")))
        }
        #expect(await failure(of: { try await early.value }) == .cancelled)
    }

    @Test func boundsAndRequestChecksApply() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.transferLimits = TransferLimits(maximumBodySize: 100)
        #expect(await failure(of: {
            try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/300")))
        }) == .dataLengthExceedsMaximum)
        var forged = URLRequest(url: sharedServer.url("/bytes/1"))
        forged.allHTTPHeaderFields = ["X-A": "1\r\nX-B: 2"]
        await #expect(throws: InvalidRequestError(.invalidHeaderValue(name: "X-A"), url: forged.url)) {
            try await manager.session.data(for: forged)
        }
    }

    @Test func anInvalidatedSessionFailsWithCancelled() async throws {
        let manager = makeManager()
        manager.invalidateSession(cancelingTasks: true)
        #expect(await failure(of: {
            try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/1")))
        }) == .cancelled)
    }

    @Test func fourThousandConcurrentRequestsCompleteAndLeaveNoDescriptorsBehind() async {
        let manager = makeManager()
        let connections = ConnectionGauge(manager)  // the engine's sockets
        let warmup = try? await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/1")))
        #expect(warmup?.0.count == 1)
        // 4,096 at once, admitted six connections at a time (URLSessionConfiguration's default per host).
        let bodies = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4_096 {
                group.addTask { (try? await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/100"))))?.0.count ?? -1 }
            }
            var sizes: [Int: Int] = [:]
            for await size in group { sizes[size, default: 0] += 1 }
            return sizes
        }
        #expect(bodies == [100: 4_096])
        manager.invalidateSession(cancelingTasks: true)
        #expect(await eventually { connections.open == 0 })
    }
}

/// The URLError code `body` failed with (nil when it did not fail with a URLError).
private func failure<Value>(of body: () async throws -> Value) async -> URLError.Code? {
    do {
        _ = try await body()
        return nil
    } catch {
        return (error as? URLError)?.code
    }

}
