import AFImageLoading
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// AFNetworking's ImageDownloader tests, on an in-memory provider (the integration suite runs them
/// against real servers through AFCore).
@Suite("ImageDownloader")
struct ImageDownloaderTests {
    let provider = InMemoryDataTaskProvider()
    let pngURL = "http://images.test/image/png"
    let jpegURL = "http://images.test/image/jpeg"
    var pngRequest: URLRequest { URLRequest(url: URL(string: pngURL)!) }
    var jpegRequest: URLRequest { URLRequest(url: URL(string: jpegURL)!) }

    init() throws {
        provider.serve(pngURL, contentType: "image/png", body: TestImages.logoData)
        provider.serve(jpegURL, contentType: "image/jpeg", body: try TestImages.data("jpeg-baseline", "jpg"))
    }

    func makeDownloader(_ prioritization: ImageDownloadPrioritization = .fifo, maximumActiveDownloads: Int = 4,
                        cache: AutoPurgingImageCache? = AutoPurgingImageCache()) -> ImageDownloader {
        ImageDownloader(sessionManager: provider, downloadPrioritization: prioritization,
                        maximumActiveDownloads: maximumActiveDownloads, imageCache: cache)
    }

    @Test func defaultsAreAFs() {
        let downloader = ImageDownloader(sessionManager: provider)
        #expect(downloader.maximumActiveDownloads == 4)
        #expect(downloader.downloadPrioritization == .fifo)
        #expect(downloader.imageCache is AutoPurgingImageCache)
        #expect(downloader.callbackQueue.label == DispatchQueue.main.label)
        #expect(downloader.responseSerializer.acceptableContentTypes == ImageResponseSerializer.defaultAcceptableContentTypes)
    }

    @Test func defaultSessionConfigurationIsAFs() {
        let configuration = ImageDownloader.defaultURLSessionConfiguration()
        #expect(configuration.httpShouldSetCookies)
        #expect(configuration.requestCachePolicy == .useProtocolCachePolicy)
        #expect(configuration.allowsCellularAccess)
        #expect(configuration.timeoutIntervalForRequest == 60)
        #expect(configuration.urlCache?.memoryCapacity == 20 * 1024 * 1024)
        #expect(configuration.urlCache?.diskCapacity == 150 * 1024 * 1024)
    }

    @Test func canBeReleasedWithActiveDownloads() async {
        var downloader: ImageDownloader? = makeDownloader()
        provider.hold(pngURL)
        weak let weakDownloader = downloader
        downloader?.downloadImage(for: pngRequest, success: nil, failure: nil)
        downloader = nil
        #expect(weakDownloader == nil)
        provider.release(pngURL)
    }

    @Test func downloadsAnImage() async throws {
        let downloader = makeDownloader()
        let outcomes = Outcomes()
        let receipt = downloader.downloadImage(for: pngRequest, success: outcomes.success, failure: outcomes.failure)
        #expect(receipt != nil)
        let outcome = try #require(await outcomes.wait(for: 1).first)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.image == TestImages.logo())
    }

    @Test func downloadsMultipleImagesSimultaneously() async throws {
        let downloader = makeDownloader()
        let png = Outcomes(), jpeg = Outcomes()
        downloader.downloadImage(for: pngRequest, success: png.success, failure: png.failure)
        downloader.downloadImage(for: jpegRequest, success: jpeg.success, failure: jpeg.failure)
        #expect(await png.wait(for: 1).first?.image?.width == 850)
        #expect(await jpeg.wait(for: 1).first?.image?.width == 61)
        #expect(provider.createdTasks.count == 2)
    }

    @Test func simultaneousRequestsForTheSameURLShareOneTaskAndResponse() async throws {
        let downloader = makeDownloader()
        provider.hold(pngURL)
        let first = Outcomes(), second = Outcomes()
        let receipt1 = try #require(downloader.downloadImage(for: pngRequest, success: first.success, failure: first.failure))
        let receipt2 = try #require(downloader.downloadImage(for: pngRequest, success: second.success, failure: second.failure))
        #expect(receipt1.task === receipt2.task)
        #expect(receipt1.receiptID != receipt2.receiptID)
        provider.release(pngURL)
        let response1 = try #require(await first.wait(for: 1).first?.response)
        let response2 = try #require(await second.wait(for: 1).first?.response)
        #expect(response1 === response2)
        #expect(first.all.first?.image == second.all.first?.image)
        #expect(provider.createdTasks.count == 1)
    }

    @Test func responseIsNilWhenReturnedFromCache() async throws {
        let downloader = makeDownloader()
        let first = Outcomes(), second = Outcomes()
        downloader.downloadImage(for: pngRequest, success: first.success, failure: first.failure)
        let downloaded = try #require(await first.wait(for: 1).first)
        let receipt = downloader.downloadImage(for: pngRequest, success: second.success, failure: second.failure)
        let cached = try #require(await second.wait(for: 1).first)
        #expect(receipt == nil)
        #expect(downloaded.response != nil)
        #expect(cached.response == nil)
        #expect(cached.image == downloaded.image)
        #expect(provider.createdTasks.count == 1)
    }

    @Test func cacheIsIgnoredForReloadIgnoringLocalCacheData() async throws {
        let downloader = makeDownloader()
        let first = Outcomes(), second = Outcomes()
        let receipt1 = downloader.downloadImage(for: pngRequest, success: first.success, failure: first.failure)
        await first.wait(for: 1)
        var reload = pngRequest
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        let receipt2 = downloader.downloadImage(for: reload, success: second.success, failure: second.failure)
        let outcome = try #require(await second.wait(for: 1).first)
        #expect(receipt1 != nil && receipt2 != nil && receipt1 != receipt2)
        #expect(outcome.response?.statusCode == 200)
        #expect(provider.createdTasks.count == 2)
    }

    @Test func shouldCacheIsHonoured() async throws {
        let cache = AutoPurgingImageCache(shouldCacheImage: { _, _, _ in false })
        let downloader = makeDownloader(cache: cache)
        let first = Outcomes(), second = Outcomes()
        downloader.downloadImage(for: pngRequest, success: first.success, failure: first.failure)
        await first.wait(for: 1)
        #expect(cache.memoryUsage == 0)
        let receipt = downloader.downloadImage(for: pngRequest, success: second.success, failure: second.failure)
        #expect(receipt != nil)
        #expect(await second.wait(for: 1).first?.response?.statusCode == 200)
        #expect(provider.createdTasks.count == 2)
    }

    @Test func cacheIsAskedShouldCacheAndThenAdded() async throws {
        let asked = Mutex(0)
        let cache = AutoPurgingImageCache(shouldCacheImage: { image, request, identifier in
            asked.withLock { $0 += 1 }
            return identifier == nil && request.url?.absoluteString == "http://images.test/image/png" && image.width == 850
        })
        let downloader = makeDownloader(cache: cache)
        let first = Outcomes(), second = Outcomes()
        downloader.downloadImage(for: pngRequest, success: first.success, failure: first.failure)
        let downloaded = try #require(await first.wait(for: 1).first)
        #expect(asked.withLock { $0 } == 1)
        #expect(cache.memoryUsage == 1_020_000)
        let receipt = downloader.downloadImage(for: pngRequest, success: second.success, failure: second.failure)
        let cached = try #require(await second.wait(for: 1).first)
        #expect(receipt == nil)
        #expect(downloaded.response != nil && cached.response == nil)
        #expect(cached.image == downloaded.image)
    }

    @Test func downloadedImagesAreCachedUnderTheRequestURL() async {
        let cache = AutoPurgingImageCache()
        let downloader = makeDownloader(cache: cache)
        let outcomes = Outcomes()
        downloader.downloadImage(for: pngRequest, success: outcomes.success, failure: outcomes.failure)
        await outcomes.wait(for: 1)
        #expect(cache.memoryUsage == 1_020_000)
        #expect(cache.image(withIdentifier: pngURL) == TestImages.logo())
    }

    @Test func cancellingCallsFailureWithCancellationError() async throws {
        let downloader = makeDownloader()
        provider.hold(pngURL)
        let outcomes = Outcomes()
        let receipt = try #require(downloader.downloadImage(for: pngRequest, success: outcomes.success, failure: outcomes.failure))
        downloader.cancelTask(for: receipt)
        let error = try #require(await outcomes.wait(for: 1).first?.error)
        #expect(error.domain == NSURLErrorDomain)
        #expect(error.code == -999)
        #expect(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String == "ImageDownloader cancelled URL request: \(pngURL)")
        #expect(receipt.task.state == .completed)   // its only handler gone: the task was cancelled
        provider.release(pngURL)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(outcomes.all.count == 1)            // and nothing else arrives
    }

    @Test func cancellingOneOfTwoMergedHandlersLetsTheOtherComplete() async throws {
        let downloader = makeDownloader()
        provider.hold(pngURL)
        let kept = Outcomes(), cancelled = Outcomes()
        downloader.downloadImage(for: pngRequest, success: kept.success, failure: kept.failure)
        let receipt = try #require(downloader.downloadImage(for: pngRequest, success: cancelled.success, failure: cancelled.failure))
        downloader.cancelTask(for: receipt)
        #expect(await cancelled.wait(for: 1).first?.error?.code == -999)
        #expect(receipt.task.state == .running)     // a handler remains: the task goes on
        provider.release(pngURL)
        let outcome = try #require(await kept.wait(for: 1).first)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.image?.width == 850)
        #expect(cancelled.all.count == 1)
    }

    @Test func downloadCancelDownloadAgainSucceeds() async throws {
        let downloader = makeDownloader()
        let urls = (5...9).map { "http://images.test/avatar/\($0)a105e8b9d40e1329780d62ea2265d8a" }
        let cancelled = Outcomes(), downloaded = Outcomes()
        for url in urls {
            provider.serve(url, contentType: "image/png", body: TestImages.logoData)
            provider.hold(url)
            let receipt = try #require(downloader.downloadImage(for: URLRequest(url: URL(string: url)!),
                                                                success: cancelled.success, failure: cancelled.failure))
            downloader.cancelTask(for: receipt)
        }
        for url in urls {
            provider.release(url)
            let receipt = downloader.downloadImage(for: URLRequest(url: URL(string: url)!), success: downloaded.success, failure: downloaded.failure)
            #expect(receipt != nil)
        }
        let failures = await cancelled.wait(for: 5)
        #expect(failures.count == 5 && failures.allSatisfy { $0.error?.code == -999 && $0.error?.domain == NSURLErrorDomain })
        let successes = await downloaded.wait(for: 5)
        #expect(successes.count == 5 && successes.allSatisfy { $0.image?.width == 850 })
        #expect(provider.createdTasks.count == 10)
    }

    @Test func requestWithoutURLFailsWithBadURL() async throws {
        let downloader = makeDownloader()
        var request = URLRequest(url: URL(string: "http://x")!)
        request.url = nil
        let outcomes = Outcomes()
        let receipt = downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure)
        #expect(receipt == nil)
        let error = try #require(await outcomes.wait(for: 1).first?.error)
        #expect(error.domain == NSURLErrorDomain)
        #expect(error.code == -1000)
        #expect(provider.createdTasks.isEmpty)
    }

    @Test func successHandlerRunsOnTheMainQueue() async throws {
        let downloader = makeDownloader()
        let outcomes = Outcomes()
        downloader.downloadImage(for: pngRequest, success: outcomes.success, failure: outcomes.failure)
        #expect(try #require(await outcomes.wait(for: 1).first).onMainThread)
    }

    @Test func failureHandlerRunsOnTheMainQueueWithTheValidationError() async throws {
        let downloader = makeDownloader()
        let outcomes = Outcomes()
        downloader.downloadImage(for: URLRequest(url: URL(string: "http://images.test/status/404")!),
                                 success: outcomes.success, failure: outcomes.failure)
        let outcome = try #require(await outcomes.wait(for: 1).first)
        #expect(outcome.onMainThread)
        #expect(outcome.response?.statusCode == 404)
        #expect(outcome.error?.domain == "com.alamofire.error.serialization.response")
        #expect(outcome.error?.code == -1011)
    }

    @Test func handlersRunOnAConfiguredQueue() async throws {
        let queue = DispatchQueue(label: "handlers")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let downloader = ImageDownloader(sessionManager: provider, callbackQueue: queue)
        let seen = Outcomes()
        downloader.downloadImage(for: pngRequest, success: { request, response, image in
            precondition(DispatchQueue.getSpecific(key: key) == 7, "not on the configured queue")
            seen.success(request, response, image)
        }, failure: seen.failure)
        let outcome = try #require(await seen.wait(for: 1).first)
        #expect(!outcome.onMainThread)
        #expect(outcome.image != nil)
    }

    @Test func receiptCarriesTheGivenIdentifier() throws {
        let downloader = makeDownloader()
        provider.hold(pngURL)
        let id = UUID()
        let receipt = try #require(downloader.downloadImage(for: pngRequest, withReceiptID: id, success: nil, failure: nil))
        #expect(receipt.receiptID == id)
        let other = try #require(downloader.downloadImage(for: pngRequest, success: nil, failure: nil))
        #expect(other.receiptID != id)
        provider.release(pngURL)
    }

    @Test func atMostFourDownloadsRunAndTheRestQueueFIFO() async throws {
        let downloader = makeDownloader(.fifo)
        let urls = (1...6).map { "http://images.test/held/\($0)" }
        let outcomes = Outcomes()
        for url in urls {
            provider.serve(url, contentType: "image/png", body: TestImages.logoData)
            provider.hold(url)
            downloader.downloadImage(for: URLRequest(url: URL(string: url)!), success: outcomes.success, failure: outcomes.failure)
        }
        #expect(downloader.activeDownloadCount == 4)
        #expect(downloader.queuedDownloadCount == 2)
        #expect(provider.resumeOrder == Array(urls[0..<4]))
        provider.release(urls[0])
        await outcomes.wait(for: 1)
        try await waitUntil { provider.resumeOrder.count == 5 }
        #expect(provider.resumeOrder.last == urls[4])
        for url in urls { provider.release(url) }
        #expect(await outcomes.wait(for: 6).count == 6)
        try await waitUntil { downloader.activeDownloadCount == 0 }
        #expect(provider.resumeOrder == urls)
    }

    @Test func lifoStartsTheNewestQueuedDownloadFirst() async throws {
        let downloader = makeDownloader(.lifo, maximumActiveDownloads: 1)
        let urls = (1...3).map { "http://images.test/lifo/\($0)" }
        let outcomes = Outcomes()
        for url in urls {
            provider.serve(url, contentType: "image/png", body: TestImages.logoData)
            provider.hold(url)
            downloader.downloadImage(for: URLRequest(url: URL(string: url)!), success: outcomes.success, failure: outcomes.failure)
        }
        for url in urls { provider.release(url) }
        #expect(await outcomes.wait(for: 3).count == 3)
        try await waitUntil { provider.resumeOrder.count == 3 }
        #expect(provider.resumeOrder == [urls[0], urls[2], urls[1]])
    }

    @Test func cancellingAQueuedDownloadFreesNoSlotItNeverHeld() async throws {
        let downloader = makeDownloader(maximumActiveDownloads: 1)
        let first = "http://images.test/slot/1", second = "http://images.test/slot/2"
        for url in [first, second] {
            provider.serve(url, contentType: "image/png", body: TestImages.logoData)
            provider.hold(url)
        }
        let outcomes = Outcomes()
        downloader.downloadImage(for: URLRequest(url: URL(string: first)!), success: outcomes.success, failure: outcomes.failure)
        let queued = try #require(downloader.downloadImage(for: URLRequest(url: URL(string: second)!), success: nil, failure: nil))
        downloader.cancelTask(for: queued)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(downloader.activeDownloadCount == 1)
        #expect(downloader.queuedDownloadCount == 0)
        provider.release(first)
        #expect(await outcomes.wait(for: 1).first?.image != nil)
        try await waitUntil { downloader.activeDownloadCount == 0 }
        #expect(provider.resumeOrder == [first])
    }

    @Test func asyncImageReturnsImageAndResponse() async throws {
        let downloader = makeDownloader()
        let (image, response) = try await downloader.image(for: pngRequest)
        #expect(image.width == 850)
        #expect(response?.statusCode == 200)
        let (cached, cachedResponse) = try await downloader.image(for: pngRequest)
        #expect(cached == image)
        #expect(cachedResponse == nil)
    }

    @Test func asyncImageDoesNotNeedTheCallbackQueue() async throws {
        let stalled = DispatchQueue(label: "never serviced")
        stalled.suspend()
        let downloader = ImageDownloader(sessionManager: provider, callbackQueue: stalled)
        let (image, response) = try await downloader.image(for: pngRequest)
        #expect(image.height == 300)
        #expect(response?.statusCode == 200)
        stalled.resume()
    }

    @Test func cancellingTheSwiftTaskCancelsTheDownload() async throws {
        let downloader = makeDownloader()
        provider.hold(pngURL)
        let request = pngRequest
        let download = Task { try await downloader.image(for: request) }
        try await waitUntil { downloader.activeDownloadCount == 1 }
        download.cancel()
        await #expect(throws: URLError.self) { try await download.value }
        #expect(provider.createdTasks.first?.state == .completed)
        provider.release(pngURL)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(condition())
    }
}
