import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

@Suite("Engine: downloads and async")
struct DownloadAndAsyncTests {
    @Test func downloadMovesToDestinationAndNotifies() async throws {
        let manager = makeManager()
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("core-dl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let temporary = Protected<URL?>(nil)
        let task = manager.downloadTask(with: URLRequest(url: sharedServer.url("/bytes/500000")), progress: nil,
                                        destination: { tmp, response in
            temporary.withLock { $0 = tmp }
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            return destination
        }, completionHandler: nil)
        let moved = NotificationCounter(.urlSessionDownloadTaskDidMoveFileSuccessfully, object: task)
        let final = Protected<Double>(0)
        let (_, fileURL) = try await manager.download(URLRequest(url: sharedServer.url("/bytes/500000")),
                                                      progress: { p in final.withLock { $0 = p.fractionCompleted } },
                                                      destination: { _, _ in destination })
        #expect(fileURL == destination)
        #expect(try Data(contentsOf: destination) == LoopbackServer.pattern(500_000))
        #expect(final.withLock { $0 } == 1.0)

        try FileManager.default.removeItem(at: destination)
        let result: (URL?, (any Error)?) = await withCheckedContinuation { continuation in
            let second = manager.downloadTask(with: URLRequest(url: sharedServer.url("/bytes/1000")), progress: nil,
                                              destination: { _, _ in destination }) { _, url, error in
                continuation.resume(returning: (url, error))
            }
            second.resume()
        }
        #expect(result.0 == destination)
        #expect(result.1 == nil)
        _ = task
        #expect(moved.value == 0)  // the first task was never resumed
        task.cancel()
    }

    @Test func failedMovePostsTheFailureNotificationAndCompletesWithTheError() async throws {
        let manager = makeManager()
        let bad = URL(fileURLWithPath: "/nonexistent-dir-\(UUID().uuidString)/file")
        let failed = Protected(0)
        let token = NotificationCenter.default.addObserver(forName: .urlSessionDownloadTaskDidFailToMoveFile, object: nil,
                                                           queue: nil) { _ in failed.withLock { $0 += 1 } }
        defer { NotificationCenter.default.removeObserver(token) }
        let result: (URL?, (any Error)?) = await withCheckedContinuation { continuation in
            manager.downloadTask(with: URLRequest(url: sharedServer.url("/bytes/10")), progress: nil,
                                 destination: { _, _ in bad }) { _, url, error in
                continuation.resume(returning: (url, error))
            }.resume()
        }
        #expect(result.0 == nil)
        #expect(result.1 != nil)
        #expect(failed.withLock { $0 } == 1)
    }

    @Test func byteHooksReportRunningTotals() async throws {
        let manager = makeManager()
        let sent = Protected<(delta: Int64, total: Int64, expected: Int64)>((0, 0, 0))
        let written = Protected<(delta: Int64, total: Int64, expected: Int64)>((0, 0, 0))
        var hooks = SessionManagerHooks()
        hooks.taskDidSendBodyData = { _, delta, total, expected in
            sent.withLock { $0 = ($0.delta + delta, total, expected) }
        }
        hooks.downloadTaskDidWriteData = { _, delta, total, expected in
            written.withLock { $0 = ($0.delta + delta, total, expected) }
        }
        manager.hooks = hooks
        var upload = URLRequest(url: sharedServer.url("/echo"))
        upload.httpMethod = "POST"
        _ = try await manager.upload(upload, from: LoopbackServer.pattern(70_000))
        let sentTotals = sent.withLock { $0 }
        #expect(sentTotals.delta == 70_000)
        #expect(sentTotals.total == 70_000)
        #expect(sentTotals.expected == 70_000)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("core-hooks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        _ = try await manager.download(URLRequest(url: sharedServer.url("/bytes/300000")), destination: { _, _ in destination })
        let writtenTotals = written.withLock { $0 }
        #expect(writtenTotals.delta == 300_000)
        #expect(writtenTotals.total == 300_000)
        #expect(writtenTotals.expected == 300_000)
    }

    @Test func undecodableResumeDataFailsTheTask() async {
        let manager = makeManager()
        let result: (any Error)? = await withCheckedContinuation { continuation in
            manager.downloadTask(withResumeData: Data("junk".utf8), progress: nil, destination: nil) { _, _, error in
                continuation.resume(returning: error)
            }.resume()
        }
        #expect((result as? URLError)?.code == .cannotOpenFile)
    }

    @Test func asyncDataReturnsTheObject() async throws {
        let manager = makeManager()
        let (response, object) = try await manager.data(for: URLRequest(url: sharedServer.url("/bytes/64")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(object as? Data == LoopbackServer.pattern(64))
    }

    @Test func cancellingTheSwiftTaskCancelsTheTransfer() async {
        let manager = makeManager()
        let work = Task { try await manager.data(for: URLRequest(url: sharedServer.url("/stall"))) }
        try? await Task.sleep(for: .milliseconds(100))
        work.cancel()
        do {
            _ = try await work.value
            Issue.record("expected cancellation")
        } catch {
            #expect((error as? URLError)?.code == .cancelled)
        }
        #expect(await eventually { manager.tasks.isEmpty })
    }

    @Test func progressSequenceEndsAtTheTotal() async throws {
        let manager = makeManager()
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/slow/100000")), completionHandler: nil)
        let updates = try #require(manager.progressUpdates(for: task))
        task.resume()
        var last: TransferProgress?
        for await update in updates { last = update }
        #expect(last == TransferProgress(completedUnitCount: 100_000, totalUnitCount: 100_000))
    }

    @Test func eventStreamReportsLifecycle() async throws {
        let manager = makeManager()
        let events = manager.taskEvents()
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1")), completionHandler: nil)
        task.resume()
        var kinds: [String] = []
        for await event in events where event.task === task {
            switch event {
            case .resumed: kinds.append("resumed")
            case .suspended: kinds.append("suspended")
            case .completed(_, let error): kinds.append(error == nil ? "completed" : "failed")
            }
            if kinds.count == 2 { break }
        }
        #expect(kinds == ["resumed", "completed"])
    }

    @Test func dataTaskProvidingSeamUsesTheGivenSerializer() async {
        let manager = makeManager()
        let provider: any DataTaskProviding = manager
        let result: DataTaskResult = await withCheckedContinuation { continuation in
            provider.makeDataTask(with: URLRequest(url: sharedServer.url("/bytes/4")),
                                  responseSerializer: CountingSerializer()) { continuation.resume(returning: $0) }.resume()
        }
        #expect(result.object as? Int == 4)
        #expect(result.data == LoopbackServer.pattern(4))
    }

    /// The descriptors counted are the engine's sockets (``ConnectionGauge``).
    @Test func thousandConcurrentTasksLeaveNoDescriptorsBehind() async {
        let manager = makeManager()
        let connections = ConnectionGauge(manager)
        let warmup = await complete(manager, URLRequest(url: sharedServer.url("/bytes/1")))
        #expect(warmup.error == nil)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask { (try? await manager.data(for: URLRequest(url: sharedServer.url("/bytes/100")))) == nil }
            }
            var failures = 0
            for await failed in group where failed { failures += 1 }
            return failures
        }
        #expect(failures == 0)
        manager.invalidateSession(cancelingTasks: true)
        #expect(await eventually { connections.open == 0 })
    }
}

/// Counts body bytes: a serializer the manager does not ship, to see the per-task one is used.
private struct CountingSerializer: ResponseSerializing {
    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        SerializedResponse(object: data?.count ?? 0)
    }
}
