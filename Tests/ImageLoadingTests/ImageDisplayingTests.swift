import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A stand-in for a UI toolkit's image view.
@MainActor
final class TestImageView: ImageDisplaying {
    var image: Image? {
        didSet { history.append(image) }
    }
    private(set) var history: [Image?] = []
}

/// AFNetworking's UIImageView category tests, adapted to the ImageDisplaying binding. Serialized:
/// they share `ImageDisplayingDownloader.shared`.
@Suite("ImageDisplaying binding (AF's UIImageView tests)", .serialized)
@MainActor
struct ImageDisplayingTests {
    let provider = InMemoryDataTaskProvider()
    let cache = AutoPurgingImageCache()
    let pngURL = URL(string: "http://images.test/image/png")!
    let jpegURL = URL(string: "http://images.test/image/jpeg")!
    let placeholder = Image(width: 1, height: 1, bytes: Data([9, 9, 9, 255]))

    init() throws {
        provider.serve(pngURL.absoluteString, contentType: "image/png", body: TestImages.logoData)
        provider.serve(jpegURL.absoluteString, contentType: "image/jpeg", body: try TestImages.data("jpeg-baseline", "jpg"))
        ImageDisplayingDownloader.shared = ImageDownloader(sessionManager: provider, imageCache: cache)
    }

    @Test func imageIsDownloadedAndShown() async throws {
        let view = TestImageView()
        view.setImage(with: pngURL)
        try await waitUntil { view.image != nil }
        #expect(view.image == TestImages.logo())
        #expect(view.activeImageDownloadReceipt == nil)
    }

    @Test func placeholderIsReplacedWhenTheRequestSucceeds() async throws {
        let view = TestImageView()
        view.setImage(with: URLRequest(url: jpegURL), placeholder: placeholder, success: nil, failure: nil)
        #expect(view.image == placeholder)
        try await waitUntil { view.image != placeholder }
        #expect(view.image?.width == 61)
        #expect(view.history.count == 2 && view.history.first == placeholder)
    }

    @Test func duplicateRequestToTheSameViewIsIgnored() async throws {
        let view = TestImageView()
        provider.hold(pngURL.absoluteString)
        view.setImage(with: pngURL)
        let receipt = try #require(view.activeImageDownloadReceipt)
        view.setImage(with: pngURL)
        #expect(view.activeImageDownloadReceipt == receipt)      // the running download was kept
        provider.release(pngURL.absoluteString)
        try await waitUntil { view.image != nil }
        #expect(view.image?.width == 850)
        #expect(provider.createdTasks.count == 1)
    }

    @Test func placeholderIsShownAndKeptWhenTheRequestFails() async throws {
        let view = TestImageView()
        var failure: NSError?
        view.setImage(with: URLRequest(url: URL(string: "http://images.test/status/404")!), placeholder: placeholder,
                      success: nil, failure: { _, response, error in failure = error as NSError })
        #expect(view.image == placeholder)
        try await waitUntil { failure != nil }
        #expect(failure?.code == -1011)
        #expect(view.image == placeholder)
        #expect(view.history == [placeholder])
    }

    @Test func cacheAnswersSynchronouslyWithANilResponse() async throws {
        let logo = TestImages.logo()
        cache.add(logo, for: URLRequest(url: pngURL), withAdditionalIdentifier: nil)
        let view = TestImageView()
        var answered: (HTTPURLResponse?, Image)?
        view.setImage(with: URLRequest(url: pngURL), placeholder: placeholder, success: { _, response, image in
            answered = (response, image)
        }, failure: nil)
        // Synchronous: already answered when setImage returns, without a download.
        let (response, image) = try #require(answered)
        #expect(response == nil)
        #expect(image == logo)
        #expect(view.image == nil)                    // a success closure shows nothing itself
        #expect(provider.createdTasks.isEmpty)
        // Without a success closure the cached image is shown at once, no placeholder in between.
        view.setImage(with: pngURL, placeholder: placeholder)
        #expect(view.image == logo)
        #expect(view.history == [logo])
    }

    @Test func requestWithoutURLShowsPlaceholderAndFailsWithBadURL() {
        let view = TestImageView()
        var failure: NSError?
        var request = URLRequest(url: pngURL)
        request.url = nil
        view.setImage(with: request, placeholder: placeholder, success: nil, failure: { _, _, error in failure = error as NSError })
        #expect(view.image == placeholder)
        #expect(failure?.domain == NSURLErrorDomain)
        #expect(failure?.code == -1000)
        view.setImage(with: nil, placeholder: nil)
        #expect(view.image == nil)
        #expect(provider.createdTasks.isEmpty)
    }

    @Test func cancelThenSetAgainLoadsTheImage() async throws {
        let view = TestImageView()
        provider.hold(pngURL.absoluteString)
        var firstSuccess = false, firstFailure = false
        view.setImage(with: URLRequest(url: pngURL), placeholder: nil,
                      success: { _, _, _ in firstSuccess = true }, failure: { _, _, _ in firstFailure = true })
        let firstTask = try #require(view.activeImageDownloadReceipt?.task)
        view.cancelImageDownloadTask()
        #expect(view.activeImageDownloadReceipt == nil)
        #expect(firstTask.state == .completed)        // its only handler was cancelled
        provider.release(pngURL.absoluteString)
        view.setImage(with: pngURL)
        try await waitUntil { view.image != nil }
        #expect(view.image?.width == 850)
        // The cancelled request's handlers stay silent: its completion is stale.
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(!firstSuccess && !firstFailure)
    }

    @Test func staleCompletionIsIgnored() async throws {
        let view = TestImageView()
        provider.hold(pngURL.absoluteString)
        view.setImage(with: pngURL)              // superseded before it completes
        view.setImage(with: jpegURL)
        try await waitUntil { view.image != nil }
        #expect(view.image?.width == 61)
        provider.release(pngURL.absoluteString)
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(view.image?.width == 61)
        #expect(view.history.count == 1)
    }

    @Test func diskCacheAnswerIsShown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-binding-disk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskImageCache(directory: directory)
        disk.store(TestImages.logoData, forKey: DiskImageCache.key(for: URLRequest(url: pngURL)))
        ImageDisplayingDownloader.shared = ImageDownloader(sessionManager: provider, imageCache: cache, diskCache: disk)
        let view = TestImageView()
        view.setImage(with: pngURL, placeholder: placeholder)
        #expect(view.image == placeholder)
        #expect(view.activeImageDownloadReceipt == nil)       // answered from disk: no task
        try await waitUntil { view.image?.width == 850 }
        #expect(view.history == [placeholder, TestImages.logo()])
        #expect(provider.createdTasks.isEmpty)
    }

    private func waitUntil(_ condition: @MainActor () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(condition())
    }
}
