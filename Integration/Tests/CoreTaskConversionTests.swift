// Core: a data task's response disposition turning it into a download (`.becomeDownload`) or failing it
// (`.becomeStream`), against nginx and the fault server.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// What the conversion hooks saw, in order (engine thread).
private final class ConversionLog: Sendable {
    struct Conversion {
        let dataTask: SessionDataTask
        let downloadTask: SessionDownloadTask
        /// `manager.tasks`' identifiers when the hook ran.
        let listedIdentifiers: [Int]
        let listedDataIdentifiers: [Int]
        let listedDownloadIdentifiers: [Int]
        /// Notification counters for both tasks, made in the hook.
        let dataCompleted: PostedCounter
        let downloadCompleted: PostedCounter
    }

    enum Event: Equatable {
        case converted
        case wrote(taskIdentifier: Int, total: Int64, expected: Int64)
        case finishedDownloading(taskIdentifier: Int)
        case completed(taskIdentifier: Int, code: Int?)
        case notification(String)
    }

    let conversions = Mutex<[Conversion]>([])
    let events = Mutex<[Event]>([])
    let temporaryFiles = Mutex<[URL]>([])
    let completions = Mutex<[CoreResult]>([])
    /// An observer token (not Sendable: it is only handed back to NotificationCenter in deinit).
    private struct Token: @unchecked Sendable { let value: any NSObjectProtocol }
    private let observers = Mutex<[Token]>([])

    deinit { for token in observers.withLock({ $0 }) { NotificationCenter.default.removeObserver(token.value) } }

    /// Records resume and complete notifications about tasks for `url` as events, in posting order.
    func recordNotifications(about url: URL) {
        for (name, label) in [(Notification.Name.networkingTaskDidResume, "resume"), (.networkingTaskDidComplete, "complete")] {
            let token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                guard let self, let task = note.object as? SessionTask, task.originalRequest?.url == url else { return }
                let keys = (note.userInfo ?? [:]).keys.compactMap { $0 as? String }.sorted()
                self.events.withLock {
                    $0.append(.notification("\(label) \(type(of: task)) \(task.taskIdentifier) \(keys)"))
                }
            }
            let box = Token(value: token)
            observers.withLock { $0.append(box) }
        }
    }

    var conversion: Conversion? { conversions.withLock { $0.first } }
    var completionCount: Int { completions.withLock { $0.count } }

    /// Hooks that convert every data task and move the file to `destination` (nil: no destination).
    func hooks(for manager: URLSessionManager, destination: URL?) -> SessionManagerHooks {
        var hooks = SessionManagerHooks()
        hooks.dataTaskDidReceiveResponse = { _, _ in .becomeDownloadTask }
        hooks.dataTaskDidBecomeDownloadTask = { [weak manager] dataTask, download in
            let conversion = Conversion(
                dataTask: dataTask, downloadTask: download,
                listedIdentifiers: manager?.tasks.map(\.taskIdentifier) ?? [],
                listedDataIdentifiers: manager?.dataTasks.map(\.taskIdentifier) ?? [],
                listedDownloadIdentifiers: manager?.downloadTasks.map(\.taskIdentifier) ?? [],
                dataCompleted: PostedCounter(.networkingTaskDidComplete, object: dataTask),
                downloadCompleted: PostedCounter(.networkingTaskDidComplete, object: download))
            self.conversions.withLock { $0.append(conversion) }
            self.events.withLock { $0.append(.converted) }
        }
        hooks.downloadTaskDidWriteData = { task, _, total, expected in
            self.events.withLock { $0.append(.wrote(taskIdentifier: task.taskIdentifier, total: total, expected: expected)) }
        }
        hooks.downloadTaskDidFinishDownloading = { task, temporary in
            self.temporaryFiles.withLock { $0.append(temporary) }
            self.events.withLock { $0.append(.finishedDownloading(taskIdentifier: task.taskIdentifier)) }
            return destination
        }
        hooks.taskDidComplete = { task, error in
            self.events.withLock { $0.append(.completed(taskIdentifier: task.taskIdentifier, code: (error as NSError?)?.code)) }
        }
        return hooks
    }

    /// Runs a data task for `request` to its completion (waiting a moment longer for a second call).
    func run(_ manager: URLSessionManager, _ request: URLRequest) async -> (task: SessionDataTask, progress: [Int64]) {
        let progress = Mutex<[Int64]>([])
        let task = manager.dataTask(with: request, downloadProgress: { p in
            progress.withLock { $0.append(p.completedUnitCount) }
        }, completionHandler: { response, object, error in
            self.completions.withLock {
                $0.append(CoreResult(response: response as? HTTPURLResponse, object: object, error: error))
            }
        })
        task.resume()
        _ = await waitUntil(20) { self.completionCount > 0 }
        try? await Task.sleep(for: .milliseconds(200))
        return (task, progress.withLock { $0 })
    }
}

@Suite("Core: task conversion")
struct CoreTaskConversionTests {
    /// A file of `count` bytes served by nginx (removed by the caller).
    private func servedFile(_ servers: IntegrationServers, byteCount: Int) throws -> (url: URL, local: URL, data: Data) {
        let name = "conversion-\(UUID().uuidString).bin"
        let local = servers.files.root.appendingPathComponent("files/\(name)")
        let data = patternedData(count: byteCount) { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 8)) }
        try data.write(to: local)
        return (servers.nginx.httpURL("/files/\(name)"), local, data)
    }

    @Test func becomeDownloadMovesTheBodyToAFileAndCompletesTheDataTaskOnce() async throws {
        let servers = try await IntegrationServers.shared()
        let file = try servedFile(servers, byteCount: 1 << 20)
        defer { try? FileManager.default.removeItem(at: file.local) }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("conversion-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let manager = coreManager()
        let log = ConversionLog()
        manager.hooks = log.hooks(for: manager, destination: target)
        log.recordNotifications(about: file.url)

        let (dataTask, progress) = await log.run(manager, URLRequest(url: file.url))

        #expect(log.conversions.withLock { $0.count } == 1)
        let conversion = try #require(log.conversion)
        let download = conversion.downloadTask
        #expect(conversion.dataTask === dataTask)
        #expect(download.taskIdentifier != dataTask.taskIdentifier)
        #expect(download.taskIdentifier == dataTask.taskIdentifier + 1)
        // During the transfer the manager lists the download task, not the data task.
        #expect(conversion.listedIdentifiers == [download.taskIdentifier])
        #expect(conversion.listedDataIdentifiers == [])
        #expect(conversion.listedDownloadIdentifiers == [download.taskIdentifier])
        #expect(download.originalRequest?.url == file.url)
        #expect((download.response as? HTTPURLResponse)?.statusCode == 200)

        // The completion ran once, with the file URL as the object.
        let results = log.completions.withLock { $0 }
        #expect(results.count == 1)
        let result = try #require(results.first)
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 200)
        #expect(result.response?.expectedContentLength == Int64(1 << 20))
        #expect(result.object as? URL == target)
        #expect(try Data(contentsOf: target) == file.data)
        let temporary = try #require(log.temporaryFiles.withLock { $0 }.first)
        #expect(temporary != target)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))

        // Hook order: conversion, then progress of the download task only, the move, the completion.
        let events = log.events.withLock { $0 }.filter {
            if case .notification = $0 { return false }
            return true
        }
        #expect(events.first == .converted)
        let writes = events.compactMap { event -> (Int, Int64, Int64)? in
            if case .wrote(let id, let total, let expected) = event { return (id, total, expected) }
            return nil
        }
        #expect(!writes.isEmpty)
        #expect(writes.allSatisfy { $0.0 == download.taskIdentifier && $0.2 == Int64(1 << 20) })
        #expect(writes.last?.1 == Int64(1 << 20))
        #expect(Array(events.suffix(2)) == [.finishedDownloading(taskIdentifier: download.taskIdentifier),
                                            .completed(taskIdentifier: download.taskIdentifier, code: nil)])
        // The data task's download progress closure followed the download.
        #expect(progress.last == Int64(1 << 20))

        // Final states and notifications.
        #expect(dataTask.state == .completed)
        #expect(dataTask.error == nil)
        #expect(download.state == .completed)
        #expect(download.error == nil)
        #expect(download.countOfBytesReceived == Int64(1 << 20))
        #expect(await waitUntil { conversion.downloadCompleted.value == 1 })
        // The data task's end and the download's start were posted at the conversion (before the hook made
        // these counters), so observers following tasks one by one stay balanced.
        #expect(conversion.dataCompleted.value == 0)
        let d = dataTask.taskIdentifier, n = download.taskIdentifier
        let notifications = log.events.withLock { $0 }.filter {
            if case .notification = $0 { return true }
            return $0 == .converted
        }
        let serializerKey = "com.alamofire.networking.task.complete.responseserializer"
        let downloadKeys = ["com.alamofire.networking.complete.sessiontaskmetrics",
                            "com.alamofire.networking.task.complete.assetpath", serializerKey].sorted()
        #expect(notifications == [
            .notification("resume SessionDataTask \(d) []"),
            .notification("resume SessionDownloadTask \(n) []"),
            .notification("complete SessionDataTask \(d) [\"\(serializerKey)\"]"),
            .converted,
            .notification("complete SessionDownloadTask \(n) \(downloadKeys)"),
        ])
        #expect(manager.tasks.isEmpty)
    }

    @Test func becomeDownloadWithoutDestinationDeletesTheFile() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let log = ConversionLog()
        manager.hooks = log.hooks(for: manager, destination: nil)

        _ = await log.run(manager, URLRequest(url: servers.nginx.httpURL(servers.files.oneKilobyte.urlPath)))

        let results = log.completions.withLock { $0 }
        #expect(results.count == 1)
        #expect(results.first?.error == nil)
        #expect(results.first?.response?.statusCode == 200)
        #expect(results.first?.object == nil)
        let temporary = try #require(log.temporaryFiles.withLock { $0 }.first)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
        #expect(log.conversion?.downloadTask.countOfBytesReceived == Int64(ServedFiles.oneKilobyteByteCount))
    }

    /// Cancelling the download task, or the data task it came from (which forwards), gives -999 once.
    @Test(arguments: [false, true])
    func cancellingTheDownloadTaskGivesCancelledOnce(throughTheDataTask: Bool) async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let log = ConversionLog()
        var hooks = log.hooks(for: manager, destination: nil)
        let conversionHook = hooks.dataTaskDidBecomeDownloadTask
        let forwarded = Mutex<[Bool]>([])
        hooks.dataTaskDidBecomeDownloadTask = { dataTask, download in
            conversionHook?(dataTask, download)
            // /stall never sends its body: the download is still running when this cancel arrives.
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
                guard throughTheDataTask else { return download.cancel() }
                // The data task forwards control to the download task.
                dataTask.suspend()
                let suspended = download.state == .suspended
                dataTask.resume()
                let resumed = download.state == .running
                forwarded.withLock { $0 = [suspended, resumed] }
                dataTask.cancel()
            }
        }
        manager.hooks = hooks

        let (dataTask, _) = await log.run(manager, URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)))

        let results = log.completions.withLock { $0 }
        #expect(results.count == 1)
        #expect(results.first?.code == NSURLErrorCancelled)
        #expect(results.first?.object == nil)
        let download = try #require(log.conversion?.downloadTask)
        #expect((download.error as NSError?)?.code == NSURLErrorCancelled)
        #expect(download.state == .completed)
        #expect(dataTask.state == .completed)
        #expect(dataTask.error == nil)
        #expect(log.events.withLock { $0 }.last == .completed(taskIdentifier: download.taskIdentifier, code: NSURLErrorCancelled))
        #expect(log.temporaryFiles.withLock { $0 }.isEmpty)
        #expect(manager.tasks.isEmpty)
        #expect(forwarded.withLock { $0 } == (throughTheDataTask ? [true, true] : []))
    }

    @Test func httpSessionManagerSuccessGetsTheOriginalDataTaskAndTheFileURL() async throws {
        let servers = try await IntegrationServers.shared()
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("conversion-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let manager = coreManager(baseURL: servers.nginx.httpBaseURL)
        let log = ConversionLog()
        manager.hooks = log.hooks(for: manager, destination: target)

        let successTask = Mutex<SessionDataTask?>(nil)
        let object = Mutex<URL?>(nil)
        let failed = Mutex(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = manager.get(servers.files.oneKilobyte.urlPath, success: { task, value in
                successTask.withLock { $0 = task }
                object.withLock { $0 = value as? URL }
                continuation.resume()
            }, failure: { _, _ in
                failed.withLock { $0 = true }
                continuation.resume()
            })
        }
        #expect(!failed.withLock { $0 })
        let original = try #require(log.conversion?.dataTask)
        #expect(successTask.withLock { $0 } === original)
        #expect(object.withLock { $0 } == target)
        #expect(try Data(contentsOf: target) == (try Data(contentsOf: servers.files.oneKilobyte.localURL)))
    }

    @Test func becomeStreamFailsWithATypedErrorAndDeliversNoBody() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let chunks = Mutex(0)
        let completed = Mutex<[Int?]>([])
        var hooks = SessionManagerHooks()
        // swift-corelibs-foundation marks `.becomeStream` unavailable (and init(rawValue: 3) gives nil), so
        // the value is made from its tag; the layout checks fail loudly should that ever change.
        #expect(MemoryLayout<URLSession.ResponseDisposition>.size == 1)
        #expect(unsafeBitCast(UInt8(1), to: URLSession.ResponseDisposition.self) == .allow)
        #expect(unsafeBitCast(UInt8(2), to: URLSession.ResponseDisposition.self) == .becomeDownloadTask)
        let becomeStream = unsafeBitCast(UInt8(3), to: URLSession.ResponseDisposition.self)
        #expect(becomeStream != .allow && becomeStream != .cancel && becomeStream != .becomeDownloadTask)
        hooks.dataTaskDidReceiveResponse = { _, _ in becomeStream }
        hooks.dataTaskDidReceiveData = { _, _ in chunks.withLock { $0 += 1 } }
        hooks.taskDidComplete = { _, error in completed.withLock { $0.append((error as NSError?)?.code) } }
        manager.hooks = hooks
        let url = servers.nginx.httpURL(servers.files.oneKilobyte.urlPath)

        let holder = Mutex<SessionDataTask?>(nil)
        let result = await runTask { done in
            let task = manager.dataTask(with: URLRequest(url: url), completionHandler: done)
            holder.withLock { $0 = task }
            return task
        }
        let task = try #require(holder.withLock { $0 })
        let error = try #require(result.error as? URLError)
        #expect(error.code == .cancelled)
        #expect(error.errorCode == NSURLErrorCancelled)
        #expect(error.localizedDescription == URLSessionManager.streamConversionUnsupportedDescription)
        #expect(error.localizedDescription == "Converting a data task to a stream task is not supported on this platform")
        #expect(error.failingURL == url)
        #expect(result.object == nil)
        #expect(result.response?.statusCode == 200)
        #expect(chunks.withLock { $0 } == 0)
        #expect(task.state == .completed)
        #expect((task.error as? URLError)?.code == .cancelled)
        #expect(task.countOfBytesReceived == 0)
        #expect(completed.withLock { $0 } == [NSURLErrorCancelled])
    }
}
