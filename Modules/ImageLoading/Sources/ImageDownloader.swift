import AFProtocols
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads images through a session, merging identical requests, limiting concurrent downloads
/// and caching results in memory (AFImageDownloader).
///
/// - Merging: requests with the same URL (`absoluteString`) running at the same time share one task;
///   every handler gets the same response and image. Each call returns its own receipt.
/// - Cache: for the cache policies `.useProtocolCachePolicy`, `.returnCacheDataElseLoad` and
///   `.returnCacheDataDontLoad`, an image in ``imageCache`` answers at once: `nil` receipt, success
///   with a `nil` response. `.reloadIgnoringLocalCacheData` (and the others) always download.
///   Downloaded images are added when the cache's `shouldCache` agrees.
/// - Limits: at most ``maximumActiveDownloads`` tasks run; others wait in ``downloadPrioritization`` order.
/// - Cancelling a receipt fails that handler with `URLError(.cancelled)` (-999) whose
///   `NSLocalizedFailureReasonErrorKey` is `ImageDownloader cancelled URL request: <url>`; the task is
///   cancelled only when no handler remains.
/// - A request without a URL fails with `URLError(.badURL)` (-1000) and returns `nil`.
/// - Beyond AFNetworking: an optional ``DiskImageCache`` answers after the memory cache (off the
///   caller's thread, `nil` receipt and response) and keeps downloaded bodies across restarts.
///
/// Requests run only through the injected `DataTaskProviding` (AFCore's session manager, wired by
/// the umbrella module, or any adopter).
///
/// Threading: every method is safe from any thread. Handlers run on ``callbackQueue`` (the main
/// queue by default), always asynchronously.
public final class ImageDownloader: Sendable {
    /// Called with the request, the HTTP response (`nil` when the image came from the cache) and the image.
    public typealias Success = @Sendable (URLRequest, HTTPURLResponse?, Image) -> Void
    /// Called with the request, the HTTP response if any, and the error.
    public typealias Failure = @Sendable (URLRequest, HTTPURLResponse?, any Error) -> Void

    /// Runs the downloads.
    public let sessionManager: any DataTaskProviding
    /// The in-memory cache consulted before and filled after downloads; `nil` disables caching.
    public let imageCache: (any ImageRequestCaching<Image>)?
    /// Decodes and validates each body (AFNetworking's image serializer by default).
    public let responseSerializer: ImageResponseSerializer
    /// The order queued downloads start in. Default `.fifo`.
    public let downloadPrioritization: ImageDownloadPrioritization
    /// Concurrent downloads. Default 4.
    public let maximumActiveDownloads: Int
    /// Where handlers run. Default the main queue.
    public let callbackQueue: DispatchQueue
    /// An optional on-disk cache of the encoded bodies (beyond AFNetworking): consulted after the
    /// memory cache under the same cache policies, filled after each successful download.
    public let diskCache: DiskImageCache?

    private struct Handler {
        let id: UUID
        let success: Success?
        let failure: Failure?
        /// Where this handler runs: ``callbackQueue``, or a global queue for the async API (which
        /// must not depend on the main queue being serviced).
        let queue: DispatchQueue
    }
    private struct MergedTask {
        let identifier: UUID
        let urlIdentifier: String
        let task: any NetworkTask
        var handlers: [Handler]
    }
    private struct State {
        var mergedTasks: [String: MergedTask] = [:]
        var queued: [(urlIdentifier: String, identifier: UUID)] = []
        /// Merged-task identifiers holding a download slot (started, not yet completed): a task
        /// cancelled while running keeps its slot until its completion arrives.
        var running: Set<UUID> = []
    }
    private let state = Protected(State())

    /// Creates a downloader.
    /// - Parameters:
    ///   - sessionManager: runs the requests (for AFNetworking's behaviour: a session with a URL cache).
    ///   - downloadPrioritization: default `.fifo`.
    ///   - maximumActiveDownloads: default 4 (at least 1 is used).
    ///   - imageCache: default a new ``AutoPurgingImageCache`` with AFNetworking's capacities.
    ///   - responseSerializer: default ``ImageResponseSerializer``'s defaults.
    ///   - callbackQueue: where handlers run; default `.main`.
    ///   - diskCache: default `nil` (memory only, as AFNetworking).
    public init(sessionManager: any DataTaskProviding,
                downloadPrioritization: ImageDownloadPrioritization = .fifo,
                maximumActiveDownloads: Int = 4,
                imageCache: (any ImageRequestCaching<Image>)? = AutoPurgingImageCache(),
                responseSerializer: ImageResponseSerializer = ImageResponseSerializer(),
                callbackQueue: DispatchQueue = .main,
                diskCache: DiskImageCache? = nil) {
        self.diskCache = diskCache
        self.sessionManager = sessionManager
        self.downloadPrioritization = downloadPrioritization
        self.maximumActiveDownloads = max(1, maximumActiveDownloads)
        self.imageCache = imageCache
        self.responseSerializer = responseSerializer
        self.callbackQueue = callbackQueue
    }

    /// The session configuration AFNetworking's default downloader uses, for building the session
    /// manager to inject: cookies on, `.useProtocolCachePolicy`, cellular allowed,
    /// a 60 s request timeout, and a URL cache of 20 MB in memory and 150 MB on disk
    /// (`<caches>/com.alamofire.imagedownloader`).
    public static func defaultURLSessionConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpShouldSetCookies = true
        configuration.requestCachePolicy = .useProtocolCachePolicy
        configuration.allowsCellularAccess = true
        configuration.timeoutIntervalForRequest = 60
        configuration.urlCache = defaultURLCache
        return configuration
    }

    /// The URL cache of ``defaultURLSessionConfiguration()``: 20 MB memory, 150 MB disk, in
    /// `<caches>/com.alamofire.imagedownloader`, a directory readable by this user only (created 0700).
    public static let defaultURLCache: URLCache = {
        let directory = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first?
            .appendingPathComponent("com.alamofire.imagedownloader")
        // Before Foundation creates it with the umask's mode (0755) and writes responses in it.
        if let directory { PrivateFiles.makeDirectory(atPath: directory.path) }
        return URLCache(memoryCapacity: 20 * 1024 * 1024, diskCapacity: 150 * 1024 * 1024, diskPath: directory?.path)
    }()

    /// Downloads the image for `request`, or answers from the cache.
    /// - Parameters:
    ///   - request: the image's request (its URL is the cache key).
    ///   - receiptID: the identifier of the returned receipt (default a new UUID).
    ///   - success: runs with the request, the response (nil from the cache) and the image.
    ///   - failure: runs with the request, the response if any, and the error.
    /// - Returns: the receipt for this handler, or `nil` when the cache answered or the request has
    ///   no URL (the handler still runs).
    @discardableResult
    public func downloadImage(for request: URLRequest, withReceiptID receiptID: UUID = UUID(),
                              success: Success?, failure: Failure?) -> ImageDownloadReceipt? {
        downloadImage(for: request, withReceiptID: receiptID, handlerQueue: callbackQueue, success: success, failure: failure)
    }

    private func downloadImage(for request: URLRequest, withReceiptID receiptID: UUID, handlerQueue: DispatchQueue,
                               success: Success?, failure: Failure?) -> ImageDownloadReceipt? {
        guard let url = request.url else {
            let error = URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "The request has no URL"])
            if let failure { handlerQueue.async { failure(request, nil, error) } }
            return nil
        }
        let urlIdentifier = url.absoluteString
        let handler = Handler(id: receiptID, success: success, failure: failure, queue: handlerQueue)

        enum Lookup { case joined(any NetworkTask), missing }
        let lookup: Lookup = state.withLock { state in
            guard var existing = state.mergedTasks[urlIdentifier] else { return .missing }
            existing.handlers.append(handler)
            state.mergedTasks[urlIdentifier] = existing
            return .joined(existing.task)
        }
        if case .joined(let task) = lookup {
            return ImageDownloadReceipt(receiptID: receiptID, task: task, urlIdentifier: urlIdentifier)
        }
        if Self.cachePolicyAllowsCache(request.cachePolicy),
           let cached = imageCache?.image(for: request, withAdditionalIdentifier: nil) {
            if let success { handlerQueue.async { success(request, nil, cached) } }
            return nil
        }
        if Self.cachePolicyAllowsCache(request.cachePolicy), let diskCache,
           diskCache.contains(key: DiskImageCache.key(for: request)) {
            answerFromDisk(diskCache, request: request, handler: handler)
            return nil
        }

        // The task is made outside the lock (a provider may call back at once); if another call
        // registered the same URL meanwhile, this one joins it and the spare task is cancelled.
        let identifier = UUID()
        let task = sessionManager.makeDataTask(with: request, responseSerializer: responseSerializer) { [weak self] result in
            self?.finish(urlIdentifier: urlIdentifier, identifier: identifier, request: request, result: result)
        }
        enum Registration { case joined(any NetworkTask), started, queued }
        let registration: Registration = state.withLock { state in
            if var existing = state.mergedTasks[urlIdentifier] {
                existing.handlers.append(handler)
                state.mergedTasks[urlIdentifier] = existing
                return .joined(existing.task)
            }
            state.mergedTasks[urlIdentifier] = MergedTask(identifier: identifier, urlIdentifier: urlIdentifier,
                                                           task: task, handlers: [handler])
            if state.running.count < maximumActiveDownloads {
                state.running.insert(identifier)
                return .started
            }
            switch downloadPrioritization {
            case .fifo: state.queued.append((urlIdentifier, identifier))
            case .lifo: state.queued.insert((urlIdentifier, identifier), at: 0)
            }
            return .queued
        }
        switch registration {
        case .joined(let existingTask):
            task.cancel()
            return ImageDownloadReceipt(receiptID: receiptID, task: existingTask, urlIdentifier: urlIdentifier)
        case .started:
            task.resume()
            return ImageDownloadReceipt(receiptID: receiptID, task: task, urlIdentifier: urlIdentifier)
        case .queued:
            return ImageDownloadReceipt(receiptID: receiptID, task: task, urlIdentifier: urlIdentifier)
        }
    }

    /// Cancels the handler of `receipt`: it fails with -999 (see the type's description); the task is
    /// cancelled when it has no handler left. Does nothing if the download already finished.
    public func cancelTask(for receipt: ImageDownloadReceipt) {
        let (removed, taskToCancel): (Handler?, (any NetworkTask)?) = state.withLock { state in
            guard var merged = state.mergedTasks[receipt.urlIdentifier], merged.task === receipt.task,
                  let index = merged.handlers.firstIndex(where: { $0.id == receipt.receiptID }) else { return (nil, nil) }
            let handler = merged.handlers.remove(at: index)
            if merged.handlers.isEmpty {
                state.mergedTasks[receipt.urlIdentifier] = nil
                state.queued.removeAll { $0.identifier == merged.identifier }
                return (handler, merged.task)
            }
            state.mergedTasks[receipt.urlIdentifier] = merged
            return (handler, nil)
        }
        if let removed, let failure = removed.failure {
            let request = receipt.task.originalRequest ?? URLRequest(url: URL(string: receipt.urlIdentifier) ?? URL(fileURLWithPath: "/"))
            var userInfo: [String: Any] = [
                NSLocalizedFailureReasonErrorKey: "ImageDownloader cancelled URL request: \(receipt.urlIdentifier)",
            ]
            if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
            let error = URLError(.cancelled, userInfo: userInfo)
            removed.queue.async { failure(request, nil, error) }
        }
        taskToCancel?.cancel()
    }

    /// Downloads the image for `request` (or takes it from the cache) without callbacks.
    /// Cancelling the calling Swift task cancels this handler as ``cancelTask(for:)`` does. Does not
    /// need the main queue to run (results arrive on a global queue, not ``callbackQueue``).
    /// - Returns: the image and the HTTP response (`nil` from the cache).
    public func image(for request: URLRequest) async throws -> (image: Image, response: HTTPURLResponse?) {
        let receiptID = UUID()
        let receiptBox = Protected<ImageDownloadReceipt?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let receipt = downloadImage(for: request, withReceiptID: receiptID, handlerQueue: .global(),
                                            success: { _, response, image in
                    continuation.resume(returning: (image, response))
                }, failure: { _, _, error in
                    continuation.resume(throwing: error)
                })
                receiptBox.withLock { $0 = receipt }
                // Cancelled before the receipt existed: the handler above saw no receipt to cancel.
                if Task.isCancelled, let receipt { cancelTask(for: receipt) }
            }
        } onCancel: {
            if let receipt = receiptBox.withLock({ $0 }) { cancelTask(for: receipt) }
        }
    }

    /// Number of downloads running now (for diagnostics and tests).
    public var activeDownloadCount: Int { state.withLock { $0.running.count } }
    /// Number of downloads waiting for a slot.
    public var queuedDownloadCount: Int { state.withLock { $0.queued.count } }

    private static func cachePolicyAllowsCache(_ policy: URLRequest.CachePolicy) -> Bool {
        switch policy {
        case .useProtocolCachePolicy, .returnCacheDataElseLoad, .returnCacheDataDontLoad: return true
        default: return false
        }
    }

    private func finish(urlIdentifier: String, identifier: UUID, request: URLRequest, result: DataTaskResult) {
        let (merged, heldSlot): (MergedTask?, Bool) = state.withLock { state in
            let heldSlot = state.running.remove(identifier) != nil
            // A task whose handlers were all cancelled is gone from the table: they were told already.
            guard let merged = state.mergedTasks[urlIdentifier], merged.identifier == identifier else { return (nil, heldSlot) }
            state.mergedTasks[urlIdentifier] = nil
            return (merged, heldSlot)
        }
        if heldSlot { startQueuedDownloads() }

        guard let merged else { return }
        let response = result.response as? HTTPURLResponse
        if let error = result.error {
            for handler in merged.handlers {
                if let failure = handler.failure { handler.queue.async { failure(request, response, error) } }
            }
            return
        }
        guard let image = result.object as? Image else {
            let error = URLError(.cannotDecodeContentData, userInfo: [NSLocalizedDescriptionKey: "The response has no image"])
            for handler in merged.handlers {
                if let failure = handler.failure { handler.queue.async { failure(request, response, error) } }
            }
            return
        }
        if let imageCache, imageCache.shouldCache(image, for: request, withAdditionalIdentifier: nil) {
            imageCache.add(image, for: request, withAdditionalIdentifier: nil)
        }
        if let diskCache, let data = result.data {
            diskCache.store(data, forKey: DiskImageCache.key(for: request))
        }
        for handler in merged.handlers {
            if let success = handler.success { handler.queue.async { success(request, response, image) } }
        }
    }

    /// A disk hit: read and decode off the caller's thread, fill the memory cache, answer like a
    /// memory hit (`nil` response). An entry that no longer reads or decodes is dropped and the
    /// request downloads after all (that download has no receipt to cancel it by).
    private func answerFromDisk(_ diskCache: DiskImageCache, request: URLRequest, handler: Handler) {
        let key = DiskImageCache.key(for: request)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            if let data = diskCache.data(forKey: key), let image = try? responseSerializer.image(from: data) {
                if let imageCache, imageCache.shouldCache(image, for: request, withAdditionalIdentifier: nil) {
                    imageCache.add(image, for: request, withAdditionalIdentifier: nil)
                }
                if let success = handler.success { handler.queue.async { success(request, nil, image) } }
                return
            }
            diskCache.removeData(forKey: key)
            _ = downloadImage(for: request, withReceiptID: handler.id, handlerQueue: handler.queue,
                              success: handler.success, failure: handler.failure)
        }
    }

    /// Starts queued downloads while slots are free.
    private func startQueuedDownloads() {
        let next: [any NetworkTask] = state.withLock { state in
            var tasks: [any NetworkTask] = []
            while !state.queued.isEmpty && state.running.count < maximumActiveDownloads {
                let candidate = state.queued.removeFirst()
                guard let merged = state.mergedTasks[candidate.urlIdentifier], merged.identifier == candidate.identifier else {
                    continue
                }
                state.running.insert(merged.identifier)
                tasks.append(merged.task)
            }
            return tasks
        }
        for task in next { task.resume() }
    }
}
