// AFNetworking's ImageDownloader tests, re-homed on the harness: images from nginx (/images/) and
// httpbin (/image/<type>), downloaded through AFCore's session via the DataTaskProviding seam.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("ImageLoading: ImageDownloader against nginx and httpbin")
struct ImageDownloaderIntegrationTests {
    @Test func defaultDownloaderDownloads() async throws {
        let servers = try await IntegrationServers.shared()
        let downloader = ImageDownloader.default
        #expect(downloader === ImageDownloader.default)
        #expect(downloader.maximumActiveDownloads == 4 && downloader.downloadPrioritization == .fifo)
        var request = URLRequest(url: servers.nginx.httpURL(servers.files.gradientPNG.urlPath))
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (image, response) = try await downloader.image(for: request)
        #expect(image.width == 32 && response?.statusCode == 200)
    }

    @Test func downloadsPNGFromNginxWithTheFilesPixels() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let outcomes = ImageOutcomes()
        let receipt = downloader.downloadImage(for: URLRequest(url: servers.nginx.httpURL(servers.files.logoPNG.urlPath)),
                                               success: outcomes.success, failure: outcomes.failure)
        #expect(receipt != nil)
        let outcome = try #require(await outcomes.wait(for: 1).first)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.response?.mimeType == "image/png")
        let expected = try ImageDecoder.decode(Data(contentsOf: servers.files.logoPNG.localURL))
        #expect(outcome.image == expected)
        #expect(outcome.image?.width == 850 && outcome.image?.height == 300)
    }

    @Test func downloadsJPEGAndAlphaPNGFromNginx() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let jpeg = ImageOutcomes(), png = ImageOutcomes()
        downloader.downloadImage(for: URLRequest(url: servers.nginx.httpURL(servers.files.photoJPEG.urlPath)),
                                 success: jpeg.success, failure: jpeg.failure)
        downloader.downloadImage(for: URLRequest(url: servers.nginx.httpURL(servers.files.gradientPNG.urlPath)),
                                 success: png.success, failure: png.failure)
        let photo = try #require(await jpeg.wait(for: 1).first?.image)
        #expect(photo == (try ImageDecoder.decode(Data(contentsOf: servers.files.photoJPEG.localURL))))
        #expect(photo.width == 64 && photo.height == 48)
        let gradient = try #require(await png.wait(for: 1).first?.image)
        // make-images.py: pixel (x, y) = (x*255/31, y*255/31, 200, 255 - x*255/31).
        #expect(gradient.pixel(x: 0, y: 0) == RGBA(red: 0, green: 0, blue: 200, alpha: 255))
        #expect(gradient.pixel(x: 31, y: 31) == RGBA(red: 255, green: 255, blue: 200, alpha: 0))
        #expect(gradient.pixel(x: 10, y: 20) == RGBA(red: 82, green: 164, blue: 200, alpha: 173))
    }

    @Test func downloadsHTTPBinImagesSimultaneously() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let png = ImageOutcomes(), jpeg = ImageOutcomes()
        downloader.downloadImage(for: URLRequest(url: servers.httpbin.url("/image/png")), success: png.success, failure: png.failure)
        downloader.downloadImage(for: URLRequest(url: servers.httpbin.url("/image/jpeg")), success: jpeg.success, failure: jpeg.failure)
        for outcomes in [png, jpeg] {
            let outcome = try #require(await outcomes.wait(for: 1).first)
            #expect(outcome.error == nil, "\(String(describing: outcome.error))")
            #expect(outcome.response?.statusCode == 200)
            let image = try #require(outcome.image)
            #expect(image.width > 0 && image.bytes.count == image.width * image.height * 4)
        }
    }

    @Test func simultaneousRequestsForTheSameAssetReceiveTheSameResponse() async throws {
        let servers = try await IntegrationServers.shared()
        let session = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: ImageResponseSerializer())
        defer { session.invalidateSession(cancelingTasks: true) }
        // One slot, held by a stalled download: both calls surely find the first one's task pending.
        let downloader = ImageDownloader(sessionManager: session, maximumActiveDownloads: 1)
        let stall = try #require(downloader.downloadImage(for: URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)),
                                                          success: nil, failure: nil))
        let request = URLRequest(url: servers.nginx.httpURL(servers.files.logoPNG.urlPath))
        let first = ImageOutcomes(), second = ImageOutcomes()
        let receipt1 = try #require(downloader.downloadImage(for: request, success: first.success, failure: first.failure))
        let receipt2 = try #require(downloader.downloadImage(for: request, success: second.success, failure: second.failure))
        #expect(receipt1.task === receipt2.task)
        downloader.cancelTask(for: stall)
        let response1 = try #require(await first.wait(for: 1).first?.response)
        let response2 = try #require(await second.wait(for: 1).first?.response)
        #expect(response1 === response2)
        let image1 = await first.wait(for: 1).first?.image
        let image2 = await second.wait(for: 1).first?.image
        #expect(image1 != nil && image1 == image2)
    }

    @Test func imageBehindARedirectIsDownloaded() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let target = servers.nginx.httpURL(servers.files.photoJPEG.urlPath).absoluteString
        var components = URLComponents(url: servers.httpbin.url("/redirect-to"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "url", value: target)]
        let outcomes = ImageOutcomes()
        downloader.downloadImage(for: URLRequest(url: components.url!), success: outcomes.success, failure: outcomes.failure)
        let outcome = try #require(await outcomes.wait(for: 1).first)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.response?.url?.absoluteString == target)
        #expect(outcome.image?.width == 64)
    }

    @Test func cacheHitHasNilReceiptAndNilResponse() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let request = URLRequest(url: servers.httpbin.url("/image/png"))
        let first = ImageOutcomes(), second = ImageOutcomes()
        let receipt1 = downloader.downloadImage(for: request, success: first.success, failure: first.failure)
        let downloaded = try #require(await first.wait(for: 1).first)
        let receipt2 = downloader.downloadImage(for: request, success: second.success, failure: second.failure)
        let cached = try #require(await second.wait(for: 1).first)
        #expect(receipt1 != nil && receipt2 == nil)
        #expect(downloaded.response != nil && cached.response == nil)
        #expect(cached.image == downloaded.image)
    }

    @Test func shouldCacheIsHonoured() async throws {
        let servers = try await IntegrationServers.shared()
        let asked = Mutex(0)
        let cache = AutoPurgingImageCache(shouldCacheImage: { _, _, _ in asked.withLock { $0 += 1 }; return false })
        let (downloader, session) = imageDownloader(cache: cache)
        defer { session.invalidateSession(cancelingTasks: true) }
        let request = URLRequest(url: servers.nginx.httpURL(servers.files.logoPNG.urlPath))
        for _ in 0..<2 {
            let outcomes = ImageOutcomes()
            #expect(downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure) != nil)
            #expect(await outcomes.wait(for: 1).first?.response?.statusCode == 200)
        }
        #expect(asked.withLock { $0 } == 2)
        #expect(cache.memoryUsage == 0)
    }

    @Test func reloadIgnoringLocalCacheDataDownloadsAgain() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: servers.nginx.httpURL(servers.files.logoPNG.urlPath))
        let first = ImageOutcomes(), second = ImageOutcomes()
        let receipt1 = downloader.downloadImage(for: request, success: first.success, failure: first.failure)
        await first.wait(for: 1)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let receipt2 = downloader.downloadImage(for: request, success: second.success, failure: second.failure)
        let outcome = try #require(await second.wait(for: 1).first)
        #expect(receipt1 != nil && receipt2 != nil && receipt1 != receipt2)
        #expect(outcome.response?.statusCode == 200)
    }

    // Cancellation tests cancel downloads that cannot have finished: the fault server's /stall sends
    // headers and then nothing, and a downloader with one slot held by it keeps others queued. (AF's
    // originals race a fast server: a download that wins the race is not cancelled.)

    @Test func cancellingGivesAFsCancellationError() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let url = servers.faultServer.url(FaultEndpoints.stall)
        let outcomes = ImageOutcomes()
        let receipt = try #require(downloader.downloadImage(for: URLRequest(url: url), success: outcomes.success, failure: outcomes.failure))
        downloader.cancelTask(for: receipt)
        let error = try #require(await outcomes.wait(for: 1).first?.error)
        #expect(error.domain == NSURLErrorDomain)
        #expect(error.code == -999)
        #expect(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String == "ImageDownloader cancelled URL request: \(url.absoluteString)")
        try await waitUntil { downloader.activeDownloadCount == 0 }   // the session's task was cancelled and completed
    }

    @Test func cancellingOneOfTwoMergedHandlersLetsTheOtherComplete() async throws {
        let servers = try await IntegrationServers.shared()
        let session = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: ImageResponseSerializer())
        defer { session.invalidateSession(cancelingTasks: true) }
        let downloader = ImageDownloader(sessionManager: session, maximumActiveDownloads: 1)
        let stall = try #require(downloader.downloadImage(for: URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)),
                                                          success: nil, failure: nil))
        let request = URLRequest(url: servers.httpbin.url("/image/jpeg"))
        let kept = ImageOutcomes(), cancelled = ImageOutcomes()
        let keptReceipt = try #require(downloader.downloadImage(for: request, success: kept.success, failure: kept.failure))
        let receipt = try #require(downloader.downloadImage(for: request, success: cancelled.success, failure: cancelled.failure))
        #expect(keptReceipt.task === receipt.task)
        downloader.cancelTask(for: receipt)
        #expect(await cancelled.wait(for: 1).first?.error?.code == -999)
        downloader.cancelTask(for: stall)          // frees the slot: the merged download runs for the kept handler
        let outcome = try #require(await kept.wait(for: 1).first)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.image != nil)
    }

    @Test func downloadCancelAndDownloadAgain() async throws {
        let servers = try await IntegrationServers.shared()
        let session = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: ImageResponseSerializer())
        defer { session.invalidateSession(cancelingTasks: true) }
        let downloader = ImageDownloader(sessionManager: session, maximumActiveDownloads: 1)
        let stall = try #require(downloader.downloadImage(for: URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)),
                                                          success: nil, failure: nil))
        let urls = ["/image/png", "/image/jpeg"].map { servers.httpbin.url($0) }
            + [servers.files.logoPNG, servers.files.photoJPEG, servers.files.gradientPNG].map { servers.nginx.httpURL($0.urlPath) }
        let cancelled = ImageOutcomes(), downloaded = ImageOutcomes()
        var firstTasks: [any NetworkTask] = []
        for url in urls {
            let receipt = try #require(downloader.downloadImage(for: URLRequest(url: url), success: cancelled.success, failure: cancelled.failure))
            firstTasks.append(receipt.task)
            downloader.cancelTask(for: receipt)
        }
        for (url, firstTask) in zip(urls, firstTasks) {
            let receipt = try #require(downloader.downloadImage(for: URLRequest(url: url), success: downloaded.success, failure: downloaded.failure))
            #expect(receipt.task !== firstTask)
        }
        downloader.cancelTask(for: stall)
        let failures = await cancelled.wait(for: 5)
        #expect(failures.count == 5 && failures.allSatisfy { $0.error?.code == -999 })
        let successes = await downloaded.wait(for: 5)
        #expect(successes.count == 5 && successes.allSatisfy { $0.image != nil && $0.response?.statusCode == 200 },
                "\(successes.map { ($0.error, $0.response?.url) })")
    }

    @Test func runningDownloadCanBeCancelledAndStartedAgain() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let request = URLRequest(url: servers.faultServer.url(FaultEndpoints.stall))
        let outcomes = ImageOutcomes()
        let first = try #require(downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure))
        try await waitUntil { first.task.response != nil }   // headers arrived: the transfer is running
        downloader.cancelTask(for: first)
        let second = try #require(downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure))
        #expect(second.task !== first.task)
        #expect(second.task.state == .running)
        downloader.cancelTask(for: second)
        let results = await outcomes.wait(for: 2)
        #expect(results.count == 2 && results.allSatisfy { $0.error?.code == -999 })
    }

    @Test func requestWithoutURLFailsWithBadURL() async throws {
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        request.url = nil
        let outcomes = ImageOutcomes()
        #expect(downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure) == nil)
        let error = try #require(await outcomes.wait(for: 1).first?.error)
        #expect(error.domain == NSURLErrorDomain && error.code == -1000)
    }

    @Test func handlersRunOnTheMainQueue() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let success = ImageOutcomes(), failure = ImageOutcomes()
        downloader.downloadImage(for: URLRequest(url: servers.httpbin.url("/image/png")), success: success.success, failure: success.failure)
        downloader.downloadImage(for: URLRequest(url: servers.httpbin.url("/status/404")), success: failure.success, failure: failure.failure)
        let ok = try #require(await success.wait(for: 1).first)
        #expect(ok.image != nil && ok.onMainQueue)
        let failed = try #require(await failure.wait(for: 1).first)
        #expect(failed.onMainQueue)
        #expect(failed.response?.statusCode == 404)
        #expect(failed.error?.code == -1011)
        #expect(failed.error?.domain == "com.alamofire.error.serialization.response")
    }

    @Test func unacceptableImageTypeFailsWith1016() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let outcomes = ImageOutcomes()
        // httpbin serves SVG as image/svg+xml, which is not among AF's image types.
        downloader.downloadImage(for: URLRequest(url: servers.httpbin.url("/image/svg")), success: outcomes.success, failure: outcomes.failure)
        let error = try #require(await outcomes.wait(for: 1).first?.error)
        #expect(error.code == -1016)
        #expect(error.localizedDescription == "Request failed: unacceptable content-type: image/svg+xml")
    }

    @Test func receiptIDMatchesTheGivenID() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let id = UUID()
        let receipt = downloader.downloadImage(for: URLRequest(url: servers.httpbin.url("/image/jpeg")), withReceiptID: id, success: nil, failure: nil)
        #expect(receipt?.receiptID == id)
        if let receipt { downloader.cancelTask(for: receipt) }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<2000 where !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(condition())
    }

    @Test func asyncAPIDownloadsThroughTheSession() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        let (image, response) = try await downloader.image(for: URLRequest(url: servers.nginx.httpURL(servers.files.photoJPEG.urlPath)))
        #expect(image.width == 64 && response?.statusCode == 200)
    }
}
